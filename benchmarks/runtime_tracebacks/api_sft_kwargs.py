# family: api-drift
# case: KB0049-sft-trainer-keyword-moved-to-config
# expect: unexpected keyword
# note: an old SFTTrainer recipe: dataset_text_field and max_seq_length passed to the trainer
import _tiny
from trl import SFTTrainer

trainer = SFTTrainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.text_dataset(),
                     dataset_text_field="text", max_seq_length=512, tokenizer=_tiny.tokenizer())

# family: api-drift
# set: runtime-42
# expect: unexpected keyword argument
# note: SFTTrainer(packing=True, dataset_text_field='text') passed to the trainer instead of SFTConfig (trl >= 0.20)
import _tiny
from trl import SFTTrainer

trainer = SFTTrainer(model=_tiny.llama(), train_dataset=_tiny.text_dataset(), processing_class=_tiny.tokenizer(),
                     packing=True, dataset_text_field="text")

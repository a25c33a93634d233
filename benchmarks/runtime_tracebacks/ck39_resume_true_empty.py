# family: checkpoint-io
# set: runtime-39
# wave: 1
# expect: No valid checkpoint
# note: Trainer.train(resume_from_checkpoint=True) on a fresh output_dir
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train(resume_from_checkpoint=True)

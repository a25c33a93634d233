# family: checkpoint-io
# expect: valid checkpoint
# note: Trainer.train(resume_from_checkpoint=...) pointed at a folder that is not a checkpoint
import tempfile
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train(resume_from_checkpoint=tempfile.mkdtemp(prefix="checkpoint-"))

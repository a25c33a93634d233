# family: checkpoint-io
# set: runtime-39
# wave: 1
# mode: torchrun
# expect: No valid checkpoint|not a valid checkpoint|Can't find a valid checkpoint
# note: torchrun, Trainer on 2 gloo ranks resuming from a checkpoint path with a typo
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train(resume_from_checkpoint="/tmp/runtime39-out/checkpoint-1000")

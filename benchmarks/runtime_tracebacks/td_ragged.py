# family: training-data
# case: KB0025-ragged-rows-not-padded
# expect: expected sequence of length
# note: Trainer, default collator, tokenized rows of unequal length with labels copied from input_ids
import _tiny
from transformers import Trainer

tok = _tiny.tokenizer()
ds = _tiny.tokenized(tok).map(lambda r: {"labels": r["input_ids"]})
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=ds)
trainer.train()

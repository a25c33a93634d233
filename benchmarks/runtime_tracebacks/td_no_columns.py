# family: training-data
# expect: No columns in the dataset match
# note: Trainer given the raw text dataset (never tokenized), default remove_unused_columns
import _tiny
from transformers import Trainer

trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.text_dataset())
trainer.train()

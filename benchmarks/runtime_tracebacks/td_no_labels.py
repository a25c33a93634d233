# family: training-data
# case: KB0023-trainer-batch-without-labels
# expect: did not return a loss
# note: Trainer with padded rows and the default collator: no labels column
import _tiny
from transformers import Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok, pad_to=8))
trainer.train()

# family: api-drift
# case: KB0012-trainer-tokenizer-renamed
# expect: tokenizer
# note: Trainer(tokenizer=...) under transformers 5
import _tiny
from transformers import Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok), tokenizer=tok)

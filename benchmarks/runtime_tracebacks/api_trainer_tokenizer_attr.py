# family: api-drift
# wave: 2
# expect: tokenizer
# note: a callback reading trainer.tokenizer (renamed processing_class)
import _tiny
from transformers import Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok), processing_class=tok)
print(trainer.tokenizer.pad_token)

# family: loss-nan
# set: runtime-41
# expect: 'loss': nan|'loss': 'nan'|nan
# note: Trainer with a learning rate of 1e8 (a typo for 1e-8): the logged loss turns nan, then training stops at max_steps without a traceback
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
args = _tiny.args(learning_rate=1e8, max_steps=6, max_grad_norm=0.0)
Trainer(model=_tiny.llama(), args=args, train_dataset=_tiny.tokenized(tok, n=32), data_collator=DataCollatorForLanguageModeling(tok, mlm=False)).train()

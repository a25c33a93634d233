# family: training-data
# case: KB0022-tokenizer-without-pad-token
# expect: padding token
# note: Trainer with DataCollatorWithPadding and a tokenizer that has no pad token
import _tiny
from transformers import DataCollatorWithPadding, Trainer

tok = _tiny.tokenizer(pad=False)
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorWithPadding(tok))
trainer.train()

# family: training-data
# case: KB0022-tokenizer-without-pad-token
# set: runtime-42
# expect: padding token|pad
# note: Trainer with DataCollatorWithPadding over a tokenizer that has no pad token (rows of unequal length)
import _tiny
from transformers import DataCollatorWithPadding, Trainer

tok = _tiny.tokenizer(pad=False)
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorWithPadding(tok))
trainer.train()

# family: training-data
# case: KB0023-trainer-batch-without-labels
# set: runtime-44
# mode: logprefix
# expect: KeyError|label|ValueError|loss
# note: container log: a token-classification style dataset whose labels column is called 'tags'; Trainer's model gets no labels and returns no loss
import _tiny
from transformers import Trainer, default_data_collator

tok = _tiny.tokenizer()
ds = _tiny.tokenized(tok, pad_to=8).map(lambda r: {"tags": [0] * 8})
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(remove_unused_columns=False), train_dataset=ds.remove_columns(["attention_mask"]),
                  data_collator=default_data_collator)
trainer.train()

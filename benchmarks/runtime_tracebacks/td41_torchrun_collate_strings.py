# family: training-data
# set: runtime-41
# mode: torchrun
# expect: too many dimensions|excessive nesting|Unable to create tensor|str
# note: torchrun, 2 ranks: Trainer with DataCollatorWithPadding on a tokenized set that still holds its "text" column
import _tiny
from transformers import DataCollatorWithPadding, LlamaForSequenceClassification, Trainer
from datasets import Dataset

tok = _tiny.tokenizer()
ds = Dataset.from_dict({"text": ["the cat sat", "hello world"] * 4, "label": [0, 1] * 4}).map(lambda r: tok(r["text"]))
args = _tiny.args(remove_unused_columns=False)
Trainer(model=LlamaForSequenceClassification(_tiny.llama_config(num_labels=2)), args=args, train_dataset=ds, data_collator=DataCollatorWithPadding(tok)).train()

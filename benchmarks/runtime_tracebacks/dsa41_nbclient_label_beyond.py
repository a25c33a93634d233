# family: device-side-assert
# case: KB0021-label-id-beyond-num-labels
# set: runtime-41
# mode: nbclient
# expect: out of bounds
# note: a notebook: Trainer on a sequence classifier with num_labels=2 while the labels run 0..4 (a 5-star rating column)
import _tiny
from datasets import Dataset
from transformers import LlamaForSequenceClassification, Trainer, DataCollatorWithPadding

tok = _tiny.tokenizer()
ds = Dataset.from_dict({"text": ["the cat sat", "hello world", "a dog", "the mat"] * 2, "label": [0, 4, 2, 3] * 2})
ds = ds.map(lambda r: tok(r["text"]), remove_columns=["text"])
# %%
model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=2))
trainer = Trainer(model=model, args=_tiny.args(), train_dataset=ds, data_collator=DataCollatorWithPadding(tok))
trainer.train()

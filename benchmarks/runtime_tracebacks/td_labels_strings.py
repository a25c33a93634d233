# family: training-data
# wave: 2
# expect: str|dimensions
# note: Trainer, sequence classification with the label column still holding class names
import _tiny
from datasets import Dataset
from transformers import LlamaForSequenceClassification, Trainer

tok = _tiny.tokenizer()
ds = Dataset.from_dict({"text": ["the cat sat", "hello world"] * 4, "label": ["positive", "negative"] * 4})
ds = ds.map(lambda r: tok(r["text"], padding="max_length", max_length=8), remove_columns=["text"])
trainer = Trainer(model=LlamaForSequenceClassification(_tiny.llama_config(num_labels=2)), args=_tiny.args(),
                  train_dataset=ds)
trainer.train()

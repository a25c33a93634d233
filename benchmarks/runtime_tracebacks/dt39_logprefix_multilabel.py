# family: dtype-mismatch
# set: runtime-39
# wave: 2
# mode: logprefix
# expect: can't be cast
# note: a containerised job's log (timestamp and stream before every line); multi-label classification with integer label vectors under Trainer
import torch  # noqa: F401  (kept: the kept output's line numbers)
import _tiny
from datasets import Dataset
from transformers import LlamaForSequenceClassification, Trainer

tok = _tiny.tokenizer()
ds = Dataset.from_dict({"text": ["the cat sat", "hello world"] * 4, "labels": [[1, 0, 1], [0, 1, 0]] * 4})
ds = ds.map(lambda r: tok(r["text"], padding="max_length", max_length=8), remove_columns=["text"])
model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=3, problem_type="multi_label_classification"))
Trainer(model=model, args=_tiny.args(), train_dataset=ds).train()

"""Multi-label topic tagging: a sequence classifier with problem_type="multi_label_classification", trained
on a dataset whose label vectors are 0/1 integers.

A tiny Llama classifier and a local tokenizer (kb/fixtures/tiny.py): nothing is downloaded. CPU.
"""

import torch
from datasets import Dataset, Sequence, Value
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification, DataCollatorWithPadding

from kb.fixtures import tiny

TOPICS = ["animals", "weather", "drinks", "places"]
tok = tiny.tokenizer()
checkpoint = tiny.saved(tiny.classifier(tok, num_labels=len(TOPICS)), tok)
model = AutoModelForSequenceClassification.from_pretrained(checkpoint, problem_type="multi_label_classification")

# One 0/1 flag per topic, as multi-hot columns usually arrive: Python ints, so an int64 column.
texts = tiny.texts(8)
flags = [[int(word in text) for word in ("cat", "rain", "tea", "river")] for text in texts]
ds = Dataset.from_dict({"text": texts, "labels": flags})
ds = ds.map(lambda b: tok(b["text"]), batched=True, remove_columns=["text"])
ds = ds.cast_column("labels", Sequence(Value("float32")))  # BCEWithLogitsLoss wants float targets
print("labels feature:", ds.features["labels"])

loader = DataLoader(ds, batch_size=4, collate_fn=DataCollatorWithPadding(tok))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
batch = next(iter(loader))
print("labels dtype:", batch["labels"].dtype)
loss = model(**batch).loss
loss.backward()
optimizer.step()
print(f"kb-measure loss_is_finite={int(torch.isfinite(loss).item())}")

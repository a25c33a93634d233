"""Review-rating classification: five classes, one per star rating, and the dataset's labels are the
star counts 1..5 as they came from the source.

A tiny Llama classifier (kb/fixtures/tiny.py classifier(tok, num_labels=5)) and a local tokenizer:
nothing is downloaded. CPU; on a GPU the same step is a device-side assert.
"""

import torch
from datasets import Dataset
from torch.utils.data import DataLoader
from transformers import DataCollatorWithPadding

from kb.fixtures import tiny

tok = tiny.tokenizer()
texts = tiny.texts(10)
stars = [1 + i % 5 for i in range(len(texts))]  # ratings 1..5, straight from the review data
ds = Dataset.from_dict({"text": texts, "labels": stars})
ds = ds.map(lambda b: tok(b["text"]), batched=True, remove_columns=["text"])
ds = ds.map(lambda b: {"labels": [s - 1 for s in b["labels"]]}, batched=True)  # class ids 0..4, as cross-entropy indexes them

num_labels = len(set(ds["labels"]))  # 5 classes
model = tiny.classifier(tok, num_labels=num_labels)
print(f"num_labels={model.config.num_labels}  label ids: min {min(ds['labels'])} max {max(ds['labels'])}")

loader = DataLoader(ds, batch_size=10, collate_fn=DataCollatorWithPadding(tok))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
batch = next(iter(loader))
loss = model(**batch).loss
loss.backward()
optimizer.step()
print(f"kb-measure loss_is_finite={int(torch.isfinite(loss).item())}")

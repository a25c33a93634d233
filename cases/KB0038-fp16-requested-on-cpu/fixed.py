"""Training arguments that ask for fp16 only when a GPU is there (fp32 on CPU)."""

import tempfile

import torch
from transformers import TrainingArguments

from kb.fixtures import tiny

print("cuda available:", torch.cuda.is_available())
tok = tiny.tokenizer()
model = tiny.causal_lm(tok)
enc = tok(tiny.texts(4), padding=True, return_tensors="pt")
batch = {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]}

args = TrainingArguments(
    output_dir=tempfile.mkdtemp(prefix="kb0038-"),
    per_device_train_batch_size=4,
    learning_rate=1e-3,
    fp16=torch.cuda.is_available(),  # fp16 only on a GPU; fp32 on CPU
    report_to=[],
)
model.to(args.device).train()
optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
for step in range(2):
    inputs = {k: v.to(args.device) for k, v in batch.items()}
    loss = model(**inputs, labels=inputs["input_ids"]).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
print("device", args.device, "fp16", args.fp16, "loss", round(loss.item(), 3))

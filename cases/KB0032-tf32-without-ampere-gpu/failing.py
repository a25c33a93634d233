"""A training script with tf32 switched on ("free speed on the A100"), run without an Ampere GPU.

Here there is no GPU at all; a T4 or V100 (compute capability 7.x) is refused the same way.
Tiny Llama from kb/fixtures, random weights, nothing downloaded.
"""

import tempfile

import torch
from transformers import Trainer, TrainingArguments

from kb.fixtures import tiny

tf32 = True  # the A100 notebook's setting

tok = tiny.tokenizer()
model = tiny.causal_lm(tok)
enc = tok(tiny.texts(8), padding="max_length", max_length=12, truncation=True)
train_data = [{"input_ids": ids, "attention_mask": mask, "labels": ids}
              for ids, mask in zip(enc["input_ids"], enc["attention_mask"])]

args = TrainingArguments(
    output_dir=tempfile.mkdtemp(), max_steps=2, per_device_train_batch_size=4,
    tf32=tf32, report_to="none", save_strategy="no",
)
result = Trainer(model=model, args=args, train_dataset=train_data).train()
print(f"kb-measure train_steps={result.global_step}")
print(f"kb-measure tf32={int(bool(args.tf32))}")

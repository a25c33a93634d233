"""Fine-tuning loop that moves the model to the GPU and leaves the tokenized batch on the CPU.

`tokenizer(..., return_tensors="pt")` returns CPU tensors; `model.to("cuda")` moves only the
model. The first forward pass feeds CPU token ids to a CUDA embedding. Tiny Llama from kb/fixtures.
"""

import torch

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = tiny.causal_lm(tok).to("cuda")
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)

batch = tok(tiny.texts(4), return_tensors="pt", padding=True)  # on the CPU
batch["labels"] = batch["input_ids"].clone()
loss = model(**batch).loss
loss.backward()
optimizer.step()
print(f"kb-measure loss={loss.item():.4f}")

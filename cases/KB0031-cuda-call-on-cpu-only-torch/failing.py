"""A fine-tuning script written for a GPU box, run where torch is the CPU-only build.

The script moves the model and each batch to "cuda", as most fine-tuning examples do. With a torch
wheel built without CUDA (a +cpu wheel, the default pip wheel on Windows and macOS) the first CUDA
call fails inside torch. Tiny Llama from kb/fixtures, random weights, nothing downloaded.
"""

import torch

from kb.fixtures import tiny

device = "cuda"  # "the GPU settings" of the example this script was copied from

tok = tiny.tokenizer()
model = tiny.causal_lm(tok).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

steps = 0
for text in tiny.texts(2):
    batch = tok(text, return_tensors="pt").to(device)
    loss = model(**batch, labels=batch["input_ids"]).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    steps += 1
print(f"trained on {device}, last loss {loss.item():.3f}")
print(f"kb-measure train_steps={steps}")
print(f"kb-measure on_cuda={int(device == 'cuda')}")

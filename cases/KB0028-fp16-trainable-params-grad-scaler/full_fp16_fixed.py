"""Full fine-tuning (no adapters) of a model, in an fp16 AMP loop.

Fixed: load the weights in float32 and let autocast run the forward and backward in float16.
The optimizer updates float32 weights; the GradScaler unscales float32 gradients. (This needs
twice the memory for weights: on a small GPU, train adapters instead, or bf16 where supported.)
"""

import torch
from transformers import AutoModelForCausalLM

from kb.fixtures import tiny

device = "cuda" if torch.cuda.is_available() else "cpu"
tok = tiny.tokenizer()
path = tiny.saved(tiny.causal_lm(tok), tok)

model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).to(device)

half = sorted({str(p.dtype) for p in model.parameters() if p.requires_grad and p.dtype != torch.float32})
print("trainable parameters not in float32:", half or "none")
print(f"kb-measure half_trainable_dtypes={len(half)}")

optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-4)
scaler = torch.amp.GradScaler(device)
batch = tok(tiny.texts(4), return_tensors="pt", padding=True).to(device)
labels = batch["input_ids"].masked_fill(batch["attention_mask"] == 0, -100)

for step in range(2):
    with torch.autocast(device, dtype=torch.float16):
        loss = model(**batch, labels=labels).loss
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)  # what Trainer/accelerate do before clipping
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    print(f"step {step} loss {loss.item():.4f}")
print("kb-measure steps=2")

"""LoRA on a float16 checkpoint, with the LM head fully trained (modules_to_save), in an fp16 AMP loop.

The base model is loaded in float16 (the usual recipe on 16 GB GPUs). peft creates the LoRA weights
in float32, but the trainable copy of the module listed in modules_to_save is a copy of the float16
lm_head and keeps its dtype. Under fp16 mixed precision a GradScaler scales the loss; before the
optimizer step (and before gradient clipping) scaler.unscale_ checks every gradient the optimizer
will apply and refuses float16 ones.
"""

import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

from kb.fixtures import tiny

device = "cuda" if torch.cuda.is_available() else "cpu"
tok = tiny.tokenizer()
path = tiny.saved(tiny.causal_lm(tok), tok)

model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float16).to(device)
config = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"],
                    modules_to_save=["lm_head"], task_type="CAUSAL_LM")
model = get_peft_model(model, config)

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

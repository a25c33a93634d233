"""Fine-tuning a bfloat16 causal LM with a new feature projector in front of it (the LLaVA / speech-LM pattern):
features from another encoder go through an nn.Linear into the LM's embedding space, are joined to the token
embeddings, and reach the LM as inputs_embeds. No autocast.

A tiny Llama and a local tokenizer (kb/fixtures/tiny.py), loaded back with dtype=torch.bfloat16 as a
checkpoint is: nothing is downloaded. CPU.
"""

import torch
from transformers import AutoModelForCausalLM

from kb.fixtures import tiny

tok = tiny.tokenizer()
checkpoint = tiny.saved(tiny.causal_lm(tok), tok)
model = AutoModelForCausalLM.from_pretrained(checkpoint, dtype=torch.bfloat16)
hidden = model.config.hidden_size

# The new module is created like any nn.Linear: float32 parameters. The features are float32 too.
projector = torch.nn.Linear(32, hidden)
features = torch.randn(2, 3, 32)  # 3 feature vectors per example from the other encoder

batch = tok(tiny.texts(2), padding=True, return_tensors="pt")
prefix = projector(features)                                   # float32
words = model.get_input_embeddings()(batch["input_ids"])      # bfloat16
inputs_embeds = torch.cat([prefix, words], dim=1)              # torch.cat promotes: float32
print("weights:", model.dtype, " prefix:", prefix.dtype, " words:", words.dtype, " inputs_embeds:", inputs_embeds.dtype)

attention_mask = torch.cat([torch.ones(2, 3, dtype=batch["attention_mask"].dtype), batch["attention_mask"]], dim=1)
labels = torch.cat([torch.full((2, 3), -100), batch["input_ids"].masked_fill(batch["attention_mask"] == 0, -100)], dim=1)

optimizer = torch.optim.AdamW([*model.parameters(), *projector.parameters()], lr=1e-4)
with torch.autocast("cpu", dtype=torch.bfloat16):  # matmuls run in bfloat16 whatever the input dtype
    loss = model(inputs_embeds=inputs_embeds, attention_mask=attention_mask, labels=labels).loss
loss.backward()
optimizer.step()
print(f"kb-measure loss_is_finite={int(torch.isfinite(loss).item())}")

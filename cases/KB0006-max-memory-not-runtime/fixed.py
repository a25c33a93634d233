"""Attempt 10 of the incident: GPU 0 holds only embed_tokens, rotary_emb, norm and lm_head.

Qwen2.5-14B's real dimensions, loaded in 4-bit with bitsandbytes. The checkpoint holds 18 of the
48 decoder layers; the 30 it lacks are stood in for, on the GPU of the last built layer, by one
block of their measured 4-bit size, and during training by the fp32 hidden states gradient
checkpointing keeps per layer. See case.md for the arithmetic.
"""

import torch
from peft import get_peft_model, prepare_model_for_kbit_training
from transformers import AutoModelForCausalLM

from kb.fixtures.qwen import (
    FULL_LAYERS, GIB, checkpoint, four_bit_config, lora_config, memory_report, stand_in, stand_in_for_layers, token_batch,
)

BUILT, BATCH, SEQ = 18, 1, 1024
path = checkpoint("14b", layers=BUILT)

# GPU 0: embed_tokens + rotary_emb + norm + lm_head only; GPU 1: layers 0-47.
device_map = {"model.embed_tokens": 0, "model.rotary_emb": 0, "model.norm": 0, "lm_head": 0}
device_map.update({f"model.layers.{i}": 1 for i in range(BUILT)})

model = AutoModelForCausalLM.from_pretrained(path, quantization_config=four_bit_config(), device_map=device_map)
memory_report("loaded")
last = model.model.layers[-1]
layer_device = last.input_layernorm.weight.device
missing_layers = stand_in_for_layers(last, FULL_LAYERS - BUILT, layer_device)
memory_report("with stand-in for the missing layers")
model = prepare_model_for_kbit_training(model)
memory_report("prepared")
model = get_peft_model(model, lora_config())
hidden_bytes = BATCH * SEQ * model.config.hidden_size * 4  # fp32 hidden states checkpointing keeps per layer
missing_activations = stand_in((FULL_LAYERS - BUILT) * hidden_bytes, layer_device, "the missing layers' checkpointed hidden states")

model.train()
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
for step in range(2):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(**token_batch(BATCH, SEQ, device=model.get_input_embeddings().weight.device, seed=step)).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    print(f"step {step}: loss {loss.item():.4f}")
memory_report("trained")
print(f"kb-measure steps={step + 1}")
for d in range(torch.cuda.device_count()):
    print(f"kb-measure peak_gpu{d}_gib={torch.cuda.max_memory_allocated(d) / GIB:.2f}")

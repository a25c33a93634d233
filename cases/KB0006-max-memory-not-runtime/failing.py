"""Attempt 4 of the incident: device_map="auto" with max_memory={0: "10GB", 1: "15GB"}, then QLoRA training.

Run on two uncapped GPUs (profile gpu2) to measure what the run needs: the weights respect the budgets, the
training run's peak on the same GPU does not (and exceeds a T4's 14.74 GiB; under the t4x2 cap this run stops
with the out-of-memory error of KB0007).

Qwen2.5-14B's real dimensions, loaded in 4-bit with bitsandbytes. The checkpoint holds 18 of the
48 decoder layers; the 30 it lacks are stood in for, on the GPU of the last built layer, by one
block of their measured 4-bit size, and during training by the fp32 hidden states gradient
checkpointing keeps per layer. See case.md for the arithmetic.
"""

import torch
from accelerate.utils import convert_file_size_to_int
from peft import get_peft_model, prepare_model_for_kbit_training
from transformers import AutoModelForCausalLM

from kb.fixtures.qwen import (
    FULL_LAYERS, GIB, checkpoint, four_bit_config, lora_config, memory_report, stand_in, stand_in_for_layers, token_batch,
)

BUILT, BATCH, SEQ = 18, 1, 1024
path = checkpoint("14b", layers=BUILT)

# accelerate places the weights within these budgets; training needs more than the weights.
device_map = "auto"
max_memory = {0: "10GB", 1: "15GB"}

model = AutoModelForCausalLM.from_pretrained(path, quantization_config=four_bit_config(), device_map=device_map, max_memory=max_memory)
memory_report("loaded")
last = model.model.layers[-1]
layer_device = last.input_layernorm.weight.device
missing_layers = stand_in_for_layers(last, FULL_LAYERS - BUILT, layer_device)
memory_report("with stand-in for the missing layers")
print(f"max_memory={max_memory} placed the weights on {sorted({str(p.device) for p in model.parameters()})}")
# from_pretrained rewrites max_memory in place ("10GB" -> 10000000000); both forms convert
budget_gib = {d: convert_file_size_to_int(v) / GIB for d, v in max_memory.items()}
weights_gib = {d: torch.cuda.memory_allocated(d) / GIB for d in budget_gib}
fullest = max(weights_gib, key=weights_gib.get)
print(f"kb-measure weights_within_budget={int(all(weights_gib[d] <= budget_gib[d] for d in budget_gib))}")
print(f"kb-measure weights_fullest_gpu_gib={weights_gib[fullest]:.2f}")
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
print(f"kb-measure peak_fullest_gpu_gib={torch.cuda.max_memory_allocated(fullest) / GIB:.2f}")

"""bf16 LoRA on a Qwen2.5-1.5B-shaped model, one 15 GB T4 (emulated): the same 8 x 2048 tokens per step.

The fix keeps the effective batch and changes how it is computed: micro-batches of 1 sequence with
gradient accumulation over 8, and gradient checkpointing (activations recomputed in backward instead
of kept). It measures what each change saves: the peak of one micro-batch without and with
checkpointing, then trains 2 optimizer steps of 8 accumulated micro-batches.
"""

import torch
from peft import LoraConfig, get_peft_model
from transformers import Qwen2Config, Qwen2ForCausalLM

MICRO_BATCH, SEQ, ACCUMULATE, STEPS = 1, 2048, 8, 2
config = Qwen2Config(
    vocab_size=151936, hidden_size=1536, intermediate_size=8960, num_hidden_layers=28,
    num_attention_heads=12, num_key_value_heads=2, max_position_embeddings=32768, tie_word_embeddings=True,
)
torch.manual_seed(0)
torch.set_default_dtype(torch.bfloat16)
with torch.device("cuda"):
    model = Qwen2ForCausalLM(config)
torch.set_default_dtype(torch.float32)
model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules="all-linear", task_type="CAUSAL_LM"))
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
print(f"kb-measure weights_gib={torch.cuda.memory_allocated() / 2**30:.2f}")


def micro_step() -> float:
    ids = torch.randint(0, config.vocab_size, (MICRO_BATCH, SEQ), device="cuda")
    loss = model(input_ids=ids, labels=ids).loss / ACCUMULATE
    loss.backward()
    return loss.item()


# 1. Micro-batch of 1, no checkpointing: what the smaller batch alone saves.
torch.cuda.reset_peak_memory_stats()
micro_step()
model.zero_grad(set_to_none=True)
print(f"kb-measure peak_gib_micro_batch={torch.cuda.max_memory_allocated() / 2**30:.2f}")

# 2. Plus gradient checkpointing (non-reentrant): what recomputing activations saves.
model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
model.enable_input_require_grads()
torch.cuda.reset_peak_memory_stats()
for step in range(STEPS):
    for _ in range(ACCUMULATE):
        micro_step()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
print(f"kb-measure peak_gib_micro_batch_checkpointed={torch.cuda.max_memory_allocated() / 2**30:.2f}")
print(f"kb-measure steps={STEPS}")
print(f"kb-measure effective_batch={MICRO_BATCH * ACCUMULATE}")

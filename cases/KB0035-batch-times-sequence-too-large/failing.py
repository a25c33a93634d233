"""bf16 LoRA on a Qwen2.5-1.5B-shaped model, one 15 GB T4 (emulated): 8 sequences of 2048 tokens per step.

The model is built from its real config with random weights on the GPU (nothing downloaded): 1.54B
parameters in bf16 (3.1 GB), LoRA on every linear layer. The batch the recipe asks for does not fit:
the activations of 8 x 2048 tokens through 28 layers, and the logits over a 151,936-token vocabulary,
are many times the weights.
"""

import torch
from peft import LoraConfig, get_peft_model
from transformers import Qwen2Config, Qwen2ForCausalLM

BATCH, SEQ = 8, 2048
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

ids = torch.randint(0, config.vocab_size, (BATCH, SEQ), device="cuda")
loss = model(input_ids=ids, labels=ids).loss
loss.backward()
optimizer.step()
print(f"kb-measure peak_gib={torch.cuda.max_memory_allocated() / 2**30:.2f}")

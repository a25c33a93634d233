"""Fine-tuning started with torchrun on a machine (or container) whose RAM is smaller than the model in fp32.

Each rank builds the model on the CPU before moving it anywhere, and transformers creates the
weights in the default dtype, float32: 4 bytes per parameter. Run it under the cpu-ram1g profile:
the runner puts the launch in a 1 GiB memory cgroup, the scaled-down stand-in for a 12-30 GB notebook
VM loading a 7B model.
"""

import os

from transformers import AutoModelForCausalLM

from kb.fixtures import tiny

rank = int(os.environ.get("LOCAL_RANK", "0"))
tok = tiny.tokenizer()
# A Llama-shaped model of ~200M parameters: ~770 MiB in float32, on top of torch and transformers.
config = tiny.config(tok, hidden_size=1024, intermediate_size=4096, num_hidden_layers=12,
                     num_attention_heads=16, num_key_value_heads=16)
print(f"rank {rank}: building the model in float32", flush=True)
model = AutoModelForCausalLM.from_config(config)  # weights allocated and initialised on the CPU in fp32
weights_mib = sum(p.numel() * p.element_size() for p in model.parameters()) / 2**20
print(f"rank {rank}: model ready, {weights_mib:.0f} MiB of weights")
print(f"kb-measure weights_mib={weights_mib:.1f}")

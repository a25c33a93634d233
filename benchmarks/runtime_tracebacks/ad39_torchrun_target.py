# family: adapter-config
# case: KB0029-lora-target-modules-from-other-architecture
# set: runtime-39
# wave: 1
# mode: torchrun
# expect: not found in the base model
# note: torchrun, 2 ranks; GPT-2's c_attn targeted on a Llama inside a DDP script
import torch.distributed as dist
import _tiny
from peft import LoraConfig, get_peft_model

dist.init_process_group("gloo")
model = get_peft_model(_tiny.llama(), LoraConfig(r=8, target_modules=["c_attn", "c_proj"], task_type="CAUSAL_LM"))

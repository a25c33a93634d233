# family: sharding-config
# set: runtime-43
# mode: torchrun
# expect: requires_grad|uniform|dtype|flat
# note: torchrun, 2 gloo ranks: FSDP (use_orig_params=False) over a LoRA-wrapped Llama, frozen base and trainable adapters in one unit
import torch
import torch.distributed as dist
import _tiny
from peft import LoraConfig, get_peft_model
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

dist.init_process_group("gloo")
model = get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
model = FSDP(model, device_id=torch.device("cpu"), use_orig_params=False)

# family: sharding-config
# set: runtime-43
# mode: torchrun
# expect: uniform|dtype|flatten|Must
# note: torchrun, 2 gloo ranks: FSDP (use_orig_params=True) over a 4-bit bitsandbytes model whose quant storage is uint8 beside float32 LoRA weights
import torch
import torch.distributed as dist
import _tiny
from peft import LoraConfig, get_peft_model
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from transformers import AutoModelForCausalLM, BitsAndBytesConfig

bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.float32)
folder = "/tmp/runtime43/llama-rank" + __import__("os").environ["RANK"]
_tiny.llama().save_pretrained(folder)
model = AutoModelForCausalLM.from_pretrained(folder, quantization_config=bnb)
model = get_peft_model(model, LoraConfig(r=4, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
dist.init_process_group("gloo")
model = FSDP(model, device_id=torch.device("cpu"), use_orig_params=True)

# family: sharding-config
# set: runtime-44
# mode: torchrun
# expect: uniform|dtype|flatten
# note: torchrun, 2 gloo ranks: FSDP (FSDP1, transformer auto-wrap of the decoder layers) over a bfloat16 Llama whose LoRA adapters peft keeps in float32
import functools
import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
from transformers.models.llama.modeling_llama import LlamaDecoderLayer
import _tiny
from peft import LoraConfig, get_peft_model

dist.init_process_group("gloo")
model = get_peft_model(_tiny.llama().to(torch.bfloat16), LoraConfig(r=4, target_modules=["q_proj", "v_proj"]))
policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={LlamaDecoderLayer})
model = FSDP(model, auto_wrap_policy=policy, use_orig_params=False, device_id=torch.device("cpu"))

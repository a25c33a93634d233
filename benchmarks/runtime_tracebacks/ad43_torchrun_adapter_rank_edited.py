# family: adapter-config
# set: runtime-43
# mode: torchrun
# expect: size mismatch|rank|shape
# note: torchrun, 2 gloo ranks: each rank loads an adapter whose adapter_config.json r was edited from 8 to 16 after training
import json
import os
import tempfile
import torch.distributed as dist
import _tiny
from peft import LoraConfig, PeftModel, get_peft_model

dist.init_process_group("gloo")
folder = f"/tmp/runtime43/adapter-{os.environ['RANK']}"
get_peft_model(_tiny.llama(), LoraConfig(r=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")).save_pretrained(folder)
cfg_path = os.path.join(folder, "adapter_config.json")
cfg = json.load(open(cfg_path))
cfg["r"] = 16
json.dump(cfg, open(cfg_path, "w"))
model = PeftModel.from_pretrained(_tiny.llama(), folder)

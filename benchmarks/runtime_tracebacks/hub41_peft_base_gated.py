# family: hub-access
# case: 
# set: runtime-41
# expect: gated|restricted|couldn.t connect|outgoing traffic
# note: AutoPeftModelForCausalLM on a local adapter folder whose base_model_name_or_path names a Hub repo, in a session where huggingface_hub was imported with HF_HUB_OFFLINE=1 (relabelled before scoring: meant as a gated refusal, it failed on offline mode; no case)
import json
import os
import tempfile
import _tiny
from peft import LoraConfig, get_peft_model

folder = tempfile.mkdtemp(prefix="adapter-")
get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj"])).save_pretrained(folder)
cfg_path = os.path.join(folder, "adapter_config.json")
cfg = json.load(open(cfg_path))
cfg["base_model_name_or_path"] = "meta-llama/Llama-2-7b-hf"
json.dump(cfg, open(cfg_path, "w"))
import _hub
_hub.serve("gated")
from peft import AutoPeftModelForCausalLM

model = AutoPeftModelForCausalLM.from_pretrained(folder)

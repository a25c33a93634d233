# family: package-install
# set: runtime-39
# wave: 2
# mode: logprefix
# expect: requires optimum|gptqmodel
# note: a containerised job's log (timestamp and stream before every line); a GPTQ checkpoint loaded without optimum
import json
import os
import _tiny
from transformers import AutoModelForCausalLM

folder = _tiny.saved_llama()
cfg_path = os.path.join(folder, "config.json")
cfg = json.load(open(cfg_path))
cfg["quantization_config"] = {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False}
json.dump(cfg, open(cfg_path, "w"))
model = AutoModelForCausalLM.from_pretrained(folder)

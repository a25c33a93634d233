# family: package-install
# set: runtime-39
# wave: 1
# expect: awq|AWQ|autoawq|gptqmodel
# note: loading a checkpoint whose config carries an AWQ quantization_config, autoawq not installed
import json
import os
import _tiny
from transformers import AutoModelForCausalLM

folder = _tiny.saved_llama()
cfg_path = os.path.join(folder, "config.json")
cfg = json.load(open(cfg_path))
cfg["quantization_config"] = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"}
json.dump(cfg, open(cfg_path, "w"))
model = AutoModelForCausalLM.from_pretrained(folder)

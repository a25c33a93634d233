# family: model-unsupported
# set: runtime-41
# mode: nbclient
# expect: trust_remote_code|custom code
# note: a notebook: AutoModelForCausalLM.from_pretrained on a folder whose config maps to custom modelling code, without trust_remote_code
import json
import os
import _tiny
folder = _tiny.saved_llama()
cfg = json.load(open(os.path.join(folder, "config.json")))
cfg["auto_map"] = {"AutoConfig": "configuration_phi3.Phi3Config", "AutoModelForCausalLM": "modeling_phi3.Phi3ForCausalLM"}
cfg["model_type"] = "phi3_custom"
json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
open(os.path.join(folder, "configuration_phi3.py"), "w").write("from transformers import LlamaConfig as Phi3Config\n")
# %%
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained(folder)

# family: model-unsupported
# set: runtime-41
# wave: 2
# mode: torchrun-tee
# expect: does not recognize this architecture|model type
# note: torchrun --tee 3, 2 ranks: AutoModelForCausalLM.from_pretrained on a folder of an architecture newer than this transformers
import json
import os
import _tiny
from transformers import AutoModelForCausalLM

folder = _tiny.saved_llama()
cfg = json.load(open(os.path.join(folder, "config.json")))
cfg["model_type"] = "gemma5"
json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
model = AutoModelForCausalLM.from_pretrained(folder)

# family: model-unsupported
# set: runtime-43
# mode: pyc
# expect: trust_remote_code|custom code
# note: python -c: AutoModelForCausalLM.from_pretrained of a folder whose config.json maps to custom modeling code (auto_map), without trust_remote_code
import json, os, tempfile, _tiny
folder = _tiny.saved_llama()
cfg = json.load(open(os.path.join(folder, "config.json")))
cfg.update(model_type="mybaichuan", architectures=["BaichuanForCausalLM"],
           auto_map={"AutoConfig": "configuration_baichuan.BaichuanConfig", "AutoModelForCausalLM": "modeling_baichuan.BaichuanForCausalLM"})
json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
open(os.path.join(folder, "configuration_baichuan.py"), "w").write("from transformers import LlamaConfig\nclass BaichuanConfig(LlamaConfig):\n    model_type = 'mybaichuan'\n")
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained(folder)

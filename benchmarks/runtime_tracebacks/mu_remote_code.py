# family: model-unsupported
# expect: trust_remote_code
# note: a checkpoint with custom modelling code (auto_map) loaded without trust_remote_code
import json
import os
import tempfile
from transformers import AutoConfig

folder = tempfile.mkdtemp()
with open(os.path.join(folder, "config.json"), "w") as f:
    json.dump({"model_type": "phi3v", "auto_map": {"AutoConfig": "configuration_phi3_v.Phi3VConfig",
               "AutoModelForCausalLM": "modeling_phi3_v.Phi3VForCausalLM"}}, f)
with open(os.path.join(folder, "configuration_phi3_v.py"), "w") as f:
    f.write("from transformers import PretrainedConfig\nclass Phi3VConfig(PretrainedConfig):\n    model_type = 'phi3v'\n")
config = AutoConfig.from_pretrained(folder)

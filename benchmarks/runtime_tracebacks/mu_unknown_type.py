# family: model-unsupported
# case: KB0050-transformers-too-old-for-architecture
# expect: does not recognize this architecture|model type
# note: a checkpoint whose config names a model_type this transformers does not have
import json
import os
import tempfile
from transformers import AutoModelForCausalLM

folder = tempfile.mkdtemp()
with open(os.path.join(folder, "config.json"), "w") as f:
    json.dump({"model_type": "qwen9_moe", "architectures": ["Qwen9MoeForCausalLM"], "hidden_size": 16}, f)
model = AutoModelForCausalLM.from_pretrained(folder)

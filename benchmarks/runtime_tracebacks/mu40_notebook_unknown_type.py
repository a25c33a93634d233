# family: model-unsupported
# set: runtime-40
# mode: ipython
# expect: model_type|does not recognize|Unrecognized
# note: notebook; AutoConfig on a checkpoint folder whose config names a model_type this transformers does not have (qwen9_moe)
import json, os, tempfile  # noqa: E401 (one line: the kept output's line numbers)
folder = tempfile.mkdtemp(prefix="ckpt40-")
json.dump({"model_type": "qwen9_moe", "architectures": ["Qwen9MoeForCausalLM"], "hidden_size": 16}, open(os.path.join(folder, "config.json"), "w"))
# %%
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained(folder)

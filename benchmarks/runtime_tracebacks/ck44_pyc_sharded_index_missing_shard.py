# family: checkpoint-io
# set: runtime-44
# mode: pyc
# expect: No such file|not found|shard|OSError|safetensors
# note: python -c: a model folder copied without its second shard (model.safetensors.index.json names two files)
import os, tempfile, _tiny
from transformers import AutoModelForCausalLM
path = tempfile.mkdtemp()
_tiny.llama().save_pretrained(path, max_shard_size="20KB")
shards = sorted(f for f in os.listdir(path) if f.startswith("model-0"))
os.remove(os.path.join(path, shards[-1]))
model = AutoModelForCausalLM.from_pretrained(path)

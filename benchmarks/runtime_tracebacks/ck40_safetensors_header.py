# family: checkpoint-io
# set: runtime-40
# expect: header|HeaderTooLarge|deserializ
# note: from_pretrained of a folder whose model.safetensors is a git-lfs pointer (cloned without git lfs)
import os
import _tiny
from transformers import AutoModelForCausalLM

folder = _tiny.saved_llama()
with open(os.path.join(folder, "model.safetensors"), "w") as f:
    f.write("version https://git-lfs.github.com/spec/v1\noid sha256:4e1f0a3c\nsize 1073741824\n")
AutoModelForCausalLM.from_pretrained(folder)

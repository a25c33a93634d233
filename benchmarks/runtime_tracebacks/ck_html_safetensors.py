# family: checkpoint-io
# wave: 3
# expect: HeaderTooLarge|header
# note: a model.safetensors that is an HTML error page (downloaded with wget from a blob URL), read by from_pretrained
import os
import _tiny
from transformers import AutoModelForCausalLM

folder = _tiny.saved_llama()
with open(os.path.join(folder, "model.safetensors"), "w") as f:
    f.write("<!DOCTYPE html><html><head><title>Hugging Face</title></head><body>" + "x" * 2000 + "</body></html>")
model = AutoModelForCausalLM.from_pretrained(folder)

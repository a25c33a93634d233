# family: checkpoint-io
# set: runtime-41
# expect: header|HeaderTooLarge|deserializ|Error
# note: rich traceback; from_pretrained on a folder whose model.safetensors is a saved HTML page (downloaded with wget from the blob URL)
import os
from rich.traceback import install

install(width=110)
import _tiny
from transformers import AutoModelForCausalLM

folder = _tiny.saved_llama()
with open(os.path.join(folder, "model.safetensors"), "w") as f:
    f.write("<!DOCTYPE html>\n<html><head><title>model.safetensors</title></head><body>" + "x" * 4000 + "</body></html>\n")
AutoModelForCausalLM.from_pretrained(folder)

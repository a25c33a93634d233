# family: checkpoint-io
# set: runtime-39
# wave: 2
# expect: HeaderTooLarge|deserializing header|SafetensorError
# note: safetensors load_file of a pytorch_model.bin renamed to .safetensors by a conversion script
import torch
import _tiny
from safetensors.torch import load_file

torch.save(_tiny.llama().state_dict(), "/tmp/runtime39-model.safetensors")
state = load_file("/tmp/runtime39-model.safetensors")

# family: device-mismatch
# set: runtime-43
# expect: meta|device|no data
# note: a model loaded with device_map='auto' and a small max_memory (layers offloaded to disk, weights on meta) then moved with model.to('cpu')
import tempfile
import _tiny
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained(_tiny.saved_llama(), device_map="auto", max_memory={"cpu": "20KB"},
                                             offload_folder=tempfile.mkdtemp())
model = model.to("cpu")

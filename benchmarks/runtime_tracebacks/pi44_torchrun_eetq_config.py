# family: package-install
# set: runtime-44
# mode: torchrun
# expect: eetq|install|ImportError
# note: torchrun, 2 gloo ranks: from_pretrained with EetqConfig('int8'), the eetq kernels package not installed
import _tiny
from transformers import AutoModelForCausalLM, EetqConfig

path = _tiny.saved_llama()
model = AutoModelForCausalLM.from_pretrained(path, quantization_config=EetqConfig("int8"))

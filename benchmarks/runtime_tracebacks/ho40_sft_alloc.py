# family: host-oom
# set: runtime-40
# expect: can't allocate memory|Cannot allocate memory|DefaultCPUAllocator
# note: SFT script on a small host (address space limited to 3 GiB): the model built from a config with a full-size vocabulary
import resource
import _tiny

model_cfg = _tiny.llama_config(vocab_size=262144, hidden_size=2048, num_hidden_layers=1, intermediate_size=64)
resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))
from transformers import LlamaForCausalLM
model = LlamaForCausalLM(model_cfg)

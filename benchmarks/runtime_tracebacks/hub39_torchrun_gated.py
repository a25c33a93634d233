# family: hub-access
# case: KB0018-gated-model-access-denied
# set: runtime-39
# wave: 1
# mode: torchrun
# expect: gated|restricted
# note: torchrun, 2 ranks, each loading a gated model by id (stand-in Hub answers 403 GatedRepo)
import _hub
_hub.serve("gated")
import torch.distributed as dist
from transformers import AutoModelForCausalLM

dist.init_process_group("gloo")
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B")

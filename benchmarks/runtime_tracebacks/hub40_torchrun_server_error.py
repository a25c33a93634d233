# family: hub-access
# set: runtime-40
# mode: torchrun
# expect: 503|Service Unavailable|couldn't connect|Server
# note: torchrun, 2 ranks, each fetching the config by id while the Hub answers 503
import _hub
_hub.serve("server")
import torch.distributed as dist
from transformers import AutoConfig

dist.init_process_group("gloo")
cfg = AutoConfig.from_pretrained("mistralai/Mistral-7B-v0.3")

# family: shape-mismatch
# set: runtime-41
# mode: torchrun
# expect: cannot be multiplied
# note: torchrun, 2 ranks under DDP: a projection head built for hidden 768 on a backbone of hidden 16
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import _tiny

dist.init_process_group("gloo")
backbone = _tiny.llama().model
head = DDP(torch.nn.Linear(768, 2))
h = backbone(torch.tensor([[1, 5, 6]])).last_hidden_state[:, -1]
logits = head(h)

# family: dtype-mismatch
# set: runtime-40
# mode: torchrun
# expect: dtype|Half|BFloat16|float
# note: torchrun, 2 gloo ranks; a bfloat16 model with a float32 adapter projector bolted on (no autocast)
import torch
import torch.distributed as dist
import _tiny

dist.init_process_group("gloo")
model = _tiny.llama().to(torch.bfloat16)
proj = torch.nn.Linear(16, 16)
hidden = model.model(input_ids=torch.tensor([[5, 6, 7]])).last_hidden_state
out = proj(hidden)

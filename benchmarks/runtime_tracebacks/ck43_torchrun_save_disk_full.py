# family: checkpoint-io
# set: runtime-43
# mode: torchrun
# expect: No space|space left|write|failed
# note: torchrun, 2 gloo ranks: rank 0 torch.saves the training state onto a full disk (/dev/full stands for the full volume)
import torch
import torch.distributed as dist
import _tiny

dist.init_process_group("gloo")
model = _tiny.llama()
dist.barrier()
if dist.get_rank() == 0:
    torch.save({"model": model.state_dict(), "step": 500}, "/dev/full")
dist.barrier()

# family: no-grad-fn
# set: runtime-41
# mode: torchrun
# expect: does not require grad|grad_fn
# note: torchrun, 2 ranks: the loss is averaged across ranks with all_reduce on a detached copy, then backward on it
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
model = torch.nn.Linear(8, 1)
loss = model(torch.randn(4, 8)).pow(2).mean()
avg = loss.detach().clone()
dist.all_reduce(avg)
(avg / dist.get_world_size()).backward()

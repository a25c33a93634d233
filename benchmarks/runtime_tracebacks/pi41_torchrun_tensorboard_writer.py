# family: package-install
# set: runtime-41
# mode: torchrun
# expect: TensorBoard|tensorboard
# note: torchrun, 2 ranks: rank 0 opens torch.utils.tensorboard's SummaryWriter, tensorboard not installed
import torch.distributed as dist

dist.init_process_group("gloo")
if dist.get_rank() == 0:
    from torch.utils.tensorboard import SummaryWriter
    writer = SummaryWriter("runs/exp1")
dist.barrier()

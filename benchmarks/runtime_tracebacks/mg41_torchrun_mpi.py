# family: multi-gpu-launch
# set: runtime-41
# mode: torchrun
# expect: MPI|mpi
# note: torchrun, 2 ranks: init_process_group("mpi") on a torch built without MPI
import torch.distributed as dist

dist.init_process_group("mpi")

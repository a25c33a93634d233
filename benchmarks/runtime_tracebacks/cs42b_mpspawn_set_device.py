# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# set: runtime-42
# wave: 2
# expect: not compiled with CUDA|CUDA|_cuda_
# note: torch.multiprocessing.spawn, 2 processes: each calls torch.cuda.set_device(rank) on a CPU-only torch build
import torch
import torch.multiprocessing as mp


def worker(rank):
    torch.cuda.set_device(rank)


if __name__ == "__main__":
    mp.spawn(worker, nprocs=2)

# family: multi-gpu-launch
# set: runtime-42
# expect: MASTER_ADDR|env://
# note: torch.multiprocessing.spawn: each rank calls init_process_group('gloo') with rank and world size but no MASTER_ADDR/PORT
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world):
    dist.init_process_group("gloo", rank=rank, world_size=world)
    dist.barrier()


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)

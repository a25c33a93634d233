# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# set: runtime-42
# expect: not compiled with CUDA|CUDA
# note: a prefetch thread moves a batch to 'cuda' on a CPU-only torch build (Exception in thread)
import threading
import torch


def prefetch():
    batch = {"input_ids": torch.ones(2, 8, dtype=torch.long)}
    return {k: v.to("cuda", non_blocking=True) for k, v in batch.items()}


t = threading.Thread(target=prefetch)
t.start()
t.join()

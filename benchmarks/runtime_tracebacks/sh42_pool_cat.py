# family: shape-mismatch
# set: runtime-42
# expect: Sizes of tensors must match|RemoteTraceback
# note: multiprocessing.Pool workers stack feature shards whose widths differ (the worker's error chained)
import multiprocessing as mp
import torch


def merge(shapes):
    return torch.cat([torch.zeros(s) for s in shapes], dim=0)


if __name__ == "__main__":
    with mp.Pool(2) as pool:
        merged = pool.map(merge, [[(2, 16), (3, 16)], [(2, 16), (3, 32)]])

# family: checkpoint-io
# case: KB0047-safetensors-file-cut-off
# set: runtime-42
# expect: SafetensorError|MetadataIncompleteBuffer|RemoteTraceback|incomplete
# note: multiprocessing.Pool workers each open a shard; one shard was cut off (the worker's traceback comes back chained)
import multiprocessing as mp
import os
import tempfile
import torch
from safetensors.torch import load_file, save_file

folder = tempfile.mkdtemp()
for i in range(2):
    save_file({f"layer{i}.weight": torch.randn(64, 64)}, os.path.join(folder, f"model-0000{i + 1}-of-00002.safetensors"))
path = os.path.join(folder, "model-00002-of-00002.safetensors")
with open(path, "r+b") as f:
    f.truncate(os.path.getsize(path) // 2)

if __name__ == "__main__":
    with mp.Pool(2) as pool:
        shards = pool.map(load_file, sorted(os.path.join(folder, p) for p in os.listdir(folder)))

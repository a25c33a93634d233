# family: host-oom
# set: runtime-40
# mode: ipython
# expect: can't allocate memory|Cannot allocate memory|DefaultCPUAllocator
# note: notebook under a 2 GiB memory limit (ulimit -v of a small VM); a cell materialises a 4 GiB embedding table
import resource
resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))
import torch
# %%
table = torch.nn.Embedding(256000, 4096)

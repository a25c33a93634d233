# family: multi-gpu-launch
# set: runtime-42
# wave: 2
# mode: pytest
# expect: process group|not been initialized|init_process_group
# note: pytest: a test of the data sharding asks torch.distributed for the world size without initialising a process group
import torch.distributed as dist
from torch.utils.data import DistributedSampler


def test_shards():
    sampler = DistributedSampler(list(range(10)))
    assert len(sampler) == 5 * dist.get_world_size()

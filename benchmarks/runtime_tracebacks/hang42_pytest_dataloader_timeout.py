# family: hang
# set: runtime-42
# mode: pytest
# expect: timed out|DataLoader
# note: pytest: a DataLoader worker (timeout=2) stuck reading one sample
import time
import torch
from torch.utils.data import DataLoader, Dataset


class Slow(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(20)
        return torch.zeros(2)


def test_iterate():
    for batch in DataLoader(Slow(), batch_size=2, num_workers=1, timeout=2):
        assert batch.shape == (2, 2)

# family: hang
# set: runtime-41
# expect: timed out|timeout
# note: a tqdm loop over a DataLoader with two workers and timeout=3 whose dataset blocks on a slow read
import time
import torch
from torch.utils.data import DataLoader, Dataset
from tqdm import tqdm


class Slow(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        if i >= 8:
            time.sleep(30)
        return torch.zeros(4)


for batch in tqdm(DataLoader(Slow(), batch_size=4, num_workers=2, timeout=3), desc="epoch 0"):
    pass

# family: hang
# expect: timed out
# note: DataLoader(timeout=3) whose worker stalls on a slow read
import time
import torch


class Slow(torch.utils.data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        time.sleep(30)
        return i


for batch in torch.utils.data.DataLoader(Slow(), batch_size=2, num_workers=1, timeout=3):
    print(batch)

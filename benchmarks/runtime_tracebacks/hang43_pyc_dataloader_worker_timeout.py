# family: hang
# set: runtime-43
# mode: pyc
# expect: timed out|timeout
# note: python -c: a DataLoader(num_workers=1, timeout=3) whose dataset reads a slow network file (each item takes 10 s)
import time, torch
class Slow(torch.utils.data.Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        time.sleep(10)
        return torch.zeros(2)
for batch in torch.utils.data.DataLoader(Slow(), num_workers=1, timeout=3):
    print(batch)

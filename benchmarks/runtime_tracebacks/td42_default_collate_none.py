# family: training-data
# set: runtime-42
# expect: default_collate|NoneType
# note: a plain DataLoader over rows where some 'labels' are None (default_collate)
import torch
from torch.utils.data import DataLoader

rows = [{"input_ids": torch.ones(4, dtype=torch.long), "labels": 1 if i % 2 else None} for i in range(4)]
for batch in DataLoader(rows, batch_size=2):
    print(batch)

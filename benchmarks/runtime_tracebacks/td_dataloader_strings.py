# family: training-data
# expect: default_collate
# note: plain loop; a torch DataLoader over rows that still hold strings and lists of unequal length
import torch
from datasets import Dataset

ds = Dataset.from_dict({"text": ["the cat sat", "hello world again"], "input_ids": [[1, 2, 3], [4, 5]]})
for batch in torch.utils.data.DataLoader(ds.with_format("torch"), batch_size=2):
    print(batch)

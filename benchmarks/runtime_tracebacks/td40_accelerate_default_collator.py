# family: training-data
# set: runtime-40
# mode: accelerate
# expect: [Ss]tack|size|tensor
# note: accelerate launch, 2 processes; a DataLoader with default_data_collator over tokenized rows of unequal length
import torch
import _tiny
from accelerate import Accelerator
from transformers import default_data_collator

acc = Accelerator(cpu=True)
loader = acc.prepare(torch.utils.data.DataLoader(_tiny.tokenized(), batch_size=2, collate_fn=default_data_collator))
for batch in loader:
    pass

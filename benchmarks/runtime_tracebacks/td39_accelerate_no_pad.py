# family: training-data
# case: KB0022-tokenizer-without-pad-token
# set: runtime-39
# wave: 1
# mode: accelerate
# expect: padding token
# note: accelerate launch, 2 CPU processes; DataCollatorWithPadding over a tokenizer without a pad token
import torch
import _tiny
from accelerate import Accelerator
from transformers import DataCollatorWithPadding

acc = Accelerator(cpu=True)
tok = _tiny.tokenizer(pad=False)
loader = torch.utils.data.DataLoader(_tiny.tokenized(tok), batch_size=4, collate_fn=DataCollatorWithPadding(tok))
loader = acc.prepare(loader)
for batch in loader:
    print(batch["input_ids"].shape)

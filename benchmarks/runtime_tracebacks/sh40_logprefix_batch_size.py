# family: shape-mismatch
# set: runtime-40
# mode: logprefix
# expect: batch_size|match
# note: a containerised job's log; token logits flattened per token against per-sequence labels
import torch
import _tiny

model = _tiny.llama()
ids = torch.tensor([[5, 6, 7, 8], [9, 10, 11, 12]])
logits = model(input_ids=ids).logits
loss = torch.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), torch.tensor([1, 0]))

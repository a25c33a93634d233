# family: shape-mismatch
# set: runtime-43
# mode: pyc
# expect: batch_size|match
# note: python -c: logits flattened over (batch, seq) against labels flattened from a batch padded to another length
import torch, torch.nn.functional as F, _tiny
model = _tiny.llama()
input_ids = torch.randint(4, 20, (2, 6))
labels = torch.randint(4, 20, (2, 5))
logits = model(input_ids=input_ids).logits
loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))

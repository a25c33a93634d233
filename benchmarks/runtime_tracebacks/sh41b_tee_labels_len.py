# family: shape-mismatch
# set: runtime-41
# wave: 2
# mode: torchrun-tee
# expect: batch_size|size|shape
# note: torchrun --tee 3, 2 ranks: a causal LM given labels padded to 12 while input_ids are 6 long
import torch
import torch.distributed as dist
import _tiny

dist.init_process_group("gloo")
model = _tiny.llama()
ids = torch.tensor([[1, 5, 6, 7, 8, 2]] * 2)
labels = torch.full((2, 12), -100)
labels[:, :6] = ids
loss = model(input_ids=ids, labels=labels).loss

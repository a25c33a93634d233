# family: shape-mismatch
# set: runtime-43
# mode: accelerate
# expect: size of tensor|must match|shape
# note: accelerate launch, 2 processes: a 1-output regression head trained with a (batch, 2) target tensor in a hand-written loss
import torch
import _tiny
from accelerate import Accelerator
from transformers import LlamaForSequenceClassification

accelerator = Accelerator(cpu=True)
model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=1))
model = accelerator.prepare(model)
ids = torch.randint(4, 20, (4, 6))
target = torch.rand(4, 2)
pred = model(input_ids=ids).logits
loss = ((pred - target.T) ** 2).mean()

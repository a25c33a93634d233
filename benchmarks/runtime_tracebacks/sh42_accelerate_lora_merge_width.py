# family: shape-mismatch
# set: runtime-42
# mode: accelerate
# expect: size of tensor|shape|mat1 and mat2
# note: accelerate launch, 2 processes: a regression head of the wrong width bolted on a Llama's hidden states
import torch
import _tiny
from accelerate import Accelerator

acc = Accelerator(cpu=True)
model = _tiny.llama()
head = torch.nn.Linear(32, 1)
model, head = acc.prepare(model, head)
hidden = model(input_ids=torch.randint(4, 20, (2, 6)), output_hidden_states=True).hidden_states[-1]
score = head(hidden[:, -1])

# family: shape-mismatch
# set: runtime-40
# mode: accelerate
# expect: cannot be multiplied
# note: accelerate launch, 2 processes; a value head sized for a 4096-wide model on a 16-wide Llama
import torch
import _tiny
from accelerate import Accelerator

acc = Accelerator(cpu=True)
model, head = acc.prepare(_tiny.llama(), torch.nn.Linear(4096, 1))
hidden = model(input_ids=torch.tensor([[5, 6, 7]]), output_hidden_states=True).hidden_states[-1]
value = head(hidden)

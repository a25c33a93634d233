# family: shape-mismatch
# set: runtime-44
# mode: accelerate
# expect: shapes cannot be multiplied|mat1 and mat2
# note: accelerate launch, 2 processes: a vision-to-text projector built for a 768-wide encoder fed the 16-wide hidden states of the language model it was meant to pair with
import torch
import _tiny
from accelerate import Accelerator

accelerator = Accelerator(cpu=True)
model = _tiny.llama()
projector = torch.nn.Sequential(torch.nn.Linear(768, 16), torch.nn.GELU(), torch.nn.Linear(16, 16))
model, projector = accelerator.prepare(model, projector)
hidden = model(input_ids=torch.tensor([[1, 5, 6, 2]]), output_hidden_states=True).hidden_states[-1]
prefix = projector(hidden)

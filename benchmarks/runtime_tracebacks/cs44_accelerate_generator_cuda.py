# family: cuda-setup
# set: runtime-44
# mode: accelerate
# expect: CUDA|cuda|compiled|device
# note: accelerate launch, 2 processes: a seeded DataLoader generator made on 'cuda' on a machine whose torch is the CPU build
import torch
from accelerate import Accelerator

accelerator = Accelerator(cpu=True)
g = torch.Generator(device="cuda")
g.manual_seed(0)
loader = torch.utils.data.DataLoader(list(range(16)), batch_size=4, shuffle=True, generator=g)
loader = accelerator.prepare(loader)
for batch in loader:
    print(batch)

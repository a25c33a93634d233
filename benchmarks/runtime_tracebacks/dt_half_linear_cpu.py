# family: dtype-mismatch
# case: KB0020-half-weights-fp32-inputs-no-autocast
# wave: 2
# expect: dtype|Half
# note: a float16 LoRA-merged head fed float32 hidden states on the CPU, no autocast
import torch

head = torch.nn.Linear(16, 32).to(torch.float16)
hidden = torch.randn(2, 16)
print(head(hidden))

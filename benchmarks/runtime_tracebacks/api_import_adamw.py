# family: api-drift
# expect: AdamW
# note: from transformers import AdamW (removed)
import torch
from transformers import AdamW, get_linear_schedule_with_warmup  # noqa: F401

model = torch.nn.Linear(2, 2)
opt = AdamW(model.parameters(), lr=1e-4)

"""The optimizer from torch itself."""
import torch
import transformers  # noqa: F401  (the pinned release is imported, as in the old program)
from torch.optim import AdamW

optimizer = AdamW(torch.nn.Linear(4, 4).parameters(), lr=1e-3)
print("kb-drift built", type(optimizer).__name__)

"""Accelerator(use_seedable_sampler=...), as accelerate <= 0.34 code writes it."""
from accelerate import Accelerator

accelerator = Accelerator(cpu=True, use_seedable_sampler=True)
print("kb-drift built", accelerator.device)

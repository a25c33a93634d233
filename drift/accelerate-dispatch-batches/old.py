"""Accelerator(dispatch_batches=...), as accelerate <= 0.34 code writes it."""
from accelerate import Accelerator

accelerator = Accelerator(cpu=True, dispatch_batches=False)
print("kb-drift built", accelerator.device)

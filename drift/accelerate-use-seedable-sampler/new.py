"""`use_seedable_sampler` given through DataLoaderConfiguration (accelerate >= 0.28)."""
from accelerate import Accelerator
from accelerate.utils import DataLoaderConfiguration

accelerator = Accelerator(cpu=True, dataloader_config=DataLoaderConfiguration(use_seedable_sampler=True))
print("kb-drift built", accelerator.device)

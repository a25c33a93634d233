"""`dispatch_batches` given through DataLoaderConfiguration (accelerate >= 0.28)."""
from accelerate import Accelerator
from accelerate.utils import DataLoaderConfiguration

accelerator = Accelerator(cpu=True, dataloader_config=DataLoaderConfiguration(dispatch_batches=False))
print("kb-drift built", accelerator.device)

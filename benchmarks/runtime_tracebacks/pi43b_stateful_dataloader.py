# family: package-install
# set: runtime-43
# wave: 2
# expect: torchdata|StatefulDataLoader|install
# note: Accelerator(dataloader_config=DataLoaderConfiguration(use_stateful_dataloader=True)) for mid-epoch resumption, torchdata not installed
import torch
from accelerate import Accelerator, DataLoaderConfiguration

accelerator = Accelerator(cpu=True, dataloader_config=DataLoaderConfiguration(use_stateful_dataloader=True))
loader = torch.utils.data.DataLoader(torch.arange(8), batch_size=2)
loader = accelerator.prepare(loader)

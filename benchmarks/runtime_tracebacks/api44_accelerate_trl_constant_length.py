# family: api-drift
# set: runtime-44
# mode: accelerate
# expect: cannot import name|ImportError|ConstantLengthDataset
# note: accelerate launch, 2 processes: a packing script from trl 0.x imports ConstantLengthDataset from trl.trainer.utils
import torch
from accelerate import Accelerator
from trl.trainer.utils import ConstantLengthDataset

accelerator = Accelerator(cpu=True)

# family: package-install
# set: runtime-43
# expect: fp8|FP8|precision
# note: Accelerator(mixed_precision='fp8') from an H100 recipe run on a machine without a GPU (relabelled before scoring: precision-unsupported meant; accelerate 1.15 refuses first because neither transformer_engine nor MS-AMP is installed: package-install)
import torch
from accelerate import Accelerator

accelerator = Accelerator(mixed_precision="fp8")
model = accelerator.prepare(torch.nn.Linear(16, 16))

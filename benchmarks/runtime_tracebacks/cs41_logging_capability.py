# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# set: runtime-41
# expect: not compiled with CUDA|CUDA
# note: a logging wrapper; picking bf16 from torch.cuda.get_device_capability() on a CPU-only torch
import logging
import sys
import torch

logging.basicConfig(format="[%(asctime)s] %(levelname)s %(message)s", level=logging.INFO)
logging.info("checking the GPU")
try:
    major, _ = torch.cuda.get_device_capability()
except Exception:
    logging.exception("GPU check failed")
    sys.exit(1)

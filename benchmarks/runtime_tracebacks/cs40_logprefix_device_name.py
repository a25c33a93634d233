# family: cuda-setup
# set: runtime-40
# mode: logprefix
# expect: Torch not compiled with CUDA enabled|CUDA
# note: a containerised job's log; the job logs the GPU's name first (torch.cuda.get_device_name) on an image with a CPU-only torch
import logging
import torch

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
logging.getLogger("train").info("starting job")
logging.getLogger("train").info("GPU: %s", torch.cuda.get_device_name(0))

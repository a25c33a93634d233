# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# set: runtime-43
# mode: logprefix
# expect: CUDA|cuda|compiled
# note: a containerised job's log: the job logs torch.cuda.current_device() and the device count before training, on a CPU-only torch
import logging
import torch

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("train")
log.info("torch %s, %d GPUs", torch.__version__, torch.cuda.device_count())
log.info("current device %d", torch.cuda.current_device())

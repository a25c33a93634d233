# family: api-drift
# expect: logging_dir
# note: Accelerator(logging_dir=...) from an older accelerate example
from accelerate import Accelerator

acc = Accelerator(log_with="tensorboard", logging_dir="runs")

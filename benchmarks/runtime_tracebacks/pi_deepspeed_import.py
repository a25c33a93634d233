# family: package-install
# wave: 2
# expect: deepspeed
# note: accelerate's DeepSpeed plugin asked for without deepspeed installed
from accelerate import Accelerator
from accelerate.utils import DeepSpeedPlugin

acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(zero_stage=2))

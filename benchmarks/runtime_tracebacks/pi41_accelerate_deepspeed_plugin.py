# family: package-install
# set: runtime-41
# expect: DeepSpeed|deepspeed
# note: Accelerator with a DeepSpeedPlugin (ZeRO-2) in an environment without deepspeed
from accelerate import Accelerator
from accelerate.utils import DeepSpeedPlugin

acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(zero_stage=2))

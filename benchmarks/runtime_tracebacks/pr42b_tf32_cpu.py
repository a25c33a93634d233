# family: precision-unsupported
# case: KB0032-tf32-without-ampere-gpu
# set: runtime-42
# wave: 2
# mode: torchrun
# expect: tf32|TF32|Ampere
# note: TrainingArguments(tf32=True) on a machine without a GPU, under torchrun with 2 ranks
import _tiny

args = _tiny.args(tf32=True)

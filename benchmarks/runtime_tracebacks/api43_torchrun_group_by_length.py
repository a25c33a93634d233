# family: api-drift
# set: runtime-43
# mode: torchrun
# expect: group_by_length|unexpected keyword
# note: torchrun, 2 gloo ranks: TrainingArguments(group_by_length=True) from a 2024 SFT recipe on transformers 5.24
import _tiny
from transformers import TrainingArguments

args = TrainingArguments(output_dir="/tmp/out43", per_device_train_batch_size=2, group_by_length=True,
                         ddp_backend="gloo", use_cpu=True, report_to=[])

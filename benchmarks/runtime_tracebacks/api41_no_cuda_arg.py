# family: api-drift
# set: runtime-41
# expect: no_cuda|unexpected keyword
# note: TrainingArguments(no_cuda=True) from an old CPU recipe, after the argument was removed in favour of use_cpu
from transformers import TrainingArguments

args = TrainingArguments(output_dir="/tmp/api41-nocuda", no_cuda=True, per_device_train_batch_size=2, report_to=[])

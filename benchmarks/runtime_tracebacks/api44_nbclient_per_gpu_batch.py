# family: api-drift
# set: runtime-44
# mode: nbclient
# expect: unexpected keyword argument|per_gpu_train_batch_size
# note: jupyter execute: a notebook's TrainingArguments with per_gpu_train_batch_size (removed in favour of per_device_)
import _tiny
from transformers import TrainingArguments
# %%
args = TrainingArguments(output_dir="out", per_gpu_train_batch_size=4, num_train_epochs=1, report_to=[])

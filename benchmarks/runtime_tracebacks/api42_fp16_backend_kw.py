# family: api-drift
# set: runtime-42
# expect: unexpected keyword argument 'fp16_backend'
# note: TrainingArguments(fp16_backend='amp'): a keyword removed from transformers
from transformers import TrainingArguments

args = TrainingArguments(output_dir="/tmp/out42", fp16_backend="amp", per_device_train_batch_size=4)

# family: precision-unsupported
# case: KB0032-tf32-without-ampere-gpu
# expect: tf32
# note: TrainingArguments(tf32=True) with no Ampere GPU
from transformers import TrainingArguments

args = TrainingArguments(output_dir="/tmp/o-tf32", tf32=True, bf16=False, report_to=[])

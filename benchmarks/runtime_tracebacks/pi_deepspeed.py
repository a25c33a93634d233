# family: package-install
# expect: deepspeed|DeepSpeed
# note: TrainingArguments(deepspeed=...) with deepspeed not installed
import json
import tempfile
from transformers import TrainingArguments

cfg = tempfile.mktemp(suffix=".json")
json.dump({"zero_optimization": {"stage": 2}, "train_micro_batch_size_per_gpu": "auto"}, open(cfg, "w"))
args = TrainingArguments(output_dir="/tmp/o-ds", deepspeed=cfg, report_to=[])

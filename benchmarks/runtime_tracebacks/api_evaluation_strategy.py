# family: api-drift
# expect: evaluation_strategy
# note: TrainingArguments(evaluation_strategy=...) from a 2023 notebook
from transformers import TrainingArguments

args = TrainingArguments(output_dir="out", evaluation_strategy="steps", eval_steps=50, per_device_train_batch_size=4)

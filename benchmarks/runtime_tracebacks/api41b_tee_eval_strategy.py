# family: api-drift
# set: runtime-41
# wave: 2
# mode: torchrun-tee
# expect: evaluation_strategy|unexpected keyword
# note: torchrun --tee 3, 2 ranks: TrainingArguments(evaluation_strategy="steps") from an old recipe (renamed eval_strategy)
from transformers import TrainingArguments

args = TrainingArguments(output_dir="/tmp/api41b", evaluation_strategy="steps", eval_steps=10, report_to=[])

# family: training-data
# case: 
# set: runtime-42
# expect: expected sequence of length
# note: TrainingArguments(fp16=True, use_cpu=True): AMP half precision asked on the CPU (relabelled before scoring: transformers 5.24 accepts fp16 on the CPU; the run failed on the unpadded rows of unequal length the default collator cannot stack)
import _tiny
from transformers import Trainer

trainer = Trainer(model=_tiny.llama(), args=_tiny.args(fp16=True), train_dataset=_tiny.tokenized())
trainer.train()

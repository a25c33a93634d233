# family: package-install
# set: runtime-42
# expect: torchao
# note: TrainingArguments(optim='adamw_torch_4bit') without torchao
import _tiny
from transformers import Trainer

trainer = Trainer(model=_tiny.llama(), args=_tiny.args(optim="adamw_torch_4bit"), train_dataset=_tiny.tokenized())
trainer.train()

# family: package-install
# set: runtime-42
# expect: clearml
# note: TrainingArguments(report_to=['clearml']) without the clearml package
import _tiny
from transformers import Trainer

trainer = Trainer(model=_tiny.llama(), args=_tiny.args(report_to=["clearml"]), train_dataset=_tiny.tokenized())

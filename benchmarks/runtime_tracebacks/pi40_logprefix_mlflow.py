# family: package-install
# set: runtime-40
# wave: 2
# mode: logprefix
# expect: mlflow|MLflow
# note: a containerised job's log; Trainer with report_to="mlflow" in an image without mlflow
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
Trainer(model=_tiny.llama(), args=_tiny.args(report_to="mlflow"), train_dataset=_tiny.tokenized(tok),
        data_collator=DataCollatorForLanguageModeling(tok, mlm=False)).train()

# family: package-install
# set: runtime-44
# expect: trackio|not installed|pip install|No module named
# note: Trainer with report_to='trackio' (a tracker this environment does not have)
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(report_to=["trackio"]), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()

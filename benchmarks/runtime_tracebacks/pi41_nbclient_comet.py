# family: package-install
# set: runtime-41
# mode: nbclient
# expect: comet
# note: a notebook: Trainer with report_to="comet_ml", comet-ml not installed
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer
tok = _tiny.tokenizer()
# %%
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(report_to="comet_ml"), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()

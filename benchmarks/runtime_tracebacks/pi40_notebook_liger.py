# family: package-install
# set: runtime-40
# mode: ipython
# expect: liger|install
# note: notebook; TrainingArguments(use_liger_kernel=True) from a speed-up tip, liger-kernel not installed
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer
tok = _tiny.tokenizer()
# %%
args = _tiny.args(use_liger_kernel=True)
trainer = Trainer(model=_tiny.llama(), args=args, train_dataset=_tiny.tokenized(tok), data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()

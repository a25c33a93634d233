# family: package-install
# set: runtime-44
# mode: pyc
# expect: apollo|install|ImportError|No module
# note: python -c: Trainer with optim='apollo_adamw' (the APOLLO optimizer's package is not installed)
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer
tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(optim="apollo_adamw", optim_target_modules=["q_proj"]),
                  train_dataset=_tiny.tokenized(tok), data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()

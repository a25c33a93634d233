# family: package-install
# set: runtime-40
# wave: 2
# expect: lomo|install
# note: Trainer with optim="adalomo" from a full-parameter low-memory recipe; lomo-optim not installed
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
Trainer(model=_tiny.llama(), args=_tiny.args(optim="adalomo"), train_dataset=_tiny.tokenized(tok),
        data_collator=DataCollatorForLanguageModeling(tok, mlm=False)).train()

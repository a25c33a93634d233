# family: package-install
# set: runtime-40
# expect: galore|install
# note: Trainer with optim="galore_adamw" from a memory-saving recipe; galore-torch not installed
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
args = _tiny.args(optim="galore_adamw", optim_target_modules=["q_proj", "v_proj"])
Trainer(model=_tiny.llama(), args=args, train_dataset=_tiny.tokenized(tok),
        data_collator=DataCollatorForLanguageModeling(tok, mlm=False)).train()

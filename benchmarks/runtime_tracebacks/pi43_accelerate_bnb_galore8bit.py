# family: package-install
# set: runtime-43
# mode: accelerate
# expect: galore|install
# note: accelerate launch, 2 processes: Trainer with optim='galore_adamw_8bit' and optim_target_modules, galore-torch not installed
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
args = _tiny.args(optim="galore_adamw_8bit", optim_target_modules=[r".*attn.*", r".*mlp.*"])
trainer = Trainer(model=_tiny.llama(), args=args, train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()

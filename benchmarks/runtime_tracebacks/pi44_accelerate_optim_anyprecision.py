# family: package-install
# set: runtime-44
# mode: accelerate
# expect: torchdistx|install|ImportError|anyprecision
# note: accelerate launch, 2 processes: Trainer with optim='adamw_anyprecision' (its optimizer comes from torchdistx, not installed)
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(optim="adamw_anyprecision"), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()

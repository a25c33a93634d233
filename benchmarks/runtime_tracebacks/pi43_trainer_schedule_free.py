# family: package-install
# set: runtime-43
# expect: schedulefree|install
# note: Trainer with optim='schedule_free_adamw' from a tuning tip, the schedulefree package not installed
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(optim="schedule_free_adamw"), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()

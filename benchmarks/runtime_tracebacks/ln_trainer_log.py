# family: loss-nan
# expect: nan
# note: Trainer log with a loss of nan (an absurd learning rate), no traceback
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(max_steps=6, learning_rate=1e12, disable_tqdm=True),
                  train_dataset=_tiny.tokenized(tok), data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()

# family: loss-nan
# wave: 3
# expect: nan
# note: Trainer with evaluation each step; the learning rate blows the weights up and the eval loss is NaN
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
ds = _tiny.tokenized(tok)
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(max_steps=3, learning_rate=1e12, eval_strategy="steps",
                                                       eval_steps=1, disable_tqdm=True, logging_nan_inf_filter=False),
                  train_dataset=ds, eval_dataset=ds, data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()

# family: training-data
# expect: num_samples
# note: a filter that dropped every row (max length too small), then Trainer.train()
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
ds = _tiny.tokenized(tok).filter(lambda r: len(r["input_ids"]) > 512)
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(max_steps=-1, num_train_epochs=1), train_dataset=ds,
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()

# family: training-data
# set: runtime-41
# expect: max_steps|length
# note: Trainer on a streaming (iterable) dataset with num_train_epochs and no max_steps
import _tiny
from datasets import Dataset  # noqa: F401
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
ds = _tiny.tokenized(tok).to_iterable_dataset()
args = _tiny.args(max_steps=-1, num_train_epochs=1)
Trainer(model=_tiny.llama(), args=args, train_dataset=ds, data_collator=DataCollatorForLanguageModeling(tok, mlm=False)).train()

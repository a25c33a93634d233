# family: training-data
# set: runtime-40
# wave: 2
# expect: Error|error|StopIteration
# note: Trainer on a tokenized dataset that a length filter emptied (max_length set below every row's length)
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
data = _tiny.tokenized(tok).filter(lambda r: len(r["input_ids"]) < 2)
Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=data,
        data_collator=DataCollatorForLanguageModeling(tok, mlm=False)).train()

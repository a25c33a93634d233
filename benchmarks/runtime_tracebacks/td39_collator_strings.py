# family: training-data
# set: runtime-39
# wave: 1
# expect: excessive nesting|too many dimensions|Unable to create tensor|str
# note: DataCollatorForLanguageModeling over tokenized rows that still carry their text column (remove_columns forgotten), plain loop
import torch
import _tiny
from transformers import DataCollatorForLanguageModeling

tok = _tiny.tokenizer()
ds = _tiny.text_dataset().map(lambda r: tok(r["text"]))
loader = torch.utils.data.DataLoader(ds, batch_size=4, collate_fn=DataCollatorForLanguageModeling(tok, mlm=False))
for batch in loader:
    print(batch["input_ids"].shape)

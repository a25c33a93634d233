# family: training-data
# case: KB0025-ragged-rows-not-padded
# set: runtime-43
# mode: pyc
# expect: too many dimensions|Unable to create tensor|excessive nesting|ValueError
# note: python -c: a plain DataLoader with DataCollatorWithPadding over rows whose 'labels' are token lists of unequal length
import torch, _tiny
from transformers import DataCollatorWithPadding
tok = _tiny.tokenizer()
ds = _tiny.text_dataset().map(lambda r: {**tok(r["text"]), "labels": tok(r["text"])["input_ids"]}, remove_columns=["text"])
loader = torch.utils.data.DataLoader(ds, batch_size=2, collate_fn=DataCollatorWithPadding(tok))
for batch in loader:
    print(batch["input_ids"].shape)

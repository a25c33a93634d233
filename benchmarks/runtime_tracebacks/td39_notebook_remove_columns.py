# family: training-data
# set: runtime-39
# wave: 2
# mode: ipython
# expect: not in the dataset
# note: notebook; map(remove_columns=...) with the column names of an Alpaca recipe on a text-only dataset
import _tiny
tok = _tiny.tokenizer()
ds = _tiny.text_dataset()
# %%
def tokenize(batch):
    return tok(batch["text"], truncation=True, max_length=16)
# %%
tokenized = ds.map(tokenize, batched=True, remove_columns=["instruction", "input", "output"])

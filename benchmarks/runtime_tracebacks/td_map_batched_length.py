# family: training-data
# wave: 2
# expect: expected length
# note: a batched map that returns one row per batch for a new column (a tokenize function that joins the batch)
import _tiny

tok = _tiny.tokenizer()
ds = _tiny.text_dataset(20)


def tokenize(batch):
    out = tok(batch["text"])
    out["length"] = [sum(len(x) for x in out["input_ids"])]
    return out


ds = ds.map(tokenize, batched=True)

# family: training-data
# set: runtime-39
# wave: 1
# expect: not in the dataset
# note: map(remove_columns=[...]) naming a column this dataset does not have (copied from another recipe)
import _tiny

tok = _tiny.tokenizer()
ds = _tiny.text_dataset()
ds = ds.map(lambda r: tok(r["text"]), batched=True, remove_columns=["instruction", "output"])

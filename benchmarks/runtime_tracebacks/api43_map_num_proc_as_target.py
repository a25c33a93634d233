# family: api-drift
# set: runtime-43
# expect: as_target_tokenizer|has no attribute
# note: datasets map with num_proc=2: a seq2seq preprocessing function using `with tokenizer.as_target_tokenizer():` (removed), the worker's error chained
import _tiny
from datasets import Dataset

tok = _tiny.tokenizer()
ds = Dataset.from_dict({"source": ["hello world"] * 8, "target": ["the cat"] * 8})


def preprocess(batch):
    model_inputs = tok(batch["source"], max_length=8, truncation=True)
    with tok.as_target_tokenizer():
        labels = tok(batch["target"], max_length=8, truncation=True)
    model_inputs["labels"] = labels["input_ids"]
    return model_inputs


ds = ds.map(preprocess, batched=True, num_proc=2)

# family: api-drift
# set: runtime-43
# wave: 2
# mode: logprefix
# expect: prepare_seq2seq_batch|has no attribute
# note: a containerised job's log: a translation fine-tune's preprocessing calls tokenizer.prepare_seq2seq_batch (removed) inside datasets map
import _tiny
from datasets import Dataset

tok = _tiny.tokenizer()
ds = Dataset.from_dict({"src": ["hello world"] * 4, "tgt": ["the cat"] * 4})
ds = ds.map(lambda b: tok.prepare_seq2seq_batch(b["src"], tgt_texts=b["tgt"], max_length=8), batched=True)

# family: api-drift
# set: runtime-43
# wave: 2
# mode: nbclient
# expect: max_len|has no attribute
# note: a notebook run by jupyter execute: a chunking cell reads tokenizer.max_len (the pre-4 name of model_max_length)
import _tiny
tok = _tiny.tokenizer()
# %%
text = "the cat sat on the mat " * 20
ids = tok(text)["input_ids"]
chunks = [ids[i:i + tok.max_len] for i in range(0, len(ids), tok.max_len)]

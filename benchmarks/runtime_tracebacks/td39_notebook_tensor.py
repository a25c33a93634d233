# family: training-data
# case: KB0025-ragged-rows-not-padded
# set: runtime-39
# wave: 1
# mode: ipython
# expect: truncation and/or padding|Unable to create tensor
# note: notebook; a batch of prompts tokenized to tensors without padding
import _tiny
tok = _tiny.tokenizer()
# %%
prompts = ["the cat sat on the mat", "hello world", "the dog"]
# %%
enc = tok(prompts, return_tensors="pt")

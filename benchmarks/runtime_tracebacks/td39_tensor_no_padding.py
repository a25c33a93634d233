# family: training-data
# case: KB0025-ragged-rows-not-padded
# set: runtime-39
# wave: 1
# expect: truncation and/or padding|Unable to create tensor
# note: tokenizer called on a batch of unequal texts with return_tensors="pt" and no padding
import _tiny

tok = _tiny.tokenizer()
batch = tok(["the cat sat on the mat", "hello"], return_tensors="pt")

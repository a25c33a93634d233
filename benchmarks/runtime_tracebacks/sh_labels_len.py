# family: shape-mismatch
# expect: batch_size
# note: causal LM labels built with another length than the inputs (labels truncated separately), plain loop
import _tiny

model = _tiny.llama()
tok = _tiny.tokenizer()
enc = tok(["the cat sat on the mat", "hello world"], padding=True, return_tensors="pt")
labels = tok(["the cat sat", "hello"], padding=True, return_tensors="pt")["input_ids"]
out = model(**enc, labels=labels)
out.loss.backward()

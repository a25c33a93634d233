# family: api-drift
# set: runtime-43
# mode: pyc
# expect: encode_plus|has no attribute
# note: python -c in a notebook-like session: tokenizer.encode_plus(..., pad_to_max_length=True) from a 2021 tutorial on transformers 5
import _tiny
tok = _tiny.tokenizer()
enc = tok.encode_plus("the cat sat", max_length=8, pad_to_max_length=True, return_tensors="pt")
print(enc["input_ids"])

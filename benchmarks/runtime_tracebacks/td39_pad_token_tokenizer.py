# family: training-data
# case: KB0022-tokenizer-without-pad-token
# set: runtime-39
# wave: 1
# expect: padding token
# note: batch generation script: the tokenizer (no pad token) asked to pad a batch of prompts
import _tiny

tok = _tiny.tokenizer(pad=False)
model = _tiny.llama()
inputs = tok(["the cat", "hello world the cat sat"], padding=True, return_tensors="pt")
out = model.generate(**inputs, max_new_tokens=4)

# family: device-side-assert
# case: KB0014-embedding-index-out-of-range
# set: runtime-42
# expect: index out of range|out of bounds
# note: a text-generation pipeline over a model whose vocab (8) is smaller than the tokenizer's (20 ids)
import _tiny
from transformers import pipeline

model = _tiny.llama(vocab_size=8, pad_token_id=3)
gen = pipeline("text-generation", model=model, tokenizer=_tiny.tokenizer())
print(gen("the cat sat on the mat", max_new_tokens=2))

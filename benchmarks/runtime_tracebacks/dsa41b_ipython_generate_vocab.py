# family: device-side-assert
# case: KB0014-embedding-index-out-of-range
# set: runtime-41
# wave: 2
# mode: ipython
# expect: index out of range
# note: IPython: generate() on prompts encoded by a tokenizer with a larger vocabulary than the model's embedding
import torch
import _tiny
model = _tiny.llama()
# %%
prompt = torch.tensor([[1, 40, 41, 7]])
out = model.generate(prompt, max_new_tokens=4)

# family: shape-mismatch
# set: runtime-42
# expect: size|shape|match
# note: model.generate with an attention_mask cut to a different length than input_ids
import torch
import _tiny

model = _tiny.llama()
ids = torch.randint(4, 20, (2, 8))
out = model.generate(input_ids=ids, attention_mask=torch.ones(2, 5, dtype=torch.long), max_new_tokens=2)

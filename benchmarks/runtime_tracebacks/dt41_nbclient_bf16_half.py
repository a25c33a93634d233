# family: dtype-mismatch
# set: runtime-41
# mode: nbclient
# expect: dtype|same dtype|BFloat16|Half
# note: a notebook: a model cast to bfloat16, its inputs_embeds built in float16 by a helper cell
import torch
import _tiny

model = _tiny.llama().to(torch.bfloat16)
# %%
embeds = torch.randn(1, 4, 16, dtype=torch.float16)
out = model(inputs_embeds=embeds)

# family: loss-nan
# set: runtime-43
# expect: inf|nan|probability
# note: sampling generate() from a model whose weights overflowed to inf after an fp16 cast-and-back of a LoRA merge
import torch
import _tiny

model = _tiny.llama()
with torch.no_grad():
    model.model.layers[1].mlp.down_proj.weight.mul_(1e38)
    model.model.layers[1].mlp.down_proj.weight.copy_(model.model.layers[1].mlp.down_proj.weight.half().float())
ids = torch.tensor([[1, 7, 8, 9]])
out = model.generate(ids, do_sample=True, max_new_tokens=4, pad_token_id=3)

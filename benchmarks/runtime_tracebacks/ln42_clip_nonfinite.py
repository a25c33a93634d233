# family: loss-nan
# set: runtime-42
# expect: non-finite
# note: clip_grad_norm_(..., error_if_nonfinite=True) after a step whose loss overflowed (inf logits)
import torch
import _tiny

model = _tiny.llama()
with torch.no_grad():
    model.lm_head.weight.mul_(1e38)
ids = torch.randint(4, 20, (2, 6))
loss = model(input_ids=ids, labels=ids).loss
loss.backward()
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)

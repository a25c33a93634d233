# family: fp16-gradients
# case: KB0028-fp16-trainable-params-grad-scaler
# set: runtime-41
# mode: nbclient
# expect: unscale FP16 gradients
# note: a notebook: a half-precision model trained with a GradScaler (the trainable weights are fp16 themselves)
import torch
import _tiny

model = _tiny.llama().half()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
scaler = torch.amp.GradScaler("cpu")
# %%
loss = model(torch.tensor([[1, 5, 6, 7]]), labels=torch.tensor([[1, 5, 6, 7]])).loss
scaler.scale(loss).backward()
scaler.unscale_(opt)

# family: fp16-gradients
# case: KB0028-fp16-trainable-params-grad-scaler
# set: runtime-43
# mode: pyc
# expect: unscale FP16|FP16 gradients
# note: python -c: a Llama cast to .half() trained with torch.amp.GradScaler('cpu') (fp16 master weights)
import torch, _tiny
model = _tiny.llama().half()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
scaler = torch.amp.GradScaler("cpu")
ids = torch.randint(4, 20, (2, 6))
with torch.autocast("cpu", dtype=torch.float16):
    loss = model(input_ids=ids, labels=ids).loss
scaler.scale(loss).backward()
scaler.unscale_(opt)

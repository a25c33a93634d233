# family: fp16-gradients
# case: KB0028-fp16-trainable-params-grad-scaler
# expect: unscale FP16 gradients
# note: plain loop with torch.amp.GradScaler over a model cast to float16
import torch

model = torch.nn.Linear(8, 8).half()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
loss = model(torch.randn(4, 8, dtype=torch.float16)).float().pow(2).mean()
scaler.scale(loss).backward()
scaler.unscale_(opt)
scaler.step(opt)

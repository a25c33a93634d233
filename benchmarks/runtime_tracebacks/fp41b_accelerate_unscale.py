# family: fp16-gradients
# case: KB0028-fp16-trainable-params-grad-scaler
# set: runtime-41
# wave: 2
# mode: accelerate
# expect: unscale FP16 gradients
# note: accelerate launch, 2 processes: a model cast to float16 by hand, trained with torch's GradScaler
import torch
from accelerate import Accelerator

acc = Accelerator(cpu=True)
model = torch.nn.Linear(8, 8).half()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model, opt = acc.prepare(model, opt)
scaler = torch.amp.GradScaler("cpu")
loss = model(torch.randn(2, 8, dtype=torch.float16)).float().pow(2).mean()
scaler.scale(loss).backward()
scaler.unscale_(opt)

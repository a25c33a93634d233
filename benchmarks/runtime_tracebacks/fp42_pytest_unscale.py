# family: fp16-gradients
# case: KB0028-fp16-trainable-params-grad-scaler
# set: runtime-42
# mode: pytest
# expect: unscale FP16 gradients
# note: pytest: torch.amp.GradScaler('cpu') stepping an optimizer over a model cast to float16
import torch


def test_amp_step():
    model = torch.nn.Linear(8, 8).half()
    opt = torch.optim.AdamW(model.parameters())
    scaler = torch.amp.GradScaler("cpu")
    loss = model(torch.randn(2, 8).half()).float().sum()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    scaler.step(opt)

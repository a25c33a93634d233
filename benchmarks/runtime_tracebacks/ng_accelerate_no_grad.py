# family: no-grad-fn
# expect: does not require grad
# note: accelerate loop whose loss is computed inside torch.no_grad() (an eval helper reused for training)
import torch
from accelerate import Accelerator
import _tiny

acc = Accelerator(cpu=True)
model = _tiny.llama()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
model, opt = acc.prepare(model, opt)
tok = _tiny.tokenizer()


@torch.no_grad()
def compute_loss(m, batch):
    return m(**batch, labels=batch["input_ids"]).loss


batch = tok(["the cat sat on the mat"], return_tensors="pt")
loss = compute_loss(model, batch)
acc.backward(loss)
opt.step()

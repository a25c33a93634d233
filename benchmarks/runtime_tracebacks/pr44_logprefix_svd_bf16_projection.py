# family: precision-unsupported
# set: runtime-44
# mode: logprefix
# expect: BFloat16|Low precision|not implemented|not supported
# note: container log: a GaLore-style low-rank gradient projection (torch.linalg.svd) on the gradients of a bfloat16 model trained on CPU
import torch
import _tiny

model = _tiny.llama().to(torch.bfloat16)
ids = torch.tensor([[1, 5, 6, 7, 2]])
model(input_ids=ids, labels=ids).loss.backward()
for name, p in model.named_parameters():
    if p.grad is not None and p.grad.ndim == 2:
        U, S, Vh = torch.linalg.svd(p.grad, full_matrices=False)
        p.grad = U[:, :4] @ torch.diag(S[:4]) @ Vh[:4]

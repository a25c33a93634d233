# family: shape-mismatch
# expect: is invalid for input of size
# note: a hard-coded reshape in custom attention code
import torch


class Attn(torch.nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.qkv = torch.nn.Linear(dim, dim * 3)
        self.heads = heads

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, t, self.heads, 12)
        return q


print(Attn()(torch.randn(2, 5, 32)).shape)

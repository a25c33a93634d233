"""Condition a StyleGAN-like label embedding on property scores computed with NumPy."""

import numpy as np
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)


class LabelEmbedding(torch.nn.Module):
    def __init__(self, num_labels: int = 7, dim: int = 512) -> None:
        super().__init__()
        self.label_weight = torch.nn.Parameter(torch.randn(num_labels, dim))

    def forward(self, label: torch.Tensor) -> torch.Tensor:
        return torch.matmul(label, self.label_weight)


# Property scores (eyes, hair colour, mouth, ...) normalised with NumPy: float64.
scores = np.random.default_rng(0).normal(size=(4, 7))
scores = (scores - scores.mean(axis=0)) / scores.std(axis=0)
label = torch.from_numpy(scores).to(device).double()  # "cast it": it already is double

embedding = LabelEmbedding().to(device)
out = embedding(label)
print("label embedding", tuple(out.shape), out.dtype)

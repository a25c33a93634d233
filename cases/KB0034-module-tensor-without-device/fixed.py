"""A custom head whose constant tensor is a plain attribute, not a registered buffer.

`model.to("cuda")` moves parameters and registered buffers. The fix registers the class weights
as a buffer, so they move with the module (and are saved in its state_dict).
"""

import torch

from kb.fixtures import tiny


class WeightedHead(torch.nn.Module):
    def __init__(self, hidden: int, num_labels: int) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(hidden, num_labels)
        self.register_buffer("class_weights", torch.tensor([1.0, 3.0, 0.5]))  # the fix: moves with .to()

    def forward(self, hidden: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        logits = self.proj(hidden[:, -1])
        return torch.nn.functional.cross_entropy(logits, labels, weight=self.class_weights)


tok = tiny.tokenizer()
backbone = tiny.causal_lm(tok).model
head = WeightedHead(backbone.config.hidden_size, 3)
model = torch.nn.ModuleDict({"backbone": backbone, "head": head}).to("cuda")

batch = tok(tiny.texts(4), return_tensors="pt", padding=True).to("cuda")
labels = torch.tensor([0, 1, 2, 1], device="cuda")
hidden = model["backbone"](**batch).last_hidden_state
loss = model["head"](hidden, labels)
loss.backward()
print(f"kb-measure loss={loss.item():.4f}")

# family: shape-mismatch
# wave: 2
# expect: Sizes of tensors must match
# note: a hand-written collator concatenating image features and token embeddings of different widths
import torch


def collate(rows):
    return torch.cat([torch.stack([r["image"] for r in rows]), torch.stack([r["text"] for r in rows])], dim=1)


rows = [{"image": torch.randn(4, 16), "text": torch.randn(6, 12)} for _ in range(2)]
print(collate(rows).shape)

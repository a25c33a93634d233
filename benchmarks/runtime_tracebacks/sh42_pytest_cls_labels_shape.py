# family: shape-mismatch
# set: runtime-42
# mode: pytest
# expect: batch_size|match target
# note: pytest: a sequence classifier given per-token labels (batch x length) instead of one label per row
import torch
import _tiny
from transformers import LlamaForSequenceClassification


def test_cls_loss():
    model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=2))
    ids = torch.randint(4, 20, (2, 6))
    out = model(input_ids=ids, labels=torch.zeros(2, 6, dtype=torch.long))
    assert out.loss > 0

# family: loss-nan
# set: runtime-42
# mode: pytest
# expect: returned nan|nan values|NaN
# note: pytest: a training step of a Llama under torch.autograd.detect_anomaly with an embedding row set to inf
import torch
import _tiny


def test_train_step():
    model = _tiny.llama()
    with torch.no_grad():
        model.model.embed_tokens.weight[5] = float("inf")
    ids = torch.tensor([[5, 6, 7, 8]])
    with torch.autograd.detect_anomaly():
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()

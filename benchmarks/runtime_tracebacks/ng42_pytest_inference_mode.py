# family: no-grad-fn
# set: runtime-42
# mode: pytest
# expect: does not require grad|Inference tensors
# note: pytest: a loss computed under torch.inference_mode (an eval helper reused for training) backpropagated
import torch
import _tiny


def test_backward():
    model = _tiny.llama()
    ids = torch.randint(4, 20, (2, 6))
    with torch.inference_mode():
        loss = model(input_ids=ids, labels=ids).loss
    loss.backward()

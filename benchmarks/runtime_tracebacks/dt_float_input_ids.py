# family: dtype-mismatch
# expect: Long
# note: input ids built as a float tensor reach the embedding
import torch
import _tiny

model = _tiny.llama()
ids = torch.tensor([[9.0, 11.0, 13.0]])
print(model(input_ids=ids).logits.shape)

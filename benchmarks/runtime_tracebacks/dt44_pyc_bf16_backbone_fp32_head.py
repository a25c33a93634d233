# family: dtype-mismatch
# set: runtime-44
# mode: pyc
# expect: dtype|BFloat16|Float|same dtype
# note: python -c: a backbone loaded in bfloat16 feeds a float32 regression head made with nn.Linear
import torch, _tiny
from transformers import AutoModel
path = _tiny.saved_llama()
backbone = AutoModel.from_pretrained(path, torch_dtype=torch.bfloat16)
head = torch.nn.Linear(16, 1)
hidden = backbone(input_ids=torch.tensor([[1, 5, 6, 2]])).last_hidden_state
score = head(hidden[:, -1])

# family: shape-mismatch
# expect: cannot be multiplied
# note: a classification head built for another hidden size on top of a tiny Llama
import torch
import _tiny

base = _tiny.llama()
head = torch.nn.Linear(768, 2)
tok = _tiny.tokenizer()
enc = tok(["the cat sat"], return_tensors="pt")
hidden = base.model(**enc).last_hidden_state
print(head(hidden[:, -1]))

# family: device-side-assert
# case: KB0021-label-id-beyond-num-labels
# expect: out of bounds
# note: sequence classification, num_labels=2, labels 1..5 from a star-rating column
import torch
import _tiny
from transformers import LlamaForSequenceClassification

model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=2))
tok = _tiny.tokenizer()
batch = tok(["the cat sat", "hello world"], padding=True, return_tensors="pt")
out = model(**batch, labels=torch.tensor([1, 5]))
out.loss.backward()

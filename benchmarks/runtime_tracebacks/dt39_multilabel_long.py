# family: dtype-mismatch
# set: runtime-39
# wave: 1
# expect: can't be cast|Long|Float
# note: multi_label_classification with 0/1 integer label vectors, plain loop
import torch
import _tiny
from transformers import LlamaForSequenceClassification

model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=3, problem_type="multi_label_classification"))
batch = _tiny.tokenizer()(["the cat sat", "hello world"], padding=True, return_tensors="pt")
out = model(**batch, labels=torch.tensor([[1, 0, 1], [0, 1, 0]]))
out.loss.backward()

# family: shape-mismatch
# wave: 2
# expect: batch_size
# note: accelerate loop, sequence classification with one-hot labels flattened to the wrong length
import torch
from accelerate import Accelerator
import _tiny
from transformers import LlamaForSequenceClassification

acc = Accelerator(cpu=True)
model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=3))
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
model, opt = acc.prepare(model, opt)
tok = _tiny.tokenizer()
batch = tok(["the cat sat", "hello world"], padding=True, return_tensors="pt")
labels = torch.nn.functional.one_hot(torch.tensor([0, 2]), 3).view(-1)
out = model(**batch, labels=labels)
acc.backward(out.loss)

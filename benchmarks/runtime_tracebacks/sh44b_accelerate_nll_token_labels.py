# family: shape-mismatch
# set: runtime-44
# wave: 2
# mode: accelerate
# expect: Expected target size|target size
# note: accelerate launch, 2 processes: a token-level NLL loss on log-probs [batch, seq, vocab] against labels [batch, seq] (the class dimension left last)
import torch
import _tiny
from accelerate import Accelerator

accelerator = Accelerator(cpu=True)
model = accelerator.prepare(_tiny.llama())
ids = torch.tensor([[1, 5, 6, 7, 2], [1, 8, 9, 2, 3]])
logprobs = model(input_ids=ids).logits.log_softmax(-1)
loss = torch.nn.functional.nll_loss(logprobs, ids, ignore_index=3)

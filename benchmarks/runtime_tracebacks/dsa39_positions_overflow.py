# family: device-side-assert
# set: runtime-39
# wave: 1
# expect: index out of range|IndexError
# note: GPT-2 (learned position embeddings, n_positions=16) fed a sequence longer than its positions
import torch
from transformers import GPT2Config, GPT2LMHeadModel

model = GPT2LMHeadModel(GPT2Config(vocab_size=32, n_positions=16, n_embd=16, n_layer=1, n_head=2))
ids = torch.randint(0, 32, (1, 40))
out = model(input_ids=ids, labels=ids)

# family: device-side-assert
# set: runtime-40
# mode: ipython
# expect: index out of range
# note: notebook; a BERT classifier (type_vocab_size=2) fed token_type_ids of 2 for a third segment
import torch
from transformers import BertConfig, BertForSequenceClassification
model = BertForSequenceClassification(BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32))
# %%
ids = torch.tensor([[1, 5, 6, 2, 7, 8, 2, 9, 2]])
segments = torch.tensor([[0, 0, 0, 0, 1, 1, 1, 2, 2]])
out = model(input_ids=ids, token_type_ids=segments)

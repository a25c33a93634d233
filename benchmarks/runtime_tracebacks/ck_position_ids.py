# family: checkpoint-io
# case: KB0045-state-dict-position-ids-from-older-transformers
# expect: Unexpected key
# note: a BERT state dict saved with an older transformers (position_ids buffer) loaded strictly
import torch
from transformers import BertConfig, BertModel

config = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32)
model = BertModel(config)
sd = model.state_dict()
sd["embeddings.position_ids"] = torch.arange(512).unsqueeze(0)
model.load_state_dict(sd)

"""Load a BERT classifier's weights saved with torch.save(model.state_dict()) under an older transformers.

transformers before 4.31 saved BertEmbeddings.position_ids (a buffer of positions) in the state dict; since
then the buffer is non-persistent, so the model no longer expects that key and load_state_dict refuses it.
The older file is written here as those releases wrote it: today's state dict plus that buffer. Tiny BERT
from a config with random weights: nothing is downloaded.
"""

import tempfile
from pathlib import Path

import torch
from transformers import BertConfig, BertForSequenceClassification

config = BertConfig(vocab_size=120, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=64, max_position_embeddings=64, num_labels=3)
torch.manual_seed(0)
trained = BertForSequenceClassification(config)
state = trained.state_dict()
state["bert.embeddings.position_ids"] = torch.arange(config.max_position_embeddings).expand((1, -1))
checkpoint = Path(tempfile.mkdtemp()) / "classifier.pt"
torch.save(state, checkpoint)

model = BertForSequenceClassification(config)
model.load_state_dict(torch.load(checkpoint, map_location="cpu"))
model.eval()
with torch.no_grad():
    same = torch.equal(model(input_ids=torch.tensor([[1, 5, 7, 2]])).logits, trained.eval()(input_ids=torch.tensor([[1, 5, 7, 2]])).logits)
print(f"kb-measure same_logits={int(same)}")

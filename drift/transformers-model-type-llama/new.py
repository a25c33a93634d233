"""A config.json of model type llama, as Llama checkpoints ship it."""
import json
import tempfile
from pathlib import Path

from transformers import AutoConfig

folder = Path(tempfile.mkdtemp())
(folder / "config.json").write_text(json.dumps({'model_type': 'llama', 'hidden_size': 64, 'intermediate_size': 128, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'vocab_size': 32}))
config = AutoConfig.from_pretrained(folder)
print("kb-drift loaded", type(config).__name__)

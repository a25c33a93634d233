"""A config.json of model type qwen2, as checkpoints of that family ship it."""
import json
import tempfile
from pathlib import Path

from transformers import AutoConfig

folder = Path(tempfile.mkdtemp())
(folder / "config.json").write_text(json.dumps({'model_type': 'qwen2', 'hidden_size': 64, 'intermediate_size': 128, 'num_hidden_layers': 2, 'num_attention_heads': 4, 'num_key_value_heads': 2, 'vocab_size': 32}))
config = AutoConfig.from_pretrained(folder)
print("kb-drift loaded", type(config).__name__)

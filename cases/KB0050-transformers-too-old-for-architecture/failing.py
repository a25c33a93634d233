"""KB0050 transformers-too-old-for-architecture: the failing program.

A Qwen3 checkpoint (a local folder: config.json with ``model_type = "qwen3"`` and random weights) is
loaded with AutoModelForCausalLM on transformers 4.49.0 (pinned), a release from before Qwen3 was
added (4.51.0). AutoConfig looks ``qwen3`` up in CONFIG_MAPPING, the lookup fails and
configuration_auto.py raises "The checkpoint you are trying to load has model type `qwen3` but
Transformers does not recognize this architecture".
"""

import transformers
from transformers import AutoModelForCausalLM

from checkpoint import write

print(f"transformers {transformers.__version__}")
checkpoint = write()
model = AutoModelForCausalLM.from_pretrained(checkpoint)
print(type(model).__name__)

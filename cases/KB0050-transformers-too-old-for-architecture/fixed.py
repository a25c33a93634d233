"""KB0050 transformers-too-old-for-architecture: the fixed program.

The same load on transformers 4.51.3 (the reproduction's fixed_pins): a release that knows Qwen3. The
fix is the upgrade; the lines added here are the check a user runs after it, in the process that
loads the model, that the transformers it imports knows the checkpoint's model type. Then the model
loads with every weight of the folder and runs a forward pass.
"""

import torch
import transformers
from transformers import CONFIG_MAPPING, AutoModelForCausalLM

from checkpoint import write

print(f"transformers {transformers.__version__}")
checkpoint = write()
assert "qwen3" in CONFIG_MAPPING, f"transformers {transformers.__version__} does not know qwen3: pip install -U transformers"
model, info = AutoModelForCausalLM.from_pretrained(checkpoint, output_loading_info=True)
print(type(model).__name__)
print(f"kb-measure missing_keys={len(info['missing_keys'])}")
print(f"kb-measure unexpected_keys={len(info['unexpected_keys'])}")
with torch.no_grad():
    logits = model(torch.tensor([[1, 5, 7, 9]])).logits
print(f"kb-measure logits_vocab={logits.shape[-1]}")

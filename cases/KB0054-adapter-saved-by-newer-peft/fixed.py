"""KB0054 adapter-saved-by-newer-peft: the fixed program.

The same load on a peft at least as new as the one that saved the adapter (the machine's own peft, the
reproduction's fixed_pins = []): the fix is the upgrade. The lines added here are the check a user runs after
it, that the peft this process imports is not older than the adapter's peft_version; then the adapter loads
with all its weights and changes the model's output.
"""

import json

import peft
import torch
from packaging.version import Version
from peft import PeftModel

from adapter import write
from kb.fixtures import tiny

print(f"peft {peft.__version__}")
tokenizer = tiny.tokenizer()
base = tiny.causal_lm(tokenizer)
folder = write()
saved_with = json.load(open(f"{folder}/adapter_config.json")).get("peft_version", "0")
assert Version(peft.__version__) >= Version(saved_with), f"adapter saved by peft {saved_with}: pip install -U peft"
ids = torch.tensor([[2, 5, 7, 9]])
with torch.no_grad():
    before = base(ids).logits
model = PeftModel.from_pretrained(base, folder)
lora = [n for n, _ in model.named_parameters() if "lora_" in n]
print(f"kb-measure lora_tensors={len(lora)}")
with torch.no_grad():
    after = model(ids).logits
print(f"kb-measure output_changed={int(not torch.allclose(before, after))}")

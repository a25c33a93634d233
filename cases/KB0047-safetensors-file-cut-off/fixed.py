"""Load the newest complete checkpoint of a run whose last save was cut off: check each before loading.

checkpoint-1 is complete; checkpoint-2's model.safetensors holds only its first half, as a process killed
or a disk disconnected while writing leaves it. from_pretrained opens it with safetensors, whose header
promises more bytes than the file has. Tiny Llama with random weights: nothing is downloaded.
"""

import tempfile
from pathlib import Path

from safetensors import SafetensorError, safe_open
from transformers import AutoModelForCausalLM

from kb.fixtures import tiny

tok = tiny.tokenizer()
run = Path(tempfile.mkdtemp())
for step in (1, 2):
    tiny.causal_lm(tok, seed=step).save_pretrained(run / f"checkpoint-{step}")
weights = run / "checkpoint-2" / "model.safetensors"
weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])  # the interrupted write



def complete(folder: Path) -> bool:
    """Every weights file of the folder opens (safe_open checks the header against the file's size)."""
    try:
        for file in folder.glob("*.safetensors"):
            safe_open(file, framework="pt").keys()
    except SafetensorError:
        return False
    return True


# The fix: skip checkpoints whose files were cut off; load the newest complete one.
newest = max((folder for folder in run.glob("checkpoint-*") if complete(folder)),
             key=lambda folder: int(folder.name.split("-")[1]))
model = AutoModelForCausalLM.from_pretrained(newest)
print(f"kb-measure loaded_step={newest.name.split('-')[1]}")

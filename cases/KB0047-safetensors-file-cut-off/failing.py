"""Load the newest checkpoint of a run whose last save was cut off (the session was killed mid-write).

checkpoint-1 is complete; checkpoint-2's model.safetensors holds only its first half, as a process killed
or a disk disconnected while writing leaves it. from_pretrained opens it with safetensors, whose header
promises more bytes than the file has. Tiny Llama with random weights: nothing is downloaded.
"""

import tempfile
from pathlib import Path

from transformers import AutoModelForCausalLM

from kb.fixtures import tiny

tok = tiny.tokenizer()
run = Path(tempfile.mkdtemp())
for step in (1, 2):
    tiny.causal_lm(tok, seed=step).save_pretrained(run / f"checkpoint-{step}")
weights = run / "checkpoint-2" / "model.safetensors"
weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])  # the interrupted write

newest = max(run.glob("checkpoint-*"), key=lambda folder: int(folder.name.split("-")[1]))
model = AutoModelForCausalLM.from_pretrained(newest)
print(f"kb-measure loaded_step={newest.name.split('-')[1]}")

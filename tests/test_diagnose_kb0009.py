"""kb diagnose maps the three error forms of the batch-size-times-gpu-count case (KB0009) to it.

The case's own recorded logs are checked by test_registry; these are the forms users paste: the
incident's traceback, trl's refusal as a bare error, and DataParallel's scatter error (trl #2338).
"""

from __future__ import annotations

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge

INCIDENT = r'''Traceback (most recent call last):
  File "C:\Users\u\AI_Projects\llm\unsloth_test\test_without_unsloth.py", line 78, in <module>
    trainer.train()
  File "C:\Users\u\venv\lib\site-packages\transformers\trainer.py", line 3736, in training_step
    loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)
  File "C:\Users\u\venv\lib\site-packages\trl\trainer\sft_trainer.py", line 490, in compute_loss
    correct_predictions = (predictions == shift_labels) & mask
RuntimeError: The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0
'''

TRL_REFUSAL = (
    "ValueError: SFTTrainer does not support `nn.DataParallel`, which `Trainer` uses when several GPUs are "
    "visible to a single process. Launch the script with `accelerate launch` or `torchrun`, or make a single "
    "GPU visible with `CUDA_VISIBLE_DEVICES`.\n"
)

SCATTER = '''  File "/usr/local/lib/python3.11/dist-packages/torch/nn/parallel/comm.py", line 188, in scatter
    return tuple(torch._C._scatter(tensor, devices, chunk_sizes, dim, streams))
RuntimeError: chunk expects at least a 1-dimensional tensor
'''

GENERIC = "RuntimeError: The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0\n"


@pytest.mark.parametrize(
    "text, signature",
    [(INCIDENT, "token-accuracy-size-mismatch"), (TRL_REFUSAL, "trl-refuses-dataparallel"), (SCATTER, "dataparallel-scatter-0dim")],
    ids=["incident", "trl-refusal", "scatter"],
)
def test_kb0009_is_the_top_match(text: str, signature: str) -> None:
    matches = [a.match for a in diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers]
    assert matches, "no match"
    assert (matches[0].entry.key, matches[0].signature.name) == ("KB0009", signature)


def test_a_bare_size_mismatch_is_not_claimed() -> None:
    """Without a trl frame or a batch-size hint the message is any broadcast error."""
    matches = [a.match for a in diagnose_lines(GENERIC.splitlines(keepends=True), load_knowledge()).answers]
    assert "KB0009" not in [m.entry.key for m in matches]

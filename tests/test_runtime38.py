"""The runtime-38 fixtures as regression examples: real tracebacks of today's libraries, printed by the small failing
programs of benchmarks/runtime_tracebacks/ (CPU; torch 2.13, transformers 5.24, peft 0.21, trl 1.16, accelerate 1.15,
datasets 5.2, huggingface_hub 2.4: labels.toml's [versions]).

They are not in the dev manifest (its entries are public reports with their address); labels.toml labels them. The
first score (benchmarks/results/devset-runtime-38-first-score.txt) was taken before kb was changed for them.
"""

from __future__ import annotations

import pytest

from runtime_support import RuntimeSet

RUNTIME38 = RuntimeSet("runtime-38")
ENTRIES = RUNTIME38.entries

# Fixtures kb leaves unanswered, and why; they must stay unanswered (a wrong family costs more than silence).
SILENT = {
    # anomaly mode's NaN error is any autograd program's: loss-nan's signature asks for a fine-tuning frame, and this
    # custom loss has none.
    "ln_anomaly.txt": "loss-nan's anomaly signature requires a frame of the fine-tuning stack",
}
# Case-labelled fixtures whose top answer is the family, not the case, and why.
FAMILY_ONLY = {
    "mu_unknown_type.txt": "the model type (qwen9_moe) is invented: no release of transformers has it",
    "dt_half_linear_cpu.txt": "a lone float16 Linear: none of the model frames (q_proj, self_attn, projector) KB0020 asks for",
}


def test_every_fixture_is_labelled_once_with_a_known_family() -> None:
    files = RUNTIME38.check_labelled()
    assert set(SILENT) | set(FAMILY_ONLY) <= set(files)


@pytest.mark.parametrize("entry", ENTRIES, ids=RUNTIME38.ids)
def test_runtime_fixture(entry: dict, runtime_readings: dict) -> None:
    RUNTIME38.check_fixture(entry, runtime_readings, SILENT, FAMILY_ONLY)

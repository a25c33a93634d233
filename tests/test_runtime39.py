"""The runtime-39 fixtures as regression examples: real output of the turn-39 programs of benchmarks/runtime_tracebacks/
(their ``set: runtime-39`` header; CPU; torch 2.13, transformers 5.24, peft 0.21, trl 1.16, accelerate 1.15, datasets 5.2,
huggingface_hub 2.4: labels.toml's [versions]), many of them through a wrapper: Trainer.train, SFTTrainer, torchrun and
accelerate launch (torch's elastic ChildFailedError table after the ranks' tracebacks), a notebook (IPython), a script
that prints the exception instead of raising it, a logging.exception / logging.error line, a log collector's timestamps.

They are not in the dev manifest (its entries are public reports with their address); labels.toml labels them. The
first score (benchmarks/results/devset-runtime-39-first-score.txt) was taken before kb was changed for them.
"""

from __future__ import annotations

import pytest

from runtime_support import RuntimeSet

RUNTIME39 = RuntimeSet("runtime-39")
ENTRIES = RUNTIME39.entries


def test_every_fixture_is_labelled_once_with_a_known_family() -> None:
    RUNTIME39.check_labelled()
    # the wrappers the set is for: each is there
    assert {"torchrun", "accelerate", "ipython", "logprefix"} <= {e["mode"] for e in ENTRIES}


@pytest.mark.parametrize("entry", ENTRIES, ids=RUNTIME39.ids)
def test_runtime_fixture(entry: dict, runtime_readings: dict) -> None:
    RUNTIME39.check_fixture(entry, runtime_readings)

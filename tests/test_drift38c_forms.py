"""Issue #25, two forms no signature or parse read before (kb/diagnose/drift.py, kb/apidrift/answer.py):

(1) argparse's refusal of a value an Enum-typed dataclass field did not yet have: "error: argument --optim: invalid
choice: 'paged_adamw_32bit' (choose from 'adamw_hf', ...)" printed with no traceback (drift-39-LlamaFactory-580, the
value first in transformers 4.30.0): the Enum is the one tracked Enum whose values hold the choices;
(2) torch.load's weights_only refusal kept only as its last line above a traceback cut before its error line
("[rank1]: Check the documentation of torch.load to learn more about types accepted by default with weights_only",
drift-32-open-instruct-673): the family the priors table gives torch's UnpicklingError, with torch 2.6.0's default.
"""

from __future__ import annotations

import pytest

from drift_support import DEV, drift_of, top
from kb.diagnose.drift import recognise

CHOICES = ("'adamw_hf', 'adamw_torch', 'adamw_torch_fused', 'adamw_torch_xla', 'adamw_apex_fused', 'adafactor', "
           "'adamw_bnb_8bit', 'adamw_anyprecision', 'sgd', 'adagrad'")


def test_argparse_invalid_choice_is_read() -> None:
    line = f"train_bash.py: error: argument --optim: invalid choice: 'paged_adamw_32bit' (choose from {CHOICES})"
    form, fields = recognise("", line)
    assert form == "enum-value"
    assert fields["value"] == "paged_adamw_32bit" and fields["enum"] == "" and fields["argument"] == "--optim"
    assert fields["choices"].split("|")[:2] == ["adamw_hf", "adamw_torch"]


def test_python_314_unquoted_choices_are_read() -> None:
    found = recognise("", "x.py: error: argument --optim: invalid choice: 'lion' (choose from adamw_hf, adamw_torch, sgd, adagrad)")
    assert found is not None and found[1]["choices"] == "adamw_hf|adamw_torch|sgd|adagrad"


def test_the_real_report_is_dated() -> None:
    drift = drift_of((DEV / "drift-39-LlamaFactory-580.txt").read_text())
    assert drift is not None
    assert drift["added_in"] == "4.30.0"
    assert "OptimizerNames" in drift["subject"]
    assert any("upgrade" in fix for fix in drift["fixes"])


@pytest.mark.parametrize("choices", [
    "'a', 'b', 'c', 'd', 'e'",  # no tracked Enum has these values
    "'adamw_hf', 'adamw_torch'",  # too short a list to name an Enum
])
def test_choices_that_name_no_enum_are_not_answered(choices: str) -> None:
    assert top(f"Title\nrun.py: error: argument --x: invalid choice: 'z' (choose from {choices})\n") is None


def test_a_refusal_tail_above_a_cut_traceback() -> None:
    answer = top((DEV / "drift-32-open-instruct-673.txt").read_text())
    assert answer is not None and answer.match.entry.family == "checkpoint-io"
    assert answer.drift is not None
    assert any("in torch 2.6.0" in fact and "weights_only" in fact for fact in answer.drift["facts"])
    assert any("weights_only=False" in fix for fix in answer.drift["fixes"])


def test_a_line_that_only_speaks_of_weights_only_is_not_a_refusal() -> None:
    text = ("I pass weights_only to torch.load as the docs say\n"
            "Traceback (most recent call last):\n"
            '  File "/x/train.py", line 9, in <module>\n'
            "    main()\n")
    answer = top(text)
    assert answer is None or answer.drift is None


def test_torchs_refusal_sentence_alone() -> None:
    # drift-36-comfyui_facetools-32: the report is one line of torch.load's refusal message, no error line
    answer = top((DEV / "drift-36-comfyui_facetools-32.txt").read_text())
    assert answer is not None and answer.match.entry.family == "checkpoint-io"
    assert any("weights_only=False" in fix for fix in answer.drift["fixes"])


def test_the_invalid_choice_reading_is_linear_on_a_long_line() -> None:
    """review38: "(choose from (.+)\\)" backtracked quadratically (90 s on a 1 MB line); the choices are now bounded."""
    import time

    from kb.diagnose.drift import recognise

    line = "error: argument --a: invalid choice: 'v' (choose from " * 20000  # ~1 MB
    start = time.process_time()
    recognise("", line)
    assert time.process_time() - start < 2.0

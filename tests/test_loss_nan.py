"""The loss-nan family (families/loss-nan.md): Trainer's log lines answer it only when they hold a NaN, and NaN errors
of other software (no frame of the fine-tuning stack) stay unanswered."""

from __future__ import annotations

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.knowledge.registry import load_knowledge

HEALTHY = "{'loss': 1.2345, 'grad_norm': 0.53, 'learning_rate': 0.0002, 'epoch': 0.09}\n"


def doc(text: str) -> dict:
    return diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_knowledge()))


def test_a_healthy_trainer_log_holds_no_error() -> None:
    d = doc(HEALTHY * 50)
    assert d["matches"] == [] and d["root_error"] is None


def test_a_nan_in_trainer_s_log_names_the_family_by_its_signature() -> None:
    for line in ("{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 1e-05, 'epoch': 0.53}\n",
                 "{'loss': nan, 'learning_rate': 0.0002, 'epoch': 0.09}\n"):
        top = doc(HEALTHY * 3 + line)["matches"][0]
        assert (top["family"], top["basis"]) == ("loss-nan", "family-evidence"), line


def test_an_anomaly_error_needs_a_frame_of_the_stack() -> None:
    error = "RuntimeError: Function 'MmBackward0' returned nan values in its 0th output.\n"
    other = ('Traceback (most recent call last):\n  File "/work/nerf/train.py", line 10, in <module>\n'
             '    loss.backward()\n' + error)
    ours = ('Traceback (most recent call last):\n'
            '  File "/env/lib/python3.11/site-packages/transformers/trainer.py", line 3688, in training_step\n'
            '    self.accelerator.backward(loss, **kwargs)\n' + error)
    assert doc(other)["matches"] == []
    assert doc(ours)["matches"][0]["family"] == "loss-nan"


def test_a_healthy_transformers_5_log_holds_no_error_and_its_quoted_nan_is_answered() -> None:
    """transformers 5 quotes every value of the Trainer's log; the quoted form's signatures keep the "nan" in their
    literal, so a healthy quoted log is no known message (an optional quote made every log line one)."""
    healthy = "{'loss': '1.2345', 'grad_norm': '0.53', 'learning_rate': '0.0002', 'epoch': '0.09'}\n"
    d = doc(healthy * 50)
    assert d["matches"] == [] and d["root_error"] is None
    for line in ("{'loss': '0', 'grad_norm': 'nan', 'learning_rate': '8.333e+11', 'epoch': '0.5'}\n",
                 "{'loss': 'nan', 'learning_rate': '0.0002', 'epoch': '0.09'}\n"):
        top = doc(healthy * 3 + line)["matches"][0]
        assert (top["kind"], top["id"]) == ("family", "loss-nan"), top

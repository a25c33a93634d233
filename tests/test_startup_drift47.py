"""`kb diagnose`'s start-up on inputs that reach the API-drift stage's answers (issue 26, turn 47): what the answers
import (kb/apidrift/answer.py)."""

from __future__ import annotations

from pathlib import Path


def test_a_drift_answer_reads_deprecation_messages_without_the_source_reader(tmp_path: Path) -> None:
    """(turn 47) kb/apidrift/answer.py reads a kept deprecation message with kb/apidrift/deprecation_text.py only:
    kb/apidrift/deprecations.py (a release's source: ast, dataclasses, the wheel reader's zipfile, datetime, shutil)
    is not imported by `kb diagnose` (drift-33-ai-toolkit-674: ~130 modules -> ~110)."""
    from test_startup_lazy import modules_after

    from kb.apidrift import deprecation_text, deprecations

    assert deprecations.parse_message is deprecation_text.parse_message  # (one definition)
    assert deprecation_text.parse_message("`evaluation_strategy` is deprecated. Use `eval_strategy` instead") == (
        "evaluation_strategy", "eval_strategy")
    loaded = modules_after("ImportError: cannot import name 'Repository' from 'huggingface_hub' "
                           "(/usr/lib/python3/dist-packages/huggingface_hub/__init__.py)\n", tmp_path)
    assert "kb.apidrift.answer" in loaded  # (the history answered it)
    assert not {"kb.apidrift.deprecations", "kb.apidrift.params", "kb.apidrift.wheel", "zipfile"} & loaded, \
        sorted({"kb.apidrift.deprecations", "kb.apidrift.params", "kb.apidrift.wheel", "zipfile"} & loaded)

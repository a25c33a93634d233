"""wrong49's whole-run program lines, as integrated (turn 49): kohya_ss's folder found in any of its spellings by
literals the stream's prefilter searches cheaply, and the note that says why nothing answered written whether or not a
family had answered before it (review49b: the user saw "No known case or family matches" with no reason)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PEFT_IMPORT = ("ImportError: cannot import name 'prepare_model_for_int8_training' from 'peft' "
               "(/venv/lib/python3.10/site-packages/peft/__init__.py)")  # removed in peft 0.10: api-drift elsewhere


def diagnose_json(text: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "kb", "diagnose", "-", "--format", "json"], input=text, text=True,
                         capture_output=True, cwd=REPO)
    assert out.returncode in (0, 1), out.stderr  # 1: nothing matched (docs/diagnose.md's exit codes)
    return json.loads(out.stdout)


@pytest.mark.parametrize("folder", ["kohya_ss", "Kohya_SS", "kohya-ss-linux", "KOHYA_SS"])
def test_a_kohya_ss_folder_in_any_spelling_is_its_whole_run(folder: str) -> None:
    text = f'  File "/home/me/{folder}/sd-scripts/train_x.py", line 3, in <module>\n{PEFT_IMPORT}\n'
    document = diagnose_json(text)
    assert document["matches"] == []
    assert any("kohya_ss's own output" in note for note in document["notes"]), document["notes"]


def test_the_same_error_outside_kohya_ss_answers() -> None:
    """The control: without the program's folder the import error is the stack's (an answer, not silence)."""
    text = f'  File "/home/me/project/train_x.py", line 3, in <module>\n{PEFT_IMPORT}\n'
    assert diagnose_json(text)["matches"] != []


def test_the_note_is_written_when_no_family_had_answered() -> None:
    """An error no family answers even outside the program (peft has LoraConfig in every release): the note still
    says the run is the program's (before: only when a family had answered and was dropped)."""
    text = ('  File "/home/me/kohya_ss/sd-scripts/train_x.py", line 3, in <module>\n'
            'ImportError: cannot import name "LoraConfig" from "peft"\n')
    document = diagnose_json(text)
    assert document["matches"] == []
    assert any("kohya_ss's own output" in note for note in document["notes"]), document["notes"]

"""Issue #25, drift-54's one silence made general (kb/diagnose/drift.py, _sole_changer; tests/fixtures/diagnose/drift-54-*):

a bare "__init__() got an unexpected keyword argument 'mmap'" (gpt-fast-74: torch.load hands the keywords it does not
know on to its unpickler, so a torch older than 2.1.0 says `__init__()`) read from the keyword alone answers although
the report never names torch, because no other covered callable's acceptance of `mmap` ever changed. A keyword several
covered callables changed still needs the report's own naming of the library.
"""

from __future__ import annotations

from drift_support import DEV, drift_of, top


def test_a_keyword_only_one_covered_callable_changed_answers_alone() -> None:
    section = drift_of((DEV / "drift-54-gpt-fast-74.txt").read_text())
    assert section is not None
    assert section["library"] == "torch" and section["added_in"] == "2.1.0"
    assert section["subject"] == "torch.load(mmap=...)"
    assert any("no other covered callable's acceptance of `mmap` changed" in fact for fact in section["facts"])


def test_the_same_keyword_without_its_error_form_is_not_answered() -> None:
    # the keyword in prose is not an error: nothing to read
    assert top("I set mmap=True and the run is slow\n") is None


def test_a_keyword_several_callables_changed_still_needs_the_library_named() -> None:
    from kb.diagnose.drift import _sole_changer

    # `debug`: accelerate's config classes, torch.utils.checkpoint, TrainingArguments, trl's PPOConfig (drift-33's
    # title-only report stays unanswered by the history: the reading could be any of them)
    section = {"library": "accelerate", "subject": "accelerate.commands.config.config_args.BaseConfig(debug=...)",
               "facts": ["the error names no callable: the covered accelerate callables ... agree"]}
    assert not _sole_changer(section)
    sole = {"library": "torch", "subject": "torch.load(mmap=...)",
            "facts": ["the error names no callable: the covered torch callables ... agree"]}
    assert _sole_changer(sole)


def test_a_class_read_off_a_near_name_stays_a_guess() -> None:
    from kb.diagnose.drift import _sole_changer

    near = {"library": "torch", "subject": "torch.load(mmap=...)", "facts": ["near name: `Load`"]}
    assert not _sole_changer(near)
    named = {"library": "torch", "subject": "torch.load(mmap=...)", "facts": ["`torch.load` accepts `mmap` in: ..."]}
    assert not _sole_changer(named)  # not a reading from the keyword alone: nothing for this gate to decide

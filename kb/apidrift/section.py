"""The drift section of an answer (the JSON document's ``drift`` key), and the one answer that needs nothing of the
history but that it covers the library: "No module named 'peft'", the library itself not installed.

Apart from kb/apidrift/answer.py (3,000 lines, ~300 KB compiled: ~4 million instructions to import, 98% of it not run
for this answer) so that kb/diagnose/drift.py answers that error, the one a covered library's users meet most, without
importing answer.py: the history's packed head has already told it that the library is covered (drift.py
_no_history_answer asks it first). answer.py's own answer to the form (``_module``) builds the section here too, so the
two cannot tell it differently (tests/test_startup_speed50.py compares them for every covered library).
"""

from __future__ import annotations


class Drift:
    """The drift section of one answer (the `drift` key of the JSON document)."""

    def __init__(self, form: str, library: str | None) -> None:
        self.doc: dict = {"form": form, "library": library, "subject": None, "installed": None,
                          "installed_from": None, "accepted": None, "added_in": None, "removed_in": None,
                          "renamed_to": None, "moved_to": None, "facts": [], "fixes": [], "covered": None}

    def fact(self, text: str) -> None:
        if text not in self.doc["facts"]:  # a verified entry told both as the old and as the new form: once
            self.doc["facts"].append(text)

    def fix(self, text: str) -> None:
        if text not in self.doc["fixes"]:
            self.doc["fixes"].append(text)


def not_installed(d: Drift, lib: str) -> Drift:
    """``import lib`` failed for a library the history covers, the library itself (not one of its modules): it is not
    installed where the code ran. (No release dated, no version read: nothing else of the history is asked.)"""
    d.doc["library"], d.doc["subject"] = lib, f"import {lib}"
    d.fact(f"{lib} itself is not installed in the environment that ran the code")
    d.fix(f"pip install {lib} (into the interpreter that runs the code: python -m pip install {lib})")
    return d

"""(turn 49, issue 26: start-up) An API-history answer of `kb diagnose` (drift-61-HoliTom-6: an attribute a class no
covered release exports, whose reading asks drift/'s verified entries and the private-member tables) imports none of
dataclasses, pathlib, re, copy, functools or collections: drift/'s entries are kb/knowledge/values.py Frozen values,
the nearby lines are read by reads_off_a_name (the regex it replaces, written out), the entries' regexes come from the
regex cache, the tables are read once into a list, and the answer memo copies by marshal's round trip. Each
replacement gives what it replaces: checked here against the original."""

from __future__ import annotations

import copy
import dataclasses
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.apidrift.answer import _copied, reads_off_a_name
from kb.knowledge import drift_entry
from test_startup_lazy import modules_after

REPO = Path(__file__).resolve().parent.parent
HOLITOM = (REPO / "tests" / "fixtures" / "diagnose").rglob("drift-61-HoliTom-6.txt")


def test_an_api_history_answer_imports_no_dataclasses_pathlib_re_copy_or_functools(tmp_path: Path) -> None:
    (source,) = list(HOLITOM)
    loaded = modules_after(source.read_text(encoding="utf-8"), tmp_path)
    assert {"kb.apidrift.answer", "kb.knowledge.drift_entry", "kb.apidrift.private_members"} <= loaded  # (it answered)
    assert not {"dataclasses", "inspect", "pathlib", "re", "copy", "functools", "collections", "enum"} & loaded


def _regex(text: str, name: str) -> bool:
    """What _untracked_class asked before turn 49."""
    return bool(re.search(rf"(?<![\w.])(?!self\.|cls\.)[A-Za-z_]\w*\.{re.escape(name)}(?!\w)", text))


PIECES = st.sampled_from(["a", "Z", "_", "0", "9", ".", " ", "(", "é", "ß", "٣", "K", "self", "cls", "x", "weight",
                          "model", "\n", "-", "[", "]"])


@settings(max_examples=3000, deadline=None)
@given(st.lists(PIECES, max_size=14).map("".join), st.lists(PIECES, max_size=3).map("".join))
def test_reads_off_a_name_is_the_regex(text: str, name: str) -> None:
    assert reads_off_a_name(text, name) == _regex(text, name)


@pytest.mark.parametrize(("text", "name", "found"), [
    ("tokenizer.apply_chat_template(x)", "apply_chat_template", True),
    ("self.apply_chat_template(x)", "apply_chat_template", False),
    ("cls.sp_tokenizer", "sp_tokenizer", False),
    ("a.self.sp_tokenizer", "sp_tokenizer", False),  # (the word before follows a dot)
    ("myself.sp_tokenizer", "sp_tokenizer", True),
    ("x.sp_tokenizers", "sp_tokenizer", False),
    ("9x.sp_tokenizer", "sp_tokenizer", False),
    ("éx.sp_tokenizer", "sp_tokenizer", False),
    ("(_x.sp_tokenizer)", "sp_tokenizer", True),
    ("", "", False),
])
def test_reads_off_a_name_examples(text: str, name: str, found: bool) -> None:
    assert reads_off_a_name(text, name) is found is _regex(text, name)


def _twin() -> type:
    """DriftEntry as the frozen dataclass it was (its data field neither compared nor printed)."""
    fields = [(f, object) for f in drift_entry.DriftEntry.FIELDS if f not in ("old_works", "old_works_note", "data")]
    fields += [("old_works", object, dataclasses.field(default=True)),
               ("old_works_note", object, dataclasses.field(default="")),
               ("data", object, dataclasses.field(default=None, compare=False, repr=False))]
    return dataclasses.make_dataclass("DriftEntry", fields, frozen=True)


def test_a_drift_entry_is_compared_hashed_and_printed_as_its_dataclass() -> None:
    entries = drift_entry.load_drift_entries(drift_entry.drift_folders())
    assert len(entries) > 10
    twin = _twin()
    for entry in entries[:10]:
        values = dict(zip(entry.FIELDS, entry.values()))
        other = twin(**values)
        assert repr(entry) == repr(other) and hash(entry) == hash(other)
        changed = entry.replace(data={"x": 1})  # (data is not compared)
        assert changed == entry and hash(changed) == hash(entry) and changed.data == {"x": 1}
        assert entry.replace(summary="other") != entry
        assert entry.path == Path(entry.folder) and entry.name == Path(entry.folder).name
        with pytest.raises(AttributeError):
            entry.summary = "x"  # type: ignore[misc]


def test_the_memo_copies_as_deepcopy() -> None:
    shared = ["a", {"b": (1, 2.5, None, True)}]
    doc = {"facts": shared, "again": shared, "n": 3, "set": {"x", "y"}, "nested": {"k": [shared, "z"]}}
    copied = _copied(doc)
    assert copied == copy.deepcopy(doc)
    assert copied["facts"] is copied["again"] and copied["facts"] is not shared  # (shared as in doc, and afresh)
    copied["facts"].append("new")
    assert shared == ["a", {"b": (1, 2.5, None, True)}]

    class Text(str):
        pass

    odd = {"value": Text("x")}  # (a value marshal does not keep: copy.deepcopy's)
    assert _copied(odd) == odd and type(_copied(odd)["value"]) is Text
    assert _copied(None) is None

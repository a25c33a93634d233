"""The cached signature index must give the same answers as the cases it is built from."""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import all_cases, cases_dir, load_knowledge
from kb.knowledge.index import load_index
from kb.knowledge.literal import required_literal

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        (r"expected (?:mat1 and mat2|m1 and m2) to have the same dtype", " to have the same dtype"),
        (r"CUDA out of memory\. Tried to allocate (?P<size>[\d.]+ GiB)", "CUDA out of memory. Tried to allocate "),
        (r"(?i)duplicate gpu", ""),  # case-insensitive: no literal prefilter
        (r"a|b", ""),
        (r"ab", ""),  # shorter than the minimum: not worth a prefilter
    ],
)
def test_required_literal(pattern: str, literal: str) -> None:
    assert required_literal(pattern) == literal


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([s.message.pattern for c in all_cases() for s in c.signatures]), st.text(max_size=40))
def test_literal_prefilter_never_hides_a_match(pattern: str, noise: str) -> None:
    """Whenever a signature's regex matches, its literal is in the text (so skipping is safe)."""
    literal = required_literal(pattern)
    regex = re.compile(pattern)
    # Build texts that the regex matches from each example in the pattern's own case logs.
    for case in all_cases():
        folder = case.path / "evidence"
        for log in sorted(folder.glob("*.log")) if folder.is_dir() else []:
            for line in log.read_text(encoding="utf-8", errors="replace").splitlines()[-40:]:
                text = noise + line
                if regex.search(text):
                    assert literal in text


def test_index_matches_full_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    text = (REPO / "examples" / "dtype-double-vs-float.txt").read_text().splitlines(keepends=True)
    full = [(a.match.entry.key, a.match.score, a.match.captures) for a in diagnose_lines(text, load_knowledge()).answers]
    cold = [(a.match.entry.key, a.match.score, a.match.captures) for a in diagnose_lines(text, load_index()).answers]
    assert list((tmp_path / "cache").glob("signatures-*.marshal")), "the index was not cached"
    warm = [(a.match.entry.key, a.match.score, a.match.captures) for a in diagnose_lines(text, load_index()).answers]
    assert full == cold == warm and full[0][0] == "KB0001"


def test_index_rebuilds_when_a_case_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "no-families").mkdir()
    monkeypatch.setenv("KB_FAMILIES_DIR", str(tmp_path / "no-families"))  # the real triage names cases not copied
    root = tmp_path / "cases"
    shutil.copytree(cases_dir() / "KB0001-dtype-double-vs-float", root / "KB0001-dtype-double-vs-float")
    before = load_index(root)
    assert [c.title for c in before.cases] == ["RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float"]
    case_md = root / "KB0001-dtype-double-vs-float" / "case.md"
    case_md.write_text(case_md.read_text().replace('title = "RuntimeError: expected', 'title = "Changed: expected'))
    later = time.time() + 5
    os.utime(case_md, (later, later))
    assert load_index(root).cases[0].title.startswith("Changed: expected")


def test_unwritable_cache_still_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder would go")
    monkeypatch.setenv("KB_CACHE_DIR", str(blocker / "kb"))
    assert {c.id for c in load_index().cases} == {c.id for c in all_cases()}


def test_compare_captures_by_size() -> None:
    from kb.diagnose.match import compare_captures, size_value

    assert size_value("10.00 GiB") == 10 * 2**30 and size_value("2.9 GB") == 2.9e9 and size_value("x") is None
    assert compare_captures({"unallocated": "10.00 GiB", "requested": "2.00 GiB"}, "unallocated", ">=", "requested")
    assert not compare_captures({"unallocated": "1.59 GiB", "requested": "2.90 GiB"}, "unallocated", ">=", "requested")
    assert not compare_captures({"requested": "2.90 GiB"}, "unallocated", ">=", "requested")  # missing: no match


def test_compare_differences_and_literal_sizes() -> None:
    """Old OOM messages state reserved and allocated; the idle reserve is their difference."""
    from kb.diagnose.match import compare_captures

    old = {"requested": "2.87 GiB", "allocated": "8.77 GiB", "reserved": "13.71 GiB"}  # 4.94 GiB idle
    assert compare_captures(old, "reserved-allocated", ">=", "requested")
    assert compare_captures(old, "reserved-allocated", ">=", "1 GiB")
    small = {"requested": "20.00 MiB", "allocated": "1.28 GiB", "reserved": "1.32 GiB"}  # 40 MiB idle
    assert compare_captures(small, "reserved-allocated", ">=", "requested")
    assert not compare_captures(small, "reserved-allocated", ">=", "1 GiB")
    assert not compare_captures({"requested": "1 GiB"}, "reserved-allocated", ">=", "requested")


@pytest.mark.parametrize(
    "rule, needle",
    [
        ('[["reserved-alocated", ">=", "requested"]]', "names no capture"),
        ('[["unallocated", "=>", "requested"]]', "unknown operator"),
        ('[["unallocated", ">="]]', r"\[left, op, right\]"),
    ],
)
def test_bad_compare_is_a_case_error(tmp_path: Path, rule: str, needle: str) -> None:
    import shutil

    from kb.knowledge.load import KnowledgeError, load_case

    source = next((REPO / "cases").glob("KB0016-*"))
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    text = (folder / "case.md").read_text(encoding="utf-8")
    first = text.index('compare = [["unallocated"')
    end = text.index("\n", first)
    (folder / "case.md").write_text(text[:first] + f"compare = {rule}" + text[end:], encoding="utf-8")
    with pytest.raises(KnowledgeError, match=needle):
        load_case(folder)

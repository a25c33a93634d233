"""Tidy checks that keep the case registry honest (in the spirit of Rust's tidy): `kb check` on the knowledge.

The rules live in kb/tidy (one problem per thing wrong, naming the file); this file asserts that the
knowledge keeps every one of them, one test per rule, and that `kb check` passes. tests/test_tidy.py
seeds each defect into a small copy and checks the message.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.knowledge.registry import all_cases, case_folders, find_case
from kb.tidy import RULES, Report

CASES = all_cases()


@pytest.fixture(scope="module")
def report(knowledge_report: Report) -> Report:
    """``check()`` of the knowledge, computed once per run (tests/conftest.py's knowledge_report): under pytest-xdist
    each worker that ran one of this module's tests ran its own (a whole `kb check`, the slowest setup)."""
    return knowledge_report


def test_every_case_folder_loads() -> None:
    assert len(CASES) == len(case_folders()) >= 2


@pytest.mark.parametrize("rule", list(RULES))
def test_the_knowledge_keeps_the_rule(report: Report, rule: str) -> None:
    problems = report.of(rule)
    assert not problems, f"{RULES[rule]}:\n" + "\n".join(p.line() for p in problems)


def test_the_check_reads_everything(report: Report) -> None:
    assert report.cases == len(CASES) and report.families >= 20 and report.examples >= 1
    assert report.inputs > sum(1 for c in CASES for _ in (c.path / "evidence").glob("*.log"))


def test_kb_check_passes_on_the_knowledge(report: Report, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """`kb check` says clean on one line. Its check is this module's report (the same check() of the same knowledge,
    which diagnoses every example output: run once per process, not twice; .ci/run runs the command itself)."""
    import kb.tidy
    from kb.cli import main

    monkeypatch.setattr(kb.tidy, "check", lambda roots=None: report)

    assert main(["check"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"kb check: clean ({len(CASES)} cases, ") and out.count("\n") == 1


def test_find_case_by_id_slug_and_folder() -> None:
    case = CASES[0]
    assert find_case(case.id.lower()) is case
    assert find_case(case.slug) is case
    assert find_case(case.folder_name) is case


def test_authoring_field_tables_are_generated_from_the_schema() -> None:
    from kb.knowledge.schema import replace_generated

    doc = (Path(__file__).parent.parent / "docs" / "authoring.md").read_text(encoding="utf-8")
    assert replace_generated(doc) == doc, "run: python -m kb.knowledge.schema --write"


def test_a_misspelled_key_fails_to_load_naming_file_and_key(tmp_path: Path) -> None:
    import shutil

    from kb.knowledge.load import load_case
    from kb.knowledge.model import KnowledgeError

    source = find_case("KB0001").path
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    text = (folder / "case.md").read_text(encoding="utf-8")
    (folder / "case.md").write_text(text.replace("hints = [", "hintz = [", 1), encoding="utf-8")
    with pytest.raises(KnowledgeError, match=r"case\.md\.signatures\[0\]: unknown key 'hintz'"):
        load_case(folder)

"""Tidy checks that keep the case registry honest (in the spirit of Rust's error-code tidy)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.knowledge.model import Case, Knowledge
from kb.knowledge.load import ID_PATTERN, REQUIRED_SECTIONS, SLUG_PATTERN
from kb.knowledge.schema import STATUSES
from kb.diagnose.diagnosis import diagnose_lines
from kb.reproduce.evidence import observed
from kb.reproduce.profiles import PROFILES
from kb.knowledge.registry import all_cases, case_folders, find_case

CASES = all_cases()
CASE_IDS = [c.id for c in CASES]


def test_every_case_folder_loads() -> None:
    assert len(CASES) == len(case_folders()) >= 2


def test_ids_and_slugs_are_unique_and_well_formed() -> None:
    ids = [c.id for c in CASES]
    slugs = [c.slug for c in CASES]
    assert len(set(ids)) == len(ids), f"duplicate IDs: {sorted(ids)}"
    assert len(set(slugs)) == len(slugs), f"duplicate slugs: {sorted(slugs)}"
    for case in CASES:
        assert ID_PATTERN.match(case.id), case.id
        assert SLUG_PATTERN.match(case.slug), case.slug
        assert case.folder_name == f"{case.id}-{case.slug}", f"{case.folder_name} should be {case.id}-{case.slug}"
        assert case.status in STATUSES, f"{case.id}: status {case.status!r}"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_required_sections_present_in_order(case: Case) -> None:
    present = [h for h in case.sections if h in REQUIRED_SECTIONS]
    assert present == list(REQUIRED_SECTIONS), f"{case.id}: sections {list(case.sections)}"
    for heading in REQUIRED_SECTIONS:
        assert case.sections[heading].strip(), f"{case.id}: section '{heading}' is empty"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_metadata_is_complete(case: Case) -> None:
    assert case.title and case.summary and case.setting, case.id
    assert case.sources, f"{case.id}: no sources"
    assert case.hardware and all(h in PROFILES for h in case.hardware), f"{case.id}: hardware {case.hardware}"
    assert "observed" in case.versions, f"{case.id}: [versions] observed missing"
    if case.status != "unreproduced":
        assert case.reproductions, f"{case.id}: an active case needs a reproduction"
        assert case.signatures, f"{case.id}: no signatures"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_reproductions_are_consistent(case: Case) -> None:
    names = [r.name for r in case.reproductions]
    assert len(set(names)) == len(names), f"{case.id}: duplicate reproduction names"
    for rep in case.reproductions:
        assert (case.path / rep.failing).is_file(), f"{case.id}: {rep.failing} missing"
        assert (case.path / rep.fixed).is_file(), f"{case.id}: {rep.fixed} missing"
        assert case.program_source(rep.failing) != case.program_source(rep.fixed)
        assert all(h in PROFILES for h in rep.hardware), f"{case.id} {rep.name}: {rep.hardware}"
        expect = rep.failing_expect
        assert expect.signature or expect.measures, f"{case.id} {rep.name}: failing_expect asserts nothing"
        if expect.signature:
            case.signature(expect.signature)  # raises KeyError when unknown
            assert expect.raised_in, f"{case.id} {rep.name}: say where the library raises (raised_in)"


def _failing_logs(case: Case) -> list[tuple[dict, Path]]:
    runs = []
    for run in observed(case):
        if run["program"] == "failing" and run.get("exception"):
            runs.append((run, case.path / "evidence" / run["log"]))
    return runs


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_signatures_match_own_recorded_output_and_no_other_case(case: Case) -> None:
    logs = _failing_logs(case)
    if not logs:
        pytest.skip(f"{case.id} has no recorded failing run with an exception")
    for run, log in logs:
        lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
        diagnosis = diagnose_lines(lines, Knowledge(CASES, (), {}))
        matched = [a.match.entry.key for a in diagnosis.answers]
        assert matched and matched[0] == case.id, f"{log}: top match {matched}, expected {case.id}"
        others = [m for m in matched if m != case.id]
        assert not others, f"{log}: also matched by {others}: make their signatures more specific"


def test_evidence_files_are_runner_written() -> None:
    required = {"case", "reproduction", "program", "profile", "outcome", "date", "versions", "log"}
    for case in CASES:
        folder = case.path / "evidence"
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            data = json.loads(path.read_text())
            assert required <= set(data), f"{path}: missing {required - set(data)}"
            assert data["case"] == case.id
            assert (folder / data["log"]).is_file(), f"{path}: log {data['log']} missing"
            assert path.stem == f"{data['reproduction']}.{data['program']}.{data['profile']}"


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


def test_every_case_names_a_family_with_a_file_and_every_family_has_a_triage() -> None:
    from kb.knowledge.registry import all_families

    families = {f.name: f for f in all_families()}
    assert len(families) >= 20
    for case in CASES:
        assert case.family in families, case.id
    for family in families.values():
        assert family.triage and family.fix_template.strip() and family.sections.get("What it means")


def test_kb_new_scaffolds_a_case_that_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from kb.knowledge.load import load_case
    from kb.knowledge.scaffold import new_case

    root = tmp_path / "cases"
    shutil.copytree(find_case("KB0001").path, root / find_case("KB0001").folder_name)
    manifest = tmp_path / "manifest.toml"
    manifest.write_text("# dev set\n", encoding="utf-8")
    folder = new_case("my-new-failure", "dtype-mismatch", root, manifest)
    assert folder.name == "KB0002-my-new-failure"
    case = load_case(folder)
    assert (case.id, case.slug, case.family) == ("KB0002", "my-new-failure", "dtype-mismatch")
    assert case.reproductions[0].hardware == ("cpu",)  # inherited from the case
    assert 'expect = "my-new-failure"' in manifest.read_text(encoding="utf-8")


def test_every_triage_entry_names_an_existing_case() -> None:
    from kb.knowledge.registry import all_families

    slugs = {c.slug for c in CASES}
    for family in all_families():
        for i, entry in enumerate(family.triage):
            assert not entry.case or entry.case in slugs, f"{family.file}: triage[{i}].case {entry.case!r}"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_recorded_failures_are_recognised_as_their_family(case: Case) -> None:
    """Each recorded failing log is answered within the case's family: by the case, or by the family itself
    (whose broad signatures cover every wording of its kind of error)."""
    from kb.knowledge.registry import load_knowledge

    logs = _failing_logs(case)
    if not logs:
        pytest.skip(f"{case.id} has no recorded failing run with an exception")
    knowledge = load_knowledge()
    for _run, log in logs:
        answers = diagnose_lines(log.read_text(encoding="utf-8").splitlines(keepends=True), knowledge).answers
        assert answers and answers[0].family == case.family, (
            f"{log}: top answer {answers[0] if answers else None}, expected family {case.family}")

"""The generated docs pages: what each case page says, for real cases and for every status."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from browser.synthetic_cases import write_cases
from kb.site import build, indexes, markdown
from kb.site import case_page as case_pages
from kb.knowledge.model import Case
from kb.knowledge.load import load_case
from kb.reproduce.evidence import observed
from kb.knowledge.registry import all_cases, case_folders
from kb.site.render import program_diff
from kb.diagnose.textclean import ANSI
from kb.reproduce.verification import CPU_ONLY, NO_REPRODUCTION, UNVERIFIED, VERIFIED_GPU, verification


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Case]:
    root = write_cases(tmp_path_factory.mktemp("cases"))
    return {c.id: c for c in (load_case(f) for f in case_folders(root))}


def _section(page: str, heading: str) -> str:
    """The text under ``## heading`` up to the next level-2 heading."""
    m = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", page, re.S | re.M)
    assert m, f"no '## {heading}' section"
    return m[1]


@pytest.mark.parametrize("case", all_cases(), ids=lambda c: c.id)
def test_real_case_page(case: Case) -> None:
    page = case_pages.case_page(case)
    assert page.splitlines()[0] == "---"
    assert f"# {markdown.md_escape(case.title)}\n" in page
    for heading in ("Symptom", "Where it happened", "Why it happens", "Fix", "What did not work",
                    "When this does not apply", "Versions", "Verification", "How `kb diagnose` recognises it",
                    "How to run it", "Sources"):
        _section(page, heading)
    runs = observed(case)
    symptom = _section(page, "Symptom")
    run = case_pages.latest_symptom_run(case, runs)
    if run is None:
        assert "No recorded run yet" in symptom
    else:
        # The symptom is the recorded log, not retyped: its last line is on the page.
        log = ANSI.sub("", (case.path / "evidence" / run["log"]).read_text(encoding="utf-8")).rstrip().splitlines()
        assert log[-1].strip() in symptom
        if run.get("exception"):
            assert run["exception"]["message"].strip() in symptom  # the page drops trailing spaces
    for rep in case.reproductions:
        diff = program_diff(case, rep)
        added = [line for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
        assert added, f"{case.id} {rep.name}: failing and fixed programs do not differ"
        assert added[0] in _section(page, "Fix")
    assert verification(case, runs).headline in _section(page, "Verification")


def test_real_site_pages_cover_every_case() -> None:
    cases = all_cases()
    pages = build.site_pages(cases)
    for case in cases:
        assert case_pages.page_path(case) in pages
        assert f"({case_pages.page_path(case)})" in pages["errors.md"] or not case.signatures
        for lib in case.libraries:
            assert f"## {markdown.md_escape(lib)}" in pages["libraries.md"]
    assert {"cases/index.md", "errors.md", "libraries.md", "hardware.md"} <= set(pages)


def test_gpu_evidence_on_emulated_profile(synthetic: dict[str, Case]) -> None:
    case = synthetic["KB9001"]
    status = verification(case)
    assert status.state == VERIFIED_GPU
    assert "profile `t4` on NVIDIA H100" in status.headline
    assert "torch 2.5.1" in status.headline and "transformers 4.46.0" in status.headline
    assert "2026-01-02" in status.headline and "emulated" in status.headline
    page = case_pages.case_page(case)
    assert "RuntimeError: boom on the recorded run" in _section(page, "Symptom")  # the log, verbatim
    assert "Profile `t4` is emulated" in _section(page, "How to run it")
    assert "`shared/incidents/example.md`" in _section(page, "Sources")


def test_no_evidence_falls_back_to_the_incident_symptom(synthetic: dict[str, Case]) -> None:
    case = synthetic["KB9002"]
    status = verification(case)
    assert status.state == UNVERIFIED and status.headline == "Unverified: no recorded run yet"
    symptom = _section(case_pages.case_page(case), "Symptom")
    assert "No recorded run yet" in symptom and "out of memory while processing a batch" in symptom


def test_fixed_upstream_with_variants(synthetic: dict[str, Case]) -> None:
    case = synthetic["KB9003"]
    status = verification(case)
    assert status.state == CPU_ONLY
    assert status.headline.startswith("Fixed upstream since trl 0.12. Verified on CPU only")
    # the second variant has no evidence: the status says which one is not verified
    assert {c.reproduction for c in status.checks if not c.verified} == {"second-variant"}
    page = case_pages.case_page(case)
    fix = _section(page, "Fix")
    assert "### Use instead: `failing.py` → `fixed.py` (reproduction `default`)" in fix
    assert "### Use instead: `other_failing.py` → `fixed.py` (reproduction `second-variant`)" in fix
    assert "kb reproduce KB9003 --variant second-variant" in _section(page, "How to run it")
    versions = _section(page, "Versions")
    assert "**Fixed upstream:** trl 0.12" in versions
    assert "`trl >=0.11,<0.12`: before the rename" in versions
    assert "**Reproduction `default` runs pinned to:** `trl==0.11.4`" in versions
    # an admonition title must stay on one line and unbroken by quotes
    assert re.search(r'^!!! info "Fixed upstream since trl 0\.12; verified on CPU only"$', page, re.M)


def test_retired_case_with_a_run_that_no_longer_reproduces(synthetic: dict[str, Case]) -> None:
    case = synthetic["KB9004"]
    status = verification(case)
    assert status.state == UNVERIFIED
    assert status.title.startswith("Retired")
    assert status.notes == ("default on `gpu`: latest failing run: not-reproduced (2026-01-04); no recorded fixed run",)
    page = case_pages.case_page(case)
    assert "!!! abstract" in page
    assert "No recorded run yet" in _section(page, "Symptom")  # a run that did not reproduce is no symptom


def test_unreproduced_case_without_reproductions(synthetic: dict[str, Case]) -> None:
    case = synthetic["KB9005"]
    status = verification(case)
    assert status.state == NO_REPRODUCTION and status.title.startswith("Unreproduced")
    page = case_pages.case_page(case)
    assert "no reproduction to run" in _section(page, "How to run it")
    assert "has no signature" in _section(page, "How `kb diagnose` recognises it")


def test_index_pages_group_synthetic_cases(synthetic: dict[str, Case]) -> None:
    pages = build.site_pages(synthetic.values())
    assert "## TypeError" in pages["errors.md"] and "## RuntimeError" in pages["errors.md"]
    assert "(no exception: a silent failure)" in pages["errors.md"]  # KB9005 has no signature
    hardware = pages["hardware.md"]
    t4 = hardware.split("## `t4`", 1)[1].split("## ", 1)[0]
    assert "KB9001" in t4 and "verified on this profile" in t4 and "Emulated" in t4
    assert "[KB9004](KB9004-retired-case.md)" in pages["cases/index.md"]
    inserts = indexes.home_inserts(synthetic.values())
    assert "`shared/incidents/example.md`" in inserts["incidents"]
    assert inserts["counts"] == (
        "5 cases (1 verified on GPU, 1 verified on CPU only, 2 unverified, 1 without a reproduction)."
    )


def test_fence_outlasts_backticks_and_escape_keeps_text_literal() -> None:
    block = markdown.fence("a ```` b")
    assert block.startswith("`````text\n") and block.endswith("\n`````")
    assert markdown.md_escape("<module> processing_class *x* a|b") == r"\<module\> processing\_class \*x\* a\|b"


def test_links_between_case_folders_point_at_pages() -> None:
    assert case_pages._rewrite_case_links("see [x](../KB0003-foo-bar/case.md#fix)") == "see [x](KB0003-foo-bar.md#fix)"


def test_mentions_of_other_cases_become_links_outside_code() -> None:
    known = {"KB0003": "KB0003-device-mismatch", "KB0001": "KB0001-self"}
    text = "See KB0003 and KB0099.\n`KB0003` stays code; KB0001 is this page.\n```text\nKB0003\n```\n[KB0003](x.md)"
    assert case_pages.link_case_ids(text, known, "KB0001") == (
        "See [KB0003](KB0003-device-mismatch.md) and KB0099.\n`KB0003` stays code; KB0001 is this page.\n"
        "```text\nKB0003\n```\n[KB0003](x.md)"
    )


def test_diagnose_links_to_the_pages_the_site_generates() -> None:
    """kb diagnose names page URLs without importing the site code: both must agree on the layout."""
    from kb import site_url
    from kb.diagnose.document import page_url
    from kb.knowledge.registry import all_families
    from kb.site.family_page import family_page_path

    pages = build.site_pages(all_cases())
    for entry, path in [(c, case_pages.page_path(c)) for c in all_cases()] + [
            (f, family_page_path(f.name)) for f in all_families()]:
        assert path in pages and page_url(entry) == site_url() + path[: -len(".md")] + "/"


def test_mkdocs_site_url_is_kbs() -> None:
    import kb

    text = (Path(__file__).parent.parent / "mkdocs.yml").read_text(encoding="utf-8")
    assert f"site_url: {kb.SITE_URL}\n" in text

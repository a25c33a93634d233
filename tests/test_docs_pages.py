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


PAGE_ORDER = ("Fix", "Symptom", "Why it happens", "What did not work", "When this does not apply", "Programs",
              "Recorded output", "Verification", "Versions", "How `kb diagnose` recognises it", "How to run it",
              "Sources")
FOLDED = ("Programs", "Recorded output", "Versions")  # their bodies sit in collapsible blocks


@pytest.mark.parametrize("case", all_cases(), ids=lambda c: c.id)
def test_real_case_page(case: Case) -> None:
    page = case_pages.case_page(case)
    assert page.splitlines()[0] == "---"
    title = case_pages.breakable(markdown.md_escape(case.title))
    assert f"# {title}\n" in page
    headings = re.findall(r"^## (.+)$", page, re.M)
    # The fix first; the order after it; the folded details at the end.
    assert [h for h in headings if h in PAGE_ORDER] == list(PAGE_ORDER), headings
    fix = _section(page, "Fix")
    if case.fix_snippet.strip():
        assert case.fix_snippet.strip().splitlines()[-1].strip() in fix
        assert fix.lstrip().startswith("```python")  # the snippet is the first thing under the heading
    for heading in FOLDED:
        body = _section(page, heading).strip()
        assert body.startswith("??? ") or body.startswith("_"), f"{heading} is not folded: {body[:80]!r}"
    assert f"family: [{case.family}](../families/{case.family}.md)" in page
    runs = observed(case)
    symptom = _section(page, "Symptom")
    run = case_pages.latest_symptom_run(case, runs)
    if run is None:
        assert "No recorded run yet" in symptom
    else:
        # The symptom is the recorded log, not retyped: its last line is on the page, and the
        # error's message is in the symptom section itself (the whole log is folded below).
        log = ANSI.sub("", (case.path / "evidence" / run["log"]).read_text(encoding="utf-8")).rstrip().splitlines()
        assert log[-1].strip() in symptom
        assert log[-1].strip() in _section(page, "Recorded output")
        if run.get("exception"):
            assert run["exception"]["message"].strip().splitlines()[0].strip() in symptom
    for rep in case.reproductions:
        diff = program_diff(case, rep, code_only=True)
        added = [line for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
        assert added or program_diff(case, rep), f"{case.id} {rep.name}: failing and fixed programs do not differ"
        if added:
            assert added[0] in _section(page, "Programs")
    assert verification(case, runs).headline in _section(page, "Verification")
    for src in case.sources:
        name = markdown.incident_name(src.get("url", ""))
        if name:
            assert f"](../incidents/{name}.md)" in _section(page, "Sources")


def test_code_diff_leaves_out_docstring_and_comment_only_hunks(tmp_path: Path) -> None:
    from kb.knowledge.reproductions import Reproduction  # noqa: F401 (the type program_diff takes)

    failing = '"""Old docstring."""\nimport os\n\n\n\n\n\n\nx = 1  # note\n# a comment\nprint(x)\n'
    fixed = '"""New docstring,\nnow two lines."""\nimport os\n\n\n\n\n\n\nx = 2  # note\n# another comment\nprint(x)\n'
    from kb.site.render import code_lines
    assert code_lines(failing) == {2, 9, 11}
    assert code_lines(fixed) == {3, 10, 12}

    class Rep:
        failing, fixed = "failing.py", "fixed.py"

    class FakeCase:
        @staticmethod
        def program_source(name: str) -> str:
            return failing if name == "failing.py" else fixed

    full = program_diff(FakeCase, Rep)  # type: ignore[arg-type]
    code = program_diff(FakeCase, Rep, code_only=True)  # type: ignore[arg-type]
    assert "+now two lines." in full and "docstring" not in code
    assert "-x = 1  # note" in code and "+x = 2  # note" in code and "+# another comment" in code


def test_breakable_headline_breaks_after_dots_and_underscores_only() -> None:
    text = markdown.md_escape("torch.OutOfMemoryError: in prepare_model(x)")
    assert case_pages.breakable(text) == r"torch.<wbr>OutOfMemoryError: in prepare\_<wbr>model(<wbr>x)"


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
    assert "[Incident](../incidents/example.md)" in _section(page, "Sources")


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
    programs = _section(page, "Programs")
    assert '??? example "Use instead: failing.py → fixed.py (reproduction default)"' in programs
    assert '??? example "Use instead: other_failing.py → fixed.py (reproduction second-variant)"' in programs
    assert programs.count('(whole program)"') == 3  # fixed.py is shown once though both variants use it
    assert "kb reproduce KB9003 --variant second-variant" in _section(page, "How to run it")
    versions = _section(page, "Versions")
    assert "**Fixed upstream:** trl 0.12" in versions
    assert "`trl >=0.11,<0.12`: before the rename" in versions
    assert "**Reproduction `default`:** both programs run pinned to `trl==0.11.4`" in versions  # kb.knowledge.pins.pins_text
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
    assert "(incidents/example.md)" in inserts["incidents"]
    assert "incidents/example.md" in pages and "[KB9001" in pages["incidents/example.md"]
    assert inserts["counts"] == (
        "5 cases (1 verified on GPU, 1 verified on CPU only, 2 unverified, 1 without a reproduction)."
    )


def test_fence_outlasts_backticks_and_escape_keeps_text_literal() -> None:
    block = markdown.fence("a ```` b")
    assert block.startswith("`````text\n") and block.endswith("\n`````")
    assert markdown.md_escape("<module> processing_class *x* a|b") == r"&lt;module\> processing\_class \*x\* a\|b"


@pytest.mark.parametrize("text", ["transformers <= 4.33", "died with <Signals.SIGKILL: 9>", "<script>alert(1)</script>",
                                  "a &lt; b && c", "x_y *z* [a](b) a|b # \\ `c`", "<img src=x onerror=alert(1)>"])
def test_escaped_text_renders_as_written(text: str) -> None:
    """(audit50) md_escape wrote ``\\<``, which Python-Markdown does not take as an escape: the site showed
    ``transformers \\<= 4.33`` with its backslash; a ``&lt;`` of the text showed as ``<``. Rendered by the site's
    Markdown (headings, table cells, the details' titles), the text reads as written and makes no tag."""
    md = pytest.importorskip("markdown")
    from html import unescape

    exts = ["tables", "attr_list", "md_in_html", "admonition", "pymdownx.details", "pymdownx.superfences"]
    escaped = markdown.md_escape(text)
    for source, tag in [(escaped, "p"), (f"# {escaped}", "h1"), (f"| a |\n|---|\n| {escaped} |", "td"),
                        (f'??? failure "{escaped}"\n\n    body', "summary")]:
        html = md.markdown(source, extensions=exts)
        inner = re.search(rf"<{tag}[^>]*>(.*?)</{tag}>", html, re.S)
        assert inner is not None, html
        assert "<" not in inner[1] and unescape(inner[1]) == text, (source, html)


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


def test_incident_stories_name_real_cases_and_pages_list_every_citing_case() -> None:
    from kb.site.incident_page import cited_incidents, incident_page_path, stories

    cases = all_cases()
    ids = {c.id for c in cases}
    told = stories()
    cited = cited_incidents(cases)
    assert set(cited) <= set(told), f"reports cited without a story in incidents/: {sorted(set(cited) - set(told))}"
    pages = build.site_pages(cases)
    for name, story in told.items():
        named = [c for a in story["attempts"] for c in a["cases"]]
        assert set(named) <= ids, f"incidents/{name}.toml names unknown cases {sorted(set(named) - ids)}"
        page = pages[incident_page_path(name)]
        steps = _section(page, "The attempts, in order")
        assert len(re.findall(r"^\d+\. \*\*Tried:\*\*", steps, re.M)) == len(story["attempts"])
        for case in cited.get(name, []) + [c for c in cases if c.id in named]:
            assert f"](../cases/{case.folder_name}.md)" in page, f"{name}: {case.id} is not linked"


@pytest.mark.parametrize("case_id", ["KB0007", "KB0003", "KB0017"])
def test_kb_show_prints_in_the_page_order(case_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from kb.cli.commands import cmd_show
    from kb.knowledge.registry import find_case

    case = find_case(case_id)
    assert cmd_show(argparse.Namespace(case=case_id, format="text")) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == case.title
    order = ["\nFix\n---", "\nVerification\n", "\nSymptom\n", "\nWhy it happens\n", "\nWhat did not work\n",
             "\nWhen this does not apply\n", "\nUse instead (" if case.reproductions else "\nObserved\n"]
    positions = [out.find(marker) for marker in order]
    assert -1 not in positions and positions == sorted(positions), list(zip(order, positions))
    if case.fix_snippet.strip():
        assert out.index(case.fix_snippet.strip().splitlines()[0]) < out.index("\nVerification\n")


def test_readable_wording_of_a_signature_regex() -> None:
    from kb.site.wording import readable

    rx = r"CUDA out of memory\. Tried to allocate (?P<requested>[\d.]+ [KMG]iB)(?: \(GPU (?P<device>\d+)\))?"
    assert readable(rx) == "CUDA out of memory. Tried to allocate … (GPU …)"
    assert readable(rx, names=True) == "CUDA out of memory. Tried to allocate {requested} (GPU {device})"
    assert readable(r"^Can\x27t find (?:a file|files) named \S+$") == "Can't find a file named …"
    assert readable(r"(?i)(?<![\w.])Error(?=:)") == "Error"


def test_family_page_puts_the_triage_first_and_every_wording_as_a_heading() -> None:
    from kb.knowledge.registry import all_families
    from kb.site.family_page import family_page

    cases = all_cases()
    for family in all_families():
        page = family_page(family, cases)
        headings = re.findall(r"^## (.+)$", page, re.M)
        assert headings[0].startswith("Triage"), (family.name, headings[:2])
        assert len(re.findall(r"^#### ", page, re.M)) == len(family.signatures)
        for t in family.triage:
            case = next((c for c in cases if c.slug == t.case), None)
            if case:
                assert f"(../cases/{case.folder_name}.md)" in _section(page, headings[0])

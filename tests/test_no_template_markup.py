"""No fix-template markup (``{requested}``, ``{requested|...}``, ``{kwarg|}``) ever reaches a user.

Fix templates (cases' and families' ``[fix] template``) hold placeholders that kb/diagnose/match.py's
fill_template fills from what the output showed, or sets to their fallback. Everything that prints a
template must fill it: `kb show` and `kb explain` (text and JSON) for every case and family, the docs
site's pages, and `kb diagnose` (text and JSON) over every example and every dev-set output.

The detector looks for the placeholders the templates really use, by name: code in a fix is full of
legitimate braces (``device_map={"": 0}``, a dict comprehension, an f-string's ``{i}``), which must not
count. A template's placeholder names are those it writes with a fallback (``{name|...}``) and the bare
``{name}`` its signatures capture (what such a placeholder is filled from); any ``{identifier|...}`` counts too.
Everything runs in this process (one `kb diagnose` per input would take minutes).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from functools import cache
from pathlib import Path

import pytest
from devset_documents import taken

from kb.cli import main
from kb.render.diagnosis import format_diagnosis
from kb.diagnose.advice import fill_keywords, with_fallbacks
from kb.diagnose.match import fill_template
from kb.knowledge.examples import devset_manifest
from kb.knowledge.model import Case, Family
from kb.knowledge.paths import folder
from kb.knowledge.registry import all_cases, all_families
from kb.site.case_page import case_page
from kb.site.family_page import family_page

ENTRIES: list[Case | Family] = [*all_cases(), *all_families()]
_TEMPLATE_NAME = re.compile(r"\{([A-Za-z_]\w*)(\|[^{}\n]*)?\}")


def placeholders(entry: Case | Family) -> frozenset[str]:
    """The names ``entry``'s template uses as placeholders: those written with a fallback, and the bare
    ``{name}`` its signatures capture (``{i}`` in ``f"model.layers.{i}"`` is code)."""
    captured = {name for s in entry.signatures for name in s.message.groupindex}
    return frozenset(m.group(1) for m in _TEMPLATE_NAME.finditer(entry.fix_template)
                     if m.group(2) is not None or m.group(1) in captured)


@cache
def placeholder_names() -> frozenset[str]:
    """Every template's placeholder names."""
    return frozenset().union(*(placeholders(e) for e in ENTRIES))


@cache
def detector(names: frozenset[str]) -> re.Pattern[str]:
    alternatives = "|".join(sorted(names, key=len, reverse=True)) or "(?!)"
    return re.compile(rf"\{{(?:{alternatives})(?:\|[^{{}}\n]*)?\}}|\{{[A-Za-z_]\w*\|[^{{}}\n]*\}}")


def markup(text: str, names: frozenset[str] | None = None) -> list[str]:
    """Every placeholder named in ``names`` (default: any template's) left in ``text``, and any ``{name|...}``.

    A page or `kb show` of one entry is searched for that entry's own placeholders: it also shows the case's
    programs, whose f-strings may use a name that another template captures (``f"... on {device}"``)."""
    found = set(detector(placeholder_names() if names is None else names).findall(text))
    found |= set(re.findall(r"\{kw:[^{}\n]*\}", text))  # an API-history keyword left unspelled
    return sorted(found)


def without_programs(text: str, entry: Case | Family) -> str:
    """``text`` without the lines of the case's programs (`kb show`'s diff, a page's listings): their f-strings
    are code (``f"rank {rank}: ..."``), whatever names the templates use."""
    if not isinstance(entry, Case):
        return text
    programs = {line.strip() for rep in entry.reproductions for name in (rep.failing, rep.fixed)
                for line in entry.program_source(name).splitlines() if line.strip()}
    return "\n".join(line for line in text.splitlines() if line.lstrip(" +-").strip() not in programs)


def _run(args: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(args)
    assert code == 0, (args, code)
    return out.getvalue()


def test_the_detector_finds_placeholders_and_leaves_code_alone() -> None:
    assert {"requested", "kwarg", "repo", "trainer"} <= placeholder_names()
    assert "i" not in placeholder_names()  # f"model.layers.{i}" in a template is code
    assert markup("asked for {requested} more; `{kwarg|}` in {callable|the call}; {x|y}") == [
        "{callable|the call}", "{kwarg|}", "{requested}", "{x|y}"]
    code = 'device_map={"": 0}; {f"model.layers.{i}": 1 for i in range(48)}; {k: v for k, v in b.items()}; {a | b}'
    assert markup(code) == []


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.key)
def test_kb_show_and_explain_fill_every_template(entry: Case | Family) -> None:
    for args in (["show", entry.key], ["explain", entry.key], ["show", entry.key, "--format", "json"]):
        out = _run(args)
        if "json" in args:
            json.loads(out)
        assert markup(without_programs(out, entry), placeholders(entry)) == [], f"kb {' '.join(args)} prints template markup"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.key)
def test_docs_pages_fill_every_template(entry: Case | Family) -> None:
    page = case_page(entry) if isinstance(entry, Case) else family_page(entry, list(all_cases()))
    assert markup(without_programs(page, entry), placeholders(entry)) == [], f"the docs page of {entry.key} shows template markup"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.key)
def test_a_template_filled_from_no_capture_or_every_capture_has_no_markup(entry: Case | Family) -> None:
    """What kb diagnose prints when the output showed none of the values, or all of them."""
    names = placeholders(entry)
    assert markup(with_fallbacks(entry.fix_template), names) == []
    every = {name: "VALUE" for s in entry.signatures for name in s.message.groupindex}
    assert markup(fill_keywords(fill_template(entry.fix_template, every), {}), names) == []


def _inputs() -> list[Path]:
    examples = sorted(Path(folder("examples")).glob("*.txt"))
    dev = sorted((devset_manifest().parent / "dev").glob("*.txt"))
    assert examples and len(dev) > 100
    return examples + dev


def test_kb_diagnose_text_and_json_over_every_example_and_dev_output(devset_text_documents: dict[Path, dict]) -> None:
    """Each input's text through diagnose_lines with the shipped knowledge (tests/devset_documents.py's text_document:
    the documents tests/test_render.py renders too, computed once per run by tests/conftest.py)."""
    found: dict[str, list[str]] = {}
    answered = 0
    for path in _inputs():
        doc = taken(devset_text_documents, path)
        answered += bool(doc["matches"])
        text = format_diagnosis(doc) + format_diagnosis(doc, full=True)
        # markup the input itself holds is the input's, echoed (drift-65-SlimSAM-1 quotes torch's own f-string
        # "'{name}'" as its error line): only what kb's templates left unfilled is a defect
        with open(path, encoding="utf-8", errors="replace") as handle:
            shown = handle.read()
        left = [m for m in markup(json.dumps(doc, ensure_ascii=False)) + markup(text) if m not in shown]
        if left:
            found[path.name] = left
    assert answered > 100  # the inputs were diagnosed, not skipped
    assert not found, f"kb diagnose printed template markup: {found}"

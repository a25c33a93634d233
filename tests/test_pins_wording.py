"""One wording of a reproduction's ``pins`` / ``fixed_pins``: the case page, `kb show` and the version matrix agree.

kb/knowledge/pins.py's ``pins_text`` is the only place that phrases them; these tests hold every case with pins or
fixed_pins to it in each of the three outputs (and the rows `kb verify` wrote), so a second phrasing cannot creep in.
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path

import pytest

from kb.knowledge.model import Case
from kb.knowledge.reproductions import Reproduction
from kb.knowledge.pins import pins_text
from kb.knowledge.registry import all_cases
from kb.reproduce.matrix import cpu_profile

PINNED = [(case, rep) for case in all_cases() for rep in case.reproductions if rep.pinned]


def _ids(pair: tuple[Case, Reproduction]) -> str:
    return f"{pair[0].id}-{pair[1].name}"


def test_the_knowledge_has_reproductions_with_pins_and_with_fixed_pins() -> None:
    assert any(rep.fixed_pins is None for _, rep in PINNED) and any(rep.fixed_pins for _, rep in PINNED)


@pytest.mark.parametrize("pair", PINNED, ids=[_ids(p) for p in PINNED])
def test_the_case_page_says_it_in_the_one_wording(pair: tuple[Case, Reproduction]) -> None:
    from kb.site.case_page import versions_section

    case, rep = pair
    section = versions_section(case)
    line = next(ln for ln in section.splitlines() if f"**Reproduction `{rep.name}`:**" in ln)
    shown = line.split(":** ", 1)[1]
    assert shown == pins_text(rep, quote="`")
    assert shown.replace("`", "") == pins_text(rep)  # the same words as kb show's, Markdown aside


@pytest.mark.parametrize("case_id", sorted({c.id for c, _ in PINNED}))
def test_kb_show_says_it_in_the_one_wording(case_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    from kb.cli import main

    assert main(["show", case_id]) == 0
    out = capsys.readouterr().out
    reps = [rep for case, rep in PINNED if case.id == case_id]
    lines = [ln.removeprefix("Versions: ") for ln in out.splitlines() if ln.startswith("Versions: ")]
    assert lines == [pins_text(rep) for rep in reps]  # one line per pinned reproduction, in the case's order


CPU_PINNED = [(c, r) for c, r in PINNED if c.status != "retired" and cpu_profile(r) is not None]  # what kb verify runs


@pytest.fixture(scope="module")
def page() -> str:
    from kb.site.matrix_page import matrix_page

    return matrix_page(all_cases())


@pytest.mark.parametrize("pair", CPU_PINNED, ids=[_ids(p) for p in CPU_PINNED])
def test_the_matrix_says_it_in_the_one_wording(pair: tuple[Case, Reproduction], page: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """What `kb verify` writes for the reproduction (here skipped: no wheelhouse), the rows it wrote, and the matrix
    page's pinned list."""
    from kb.knowledge.evidence import matrix_runs
    from kb.reproduce.matrix import Stack, StackEnv, run_entry

    case, rep = pair
    profile = cpu_profile(rep)
    assert profile is not None
    monkeypatch.setenv("KB_WHEELHOUSE", str(tmp_path / "none"))
    env = StackEnv(Stack("demo", "", ()), Path(sys.executable), {"python": platform.python_version()},
                   set(rep.requires), None)
    entry = run_entry(case, rep, profile, env)
    assert entry.status == "skip" and "wheelhouse" in entry.reason and entry.pins == pins_text(rep)
    rows = [r for r in matrix_runs(case) if r.get("reproduction") == rep.name]
    assert all(r.get("pins") == pins_text(rep) for r in rows), (
        f"{case.id} {rep.name}: rows of evidence/matrix.toml phrase the pins otherwise (rerun kb verify {case.id})")
    assert f"[{case.id}](cases/" in page and f"`{rep.name}`: {pins_text(rep, quote='`')}." in page

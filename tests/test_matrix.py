"""The version matrix: requires_versions skips, verified ranges from evidence, matrix.toml, kb check, the page.

Nothing here builds a venv or runs a program: the runs are written as `kb verify` writes them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.knowledge.evidence import matrix_runs
from kb.knowledge.load import load_case
from kb.knowledge.model import Case
from kb.reproduce.matrix import Entry, behaviour_digest, cell, figure, write_entries
from kb.reproduce.ranges import fixed_since, range_text, verified_range, version_problem
from kb.reproduce.runner import cannot_run
from tests.casefiles import write_case

REPS = '''
[[reproductions]]
name = "default"
hardware = ["cpu"]
failing = "failing.py"
fixed = "fixed.py"
requires = ["torch", "transformers"]
{extra}
failing_expect = {{ signature = "boom", raised_in = {{ function = "^f$" }} }}

[[reproductions]]
name = "pinned"
hardware = ["cpu"]
failing = "failing.py"
fixed = "fixed.py"
requires = ["torch"]
pins = ["torch==2.4.1"]
failing_expect = {{ signature = "boom", raised_in = {{ function = "^f$" }} }}
'''


def make_case(tmp_path: Path, extra: str = "") -> Case:
    meta = ('id = "KB9990"\nslug = "matrix-test"\ntitle = "RuntimeError: boom"\nlibraries = ["torch", "transformers"]\n'
            '[[signatures]]\nname = "boom"\nexception = "RuntimeError"\nmessage = "boom"\n' + REPS.format(extra=extra))
    folder = write_case(tmp_path / "cases" / "KB9990-matrix-test", meta,
                        programs={"failing.py": "raise RuntimeError('boom')\n", "fixed.py": "print('ok')\n"})
    return load_case(folder)


def record(case: Case, program: str, passed: bool, versions: dict[str, str], date: str, profile: str = "cpu") -> None:
    folder = case.path / "evidence"
    folder.mkdir(exist_ok=True)
    stem = f"default.{program}.{profile}"
    data = {"case": case.id, "reproduction": "default", "program": program, "profile": profile, "passed": passed,
            "outcome": "reproduced" if program == "failing" else "fixed", "date": date, "versions": versions,
            "log": f"{stem}.log"}
    (folder / f"{stem}.json").write_text(json.dumps(data), encoding="utf-8")
    (folder / f"{stem}.log").write_text("", encoding="utf-8")


def entry(stack: str, status: str, versions: dict[str, str], reproduction: str = "default", reason: str = "") -> Entry:
    return Entry(stack, reproduction, "cpu", status, "2026-11-26T09:00:00+00:00", versions,
                 {"outcome": "reproduced", "digest": "sha256:0"}, {"outcome": "fixed", "digest": "sha256:1"}, reason)


def test_a_reproduction_outside_its_required_versions_skips_with_the_reason(tmp_path: Path) -> None:
    case = make_case(tmp_path, 'requires_versions = { transformers = ">=5.23" }')
    rep = case.reproduction("default")
    assert version_problem(rep, {"transformers": "5.17.0"}) == "needs transformers>=5.23, found transformers 5.17.0"
    assert version_problem(rep, {"transformers": "5.23.0"}) is None
    assert version_problem(rep, {}) == "needs transformers>=5.23, which is not installed"
    assert version_problem(case.reproduction("pinned"), {}) is None  # nothing required
    impossible = make_case(tmp_path / "b", 'requires_versions = { torch = ">=999" }').reproduction("default")
    reason = cannot_run(impossible, "cpu")  # what pytest's skip and `kb reproduce`'s exit 3 say
    assert reason is not None and reason.startswith("needs torch>=999, found torch ")


def test_a_pin_stands_in_for_the_installed_version(tmp_path: Path) -> None:
    case = make_case(tmp_path)
    rep = case.reproduction("pinned")
    rep.requires_versions = {"torch": "<2.5"}
    assert version_problem(rep, {"torch": "2.13.0+cpu"}) is None  # the run imports the pinned 2.4.1


def test_the_verified_range_comes_from_passing_runs_only(tmp_path: Path) -> None:
    case = make_case(tmp_path)
    rep = case.reproduction("default")
    assert verified_range(case, rep) == ()
    record(case, "failing", True, {"torch": "2.13.0+cpu", "transformers": "5.23.0"}, "2026-11-20")
    record(case, "fixed", True, {"torch": "2.13.0+cpu", "transformers": "5.23.0"}, "2026-11-20")
    write_entries(case, [entry("lowest", "pass", {"torch": "2.4.1", "transformers": "4.56.2"}),
                         entry("newest", "fail", {"torch": "2.15.0", "transformers": "5.24.0"}),
                         entry("lowest", "skip", {"torch": "2.4.1"}, "pinned", "pinned")], ["lowest", "newest"])
    # newest failed: it widens nothing; +cpu is a build, not a release
    assert range_text(verified_range(case, rep)) == "torch 2.4.1–2.13.0, transformers 4.56.2–5.23.0"
    record(case, "fixed", False, {"torch": "2.14.0", "transformers": "5.25.0"}, "2026-11-25")  # the newest fixed run failed
    assert range_text(verified_range(case, rep)) == "torch 2.4.1, transformers 4.56.2"


def test_matrix_toml_round_trips_and_replaces_the_same_stack_and_reproduction(tmp_path: Path) -> None:
    case = make_case(tmp_path)
    tricky = 'fixed: rank 0 raised TypeError: f() got an unexpected keyword argument "dtype"\nsecond line \\ done'
    write_entries(case, [entry("newest", "fail", {"torch": "2.15.0"}, reason=tricky)], ["lowest", "newest"])
    write_entries(case, [entry("lowest", "pass", {"torch": "2.4.1"})], ["lowest", "newest"])
    runs = matrix_runs(case)
    assert [(r["stack"], r["status"]) for r in runs] == [("lowest", "pass"), ("newest", "fail")]  # the stacks' order
    assert runs[1]["reason"] == tricky
    write_entries(case, [entry("newest", "pass", {"torch": "2.15.0"})], ["lowest", "newest"])
    assert [(r["stack"], r["status"]) for r in matrix_runs(case)] == [("lowest", "pass"), ("newest", "pass")]


def test_the_digest_is_of_the_behaviour_not_of_paths_or_addresses() -> None:
    def rank(path: str, message: str) -> dict[str, object]:
        return {"status": "exception", "exception": {"type": "torch.OutOfMemoryError", "message": message,
                                                     "frames": [{"file": f"{path}/torch/nn/functional.py", "function": "linear"}]}}

    a = behaviour_digest("reproduced", [rank("/root/a/site-packages", "at 0x7f00aa tried /tmp/kb-x/w/f.py")], {"steps": 2.0, "loss": 1.234})
    b = behaviour_digest("reproduced", [rank("/opt/venv/lib/site-packages", "at 0x55bb tried /tmp/kb-y/w/f.py")], {"steps": 2.0, "loss": 1.5})
    c = behaviour_digest("reproduced", [rank("/opt/venv/lib/site-packages", "another message")], {"steps": 2.0})
    d = behaviour_digest("reproduced", [rank("/root/a/site-packages", "at 0x7f00aa tried /tmp/kb-x/w/f.py")], {"steps": 3.0})
    assert a == b and a != c and a != d and a.startswith("sha256:")
    # a rank that died before reporting (its pid changes each run) adds nothing the outcome does not say
    died = {"rank": 0, "status": "running", "pid": 4242}
    assert behaviour_digest("reproduced", [died], {"host_oom_kills": 1.0}) == behaviour_digest("reproduced", [], {"host_oom_kills": 1.0})


def test_cells_and_the_figure(tmp_path: Path) -> None:
    case = make_case(tmp_path)
    assert cell(case, "lowest")[0] == "skip"
    write_entries(case, [entry("lowest", "pass", {"transformers": "4.56.2"}),
                         entry("newest", "skip", {"transformers": "5.24.0"}, reason="needs transformers<5")],
                  ["lowest", "newest"])
    assert cell(case, "lowest") == ("pass", "1 of 1 reproductions")  # the pinned reproduction is not the stack's
    assert cell(case, "newest") == ("skip", "default: needs transformers<5")
    assert figure([case]) == (0, 1)
    write_entries(case, [entry("newest", "pass", {"transformers": "5.24.0"})], ["lowest", "newest"])
    assert figure([case]) == (1, 1)


def test_fixed_since_needs_a_stack_above_every_failing_one(tmp_path: Path) -> None:
    case = make_case(tmp_path)
    rep = case.reproduction("default")
    write_entries(case, [entry("lowest", "does-not-fail", {"transformers": "4.40.0"})], ["lowest", "newest", "latest"])
    assert fixed_since(case, rep) == ""  # it never failed on a stack: no release fixed anything
    write_entries(case, [entry("newest", "pass", {"transformers": "5.24.0"}),
                         entry("latest", "does-not-fail", {"transformers": "5.25.0"})], ["lowest", "newest", "latest"])
    write_entries(case, [entry("lowest", "pass", {"transformers": "4.56.2"})], ["lowest", "newest", "latest"])
    assert fixed_since(case, rep) == "transformers 5.25.0"


def test_kb_check_holds_requires_versions_against_the_evidence(tmp_path: Path) -> None:
    from kb.tidy.ranges import range_problems

    case = make_case(tmp_path, 'requires_versions = { transformers = ">=5.23" }')
    write_entries(case, [entry("lowest", "pass", {"transformers": "4.56.2"})], ["lowest"])
    problems = [p.message for p in range_problems(case)]
    assert any("evidence/matrix.toml [lowest] passed outside requires_versions" in m for m in problems), problems
    assert any("ran on stack lowest outside its requires_versions" in m for m in problems), problems
    write_entries(case, [entry("lowest", "skip", {"transformers": "4.56.2"}, reason="needs transformers>=5.23")], ["lowest"])
    assert range_problems(case) == []
    bad = make_case(tmp_path / "b", 'requires_versions = { transformers = "about five", nosuchlib = ">=1" }')
    messages = " ".join(p.message for p in range_problems(bad))
    assert "is not a range kb reads" in messages and "'nosuchlib', which no run records" in messages


def test_every_case_keeps_its_declared_versions_and_matrix_tidy() -> None:
    from kb.knowledge.registry import all_cases
    from kb.tidy.ranges import range_problems

    problems = [p.line() for case in all_cases() for p in range_problems(case)]
    assert not problems, "\n".join(problems)


def test_kb_verify_refuses_an_unknown_stack(capsys: pytest.CaptureFixture[str]) -> None:
    from kb.cli import main

    assert main(["verify", "--stack", "no-such-stack"]) == 2
    assert "no stack 'no-such-stack'" in capsys.readouterr().err


def test_the_matrix_page_shows_each_counted_case_on_each_stack() -> None:
    from kb.knowledge.registry import all_cases
    from kb.reproduce.matrix import counted
    from kb.site.matrix_page import matrix_page

    cases = all_cases()
    page = matrix_page(cases)
    passing, total = figure(cases)
    assert f"**{passing} of {total} cases pass" in page
    from kb.reproduce.matrix import figure_on_any

    assert f"{figure_on_any(cases, 2)[0]} of {total} on at least two stacks" in page
    for case in cases:
        assert (f"| [{case.id}](cases/" in page) == counted(case)  # the table; pinned ones are listed below it
    assert "| case | `lowest` | `newest` | `cpu-build` |" in page


def test_the_lowest_stack_is_the_repro_extras_lower_bounds() -> None:
    """pyproject's `repro` lower bounds are what the `lowest` stack verifies: each bounded library is pinned there
    at a release of that bound (``>=2.4`` -> ``torch==2.4.1``)."""
    import re
    import tomllib

    from kb.reproduce.matrix import load_stacks

    root = Path(__file__).resolve().parent.parent
    extra = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]["repro"]
    bounds = {m[1]: m[2] for req in extra if (m := re.match(r"([\w-]+)>=([\d.]+)", req))}
    pins = dict(p.split("==", 1) for p in load_stacks()["lowest"].packages if "==" in p)
    assert set(bounds) <= set(pins), f"bounded but not pinned in the lowest stack: {set(bounds) - set(pins)}"
    for name, bound in bounds.items():
        assert pins[name].split(".")[: len(bound.split("."))] == bound.split("."), (name, bound, pins[name])


def test_latest_reports_a_release_that_fixed_a_case_with_the_pins_that_keep_it(tmp_path: Path) -> None:
    from kb.reproduce.matrix import changed, differing, pinned_suggestion

    case = make_case(tmp_path)
    before = entry("newest", "pass", {"torch": "2.15.0", "transformers": "5.24.0"}).as_dict()
    same = entry("latest", "pass", {"torch": "2.15.0", "transformers": "5.24.0"})
    assert changed(before, same) is None
    fixed = entry("latest", "does-not-fail", {"torch": "2.15.0", "transformers": "5.25.0"})
    assert changed(before, fixed) == "pass on newest -> does-not-fail on latest"
    assert differing(before, fixed) == ["transformers 5.24.0 -> 5.25.0"]
    assert pinned_suggestion(before, case.reproduction("default")) == 'pins = ["torch==2.15.0", "transformers==5.24.0"]'
    other = entry("latest", "pass", {"torch": "2.15.0", "transformers": "5.25.0"})
    other.failing = {"outcome": "reproduced", "digest": "sha256:another"}
    assert changed(before, other) == "the failing program behaves differently than on newest (status pass on both)"

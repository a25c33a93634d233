"""``fixed_pins``: a reproduction whose fix is other library versions (an upgrade) pins its fixed program apart.

Real pip installs of tiny wheels built here (tests/wheel_support.py's ``build_wheel``): release 1.0 of a package
lacks ``new_api``, release 2.0 has it. The failing program calls it on 1.0 and fails; the fixed program calls it
on 2.0 (its ``fixed_pins``) and completes; without ``fixed_pins`` the same fixed program runs on 1.0 and fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from casefiles import case_md
from wheel_support import build_wheel
from kb.knowledge.load import KnowledgeError, load_case
from kb.knowledge.model import Case
from kb.reproduce.runner import cannot_run, run_program
from kb.knowledge.pins import pins_text
from kb.site.render import case_document

API = {"1.0": "", "2.0": "def new_api():\n    return 2\n"}


def build_demo_wheel(house: Path, version: str) -> Path:
    """A wheel of ``kbfix_demo`` at ``version`` (``new_api`` only from 2.0 on)."""
    return build_wheel(house, "kbfix_demo", version, API[version])


CASE_META = """
id = "KB9998"
slug = "fixed-pins-demo"
title = "fixed pins demo"
hardware = ["cpu"]
[[signatures]]
name = "no-new-api"
exception = "AttributeError"
message = "has no attribute 'new_api'"
[[reproductions]]
name = "default"
failing = "failing.py"
fixed = "fixed.py"
{pins}
{fixed_pins}
failing_expect = {{ signature = "no-new-api" }}
fixed_expect = {{ measures = [{{ name = "api", min = 2, max = 2 }}] }}
"""


def make_case(tmp_path: Path, fixed_pins: str, pins: str = 'pins = ["kbfix-demo==1.0"]') -> Case:
    folder = tmp_path / "cases" / "KB9998-fixed-pins-demo"
    folder.mkdir(parents=True)
    (folder / "case.md").write_text(case_md(CASE_META.format(pins=pins, fixed_pins=fixed_pins)))
    (folder / "failing.py").write_text("import kbfix_demo\n\nkbfix_demo.new_api()\n")
    (folder / "fixed.py").write_text(
        "import kbfix_demo\n\nprint(f'kb-measure api={kbfix_demo.new_api()}')  # the upgraded release has it\n")
    return load_case(folder)


@pytest.fixture
def house(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    house = tmp_path / "house"
    build_demo_wheel(house, "1.0")
    build_demo_wheel(house, "2.0")
    monkeypatch.setenv("KB_WHEELHOUSE", str(house))
    monkeypatch.setenv("KB_PINNED_CACHE", str(tmp_path / "cache"))
    return house


def test_each_program_runs_on_its_own_pins(tmp_path: Path, house: Path) -> None:
    case = make_case(tmp_path, 'fixed_pins = ["kbfix-demo==2.0"]')
    rep = case.reproductions[0]
    assert rep.pins_for("failing") == ("kbfix-demo==1.0",) and rep.pins_for("fixed") == ("kbfix-demo==2.0",)
    failing = run_program(case, rep, "failing", "cpu")
    assert failing.passed and failing.outcome == "reproduced", failing.explanation + failing.output
    assert failing.environment()["versions"]["kbfix-demo"] == "1.0"
    assert failing.environment()["pins"] == ["kbfix-demo==1.0"]
    fixed = run_program(case, rep, "fixed", "cpu")
    assert fixed.passed and fixed.outcome == "fixed", fixed.explanation + fixed.output
    assert fixed.environment()["versions"]["kbfix-demo"] == "2.0"
    assert fixed.environment()["pins"] == ["kbfix-demo==2.0"]
    assert fixed.environment()["pinned_imported_from"]["kbfix-demo"].startswith(str(tmp_path / "cache"))


def test_without_fixed_pins_the_fix_runs_on_the_failing_versions_and_fails(tmp_path: Path, house: Path) -> None:
    case = make_case(tmp_path, "")
    rep = case.reproductions[0]
    assert rep.fixed_pins is None and rep.pins_for("fixed") == ("kbfix-demo==1.0",)
    fixed = run_program(case, rep, "fixed", "cpu")
    assert not fixed.passed and fixed.outcome == "fix-failed", fixed.explanation
    assert "AttributeError" in fixed.explanation and fixed.environment()["versions"]["kbfix-demo"] == "1.0"


def test_the_judge_holds_the_fixed_run_to_the_fixed_pins(tmp_path: Path, house: Path) -> None:
    """A fixed run that recorded the failing program's versions proves nothing about the fix: an error."""
    from kb.reproduce.runner import case_expected, judge_run

    case = make_case(tmp_path, 'fixed_pins = ["kbfix-demo==2.0"]')
    rep = case.reproductions[0]
    rank = {"rank": 0, "status": "ok", "exit_code": 0, "environment": {"versions": {"kbfix-demo": "1.0"}}}
    expected = case_expected(case, rep.fixed_expect, fails=False)
    passed, outcome, why = judge_run(expected, timed_out=False, exit_code=0, ranks=[rank], measures={"api": 2.0},
                                     output="", pins=rep.pins_for("fixed"))
    assert (passed, outcome) == (False, "error") and "pinned kbfix-demo==2.0 but the program ran kbfix-demo 1.0" in why


def test_each_program_skips_on_its_own_missing_wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    house = tmp_path / "house"
    build_demo_wheel(house, "1.0")  # the upgrade's wheel is missing
    monkeypatch.setenv("KB_WHEELHOUSE", str(house))
    rep = make_case(tmp_path, 'fixed_pins = ["kbfix-demo==2.0"]').reproductions[0]
    assert cannot_run(rep, "cpu", "failing") is None
    reason = cannot_run(rep, "cpu", "fixed")
    assert reason is not None and reason.startswith("the fixed program: ") and "kbfix-demo==2.0" in reason
    assert cannot_run(rep, "cpu") == reason  # both programs: the first that cannot run says why


def test_fixed_pins_empty_means_the_machines_versions(tmp_path: Path) -> None:
    rep = make_case(tmp_path, "fixed_pins = []").reproductions[0]
    assert rep.fixed_pins == () and rep.pins_for("fixed") == () and rep.pinned
    assert pins_text(rep) == ("the failing program failing.py runs on kbfix-demo==1.0; "
                              "the fixed program fixed.py runs on the installed versions (unpinned)")


@pytest.mark.parametrize(("line", "error"), [
    ('fixed_pins = ["kbfix-demo>=2.0"]', "fixed_pins: pin 'kbfix-demo>=2.0' is not an exact"),
    ('fixed_pins = ["kbfix-demo==2.0", "KBFIX_demo==2.1"]', "fixed_pins: pinned more than once"),
    ('fixed_pins = ["kbfix-demo==1.0"]', "fixed_pins: the same versions as pins"),
    ("fixed_pins = 3", "fixed_pins: must be a list of strings"),
])
def test_the_loader_rejects_bad_fixed_pins(tmp_path: Path, line: str, error: str) -> None:
    with pytest.raises(KnowledgeError, match=error.replace("(", r"\(")):
        make_case(tmp_path, line)


def test_the_case_document_and_kb_show_say_which_versions_each_program_ran(tmp_path: Path) -> None:
    case = make_case(tmp_path, 'fixed_pins = ["kbfix-demo==2.0"]')
    doc = case_document(case)["reproductions"][0]
    assert doc["pins"] == ["kbfix-demo==1.0"] and doc["fixed_pins"] == ["kbfix-demo==2.0"]
    assert doc["versions_run"] == ("the failing program failing.py runs on kbfix-demo==1.0; "
                                   "the fixed program fixed.py runs on kbfix-demo==2.0")
    unpinned_fix = case_document(make_case(tmp_path / "b", ""))["reproductions"][0]
    assert unpinned_fix["fixed_pins"] is None and unpinned_fix["versions_run"] == "both programs run pinned to kbfix-demo==1.0"


def test_kb0050_page_and_show_name_each_programs_versions() -> None:
    """The case the field was made for: transformers 4.49.0 fails, 4.51.3 fixes (its recorded runs say so)."""
    import subprocess
    import sys

    from kb.knowledge.registry import find_case
    from kb.reproduce.ranges import range_text, verified_range
    from kb.site.case_page import range_lines, versions_section

    case = find_case("KB0050")
    rep = case.reproductions[0]
    assert rep.pins_for("failing")[0] == "transformers==4.49.0" and rep.pins_for("fixed")[0] == "transformers==4.51.3"
    versions = versions_section(case)
    assert ("**Reproduction `default`:** the failing program `failing.py` runs on `transformers==4.49.0`" in versions
            and "the fixed program `fixed.py` runs on `transformers==4.51.3`" in versions)
    assert "transformers 4.49.0" in range_text(verified_range(case, rep, "failing"))
    assert "transformers 4.51.3" in range_text(verified_range(case, rep, "fixed"))
    default = next(line for line in range_lines(case) if "`default`" in line)
    failing_part, fixed_part = default.split("; the fixed program works on ")
    assert "the failing program fails on" in failing_part and "transformers 4.49.0" in failing_part
    assert "transformers 4.51.3" in fixed_part and "4.49.0" not in fixed_part
    installed = case.reproduction("fix-on-installed")
    assert installed.fixed_pins == () and "the fixed program `fixed.py` runs on the installed versions" in versions
    from kb.reproduce.ranges import fixed_since

    assert fixed_since(case, rep) == "transformers 4.51.3"
    # the unpinned fixed program ran at each stack's transformers (5.2.0 at the lowest): that dates no fix
    assert fixed_since(case, installed) == ""
    shown = subprocess.run([sys.executable, "-m", "kb", "show", "KB0050"], capture_output=True, text=True, check=True)
    assert "Versions: the failing program failing.py runs on transformers==4.49.0" in shown.stdout
    assert "the fixed program fixed.py runs on transformers==4.51.3" in shown.stdout


def test_kb0050_skips_with_a_reason_without_the_wheelhouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CI has no wheelhouse: each pinned item says which wheels it needs instead of failing."""
    from kb.knowledge.registry import find_case

    monkeypatch.setenv("KB_WHEELHOUSE", str(tmp_path / "no-wheelhouse"))
    rep = find_case("KB0050").reproductions[0]
    for program in ("failing", "fixed"):
        reason = cannot_run(rep, "cpu", program)
        assert reason is not None and "wheelhouse" in reason and "build-wheelhouse" in reason


def _stack(tmp_path: Path, importable: set[str]) -> object:
    """This Python as a `kb verify` stack (its venv is this one): what the matrix runs a reproduction with."""
    import platform
    import sys

    from kb.reproduce.matrix import Stack, StackEnv

    return StackEnv(Stack("demo", "a stack", ("kbfix-demo",)), Path(sys.executable),
                    {"python": platform.python_version(), "kbfix-demo": "3.0"}, importable, None)


def test_the_matrix_skips_a_pinned_reproduction_without_its_wheels_and_does_not_count_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """kb verify runs a stack's versions; without the pinned wheels it skips, saying which program lacks which."""
    from kb.reproduce.matrix import counted, run_entry
    from kb.reproduce.profiles import PROFILES

    monkeypatch.setenv("KB_WHEELHOUSE", str(tmp_path / "no-wheelhouse"))
    env = _stack(tmp_path, {"kbfix_demo"})
    both = make_case(tmp_path / "both", 'fixed_pins = ["kbfix-demo==2.0"]')
    entry = run_entry(both, both.reproductions[0], PROFILES["cpu"], env)  # type: ignore[arg-type]
    assert entry.status == "skip" and entry.reason.startswith("pinned reproduction needs the wheelhouse "), entry.reason
    assert entry.pins == pins_text(both.reproductions[0]) == (
        "the failing program failing.py runs on kbfix-demo==1.0; the fixed program fixed.py runs on kbfix-demo==2.0")
    only_fix = make_case(tmp_path / "fix", 'fixed_pins = ["kbfix-demo==2.0"]', pins="")  # the failing program unpinned
    rep = only_fix.reproductions[0]
    assert rep.pins == () and rep.pinned
    entry = run_entry(only_fix, rep, PROFILES["cpu"], env)  # type: ignore[arg-type]
    assert entry.status == "skip" and entry.reason.startswith("the fixed program: pinned reproduction needs the wheelhouse")
    assert not counted(only_fix) and counted(make_case(tmp_path / "none", "", pins=""))


def test_kb_verify_runs_each_program_on_its_own_pins_and_records_the_versions_it_ran(
        tmp_path: Path, house: Path) -> None:
    """The matrix runs a reproduction with fixed_pins as pytest does (real pip installs of the tiny wheels, this
    Python standing for the stack's venv): 1.0 fails, 2.0 fixes, and the entry keeps each program's versions."""
    from kb.knowledge.evidence import matrix_runs
    from kb.reproduce.matrix import run_entry, stack_versions, write_entries
    from kb.reproduce.profiles import PROFILES
    from kb.reproduce.ranges import passing_runs

    case = make_case(tmp_path, 'fixed_pins = ["kbfix-demo==2.0"]')
    rep = case.reproductions[0]
    env = _stack(tmp_path, set())
    entry = run_entry(case, rep, PROFILES["cpu"], env)  # type: ignore[arg-type]
    assert entry.status == "pass", entry.reason
    assert entry.failing["outcome"] == "reproduced" and entry.failing["versions"]["kbfix-demo"] == "1.0"
    assert entry.fixed["outcome"] == "fixed" and entry.fixed["versions"]["kbfix-demo"] == "2.0"
    assert entry.versions == stack_versions(env)  # type: ignore[arg-type]  # the row's stack, as for any entry
    write_entries(case, [entry], ["demo"])
    row = matrix_runs(case)[0]
    assert row["pins"] == pins_text(rep) and row["fixed"]["versions"]["kbfix-demo"] == "2.0"
    runs = [(r["program"], r["versions"]["kbfix-demo"]) for r in passing_runs(case, rep)]
    assert runs == [("failing", "1.0"), ("fixed", "2.0")]  # not the stack's 3.0, and not "both programs"


def test_kb_verify_skips_a_pinned_reproduction_on_a_stack_of_another_python(tmp_path: Path, house: Path) -> None:
    from kb.reproduce.matrix import skip_reason
    from kb.reproduce.profiles import PROFILES

    env = _stack(tmp_path, {"kbfix_demo"})
    env.versions["python"] = "3.99.0"  # type: ignore[attr-defined]
    rep = make_case(tmp_path, 'fixed_pins = ["kbfix-demo==2.0"]').reproductions[0]
    reason = skip_reason(rep, PROFILES["cpu"], env)  # type: ignore[arg-type]
    assert reason is not None and "the stack runs Python 3.99" in reason

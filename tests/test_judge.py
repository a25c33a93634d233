"""The judge (kb/reproduce/runner.py) says "not reproduced" for every way a run can miss, and "reproduced" for the right one.

Every negative scenario starts from a positive control (the outcome the case documents, judged
as passed) and changes one thing: the exception type, the message, the raising frame, a measure,
a warning, the exit code, the pinned versions. Cases and drift entries (kb/apidrift/verify.py)
are judged by the same functions, so both are fed here. The judging scenarios build harness
results by hand (what kb/reproduce/harness.py writes as result-rank*.json) and run no
subprocess; a timeout, a crash before the library call and a whole pinned drift entry run real
tiny programs through the runner.

``test_every_judge_is_guarded`` replaces each judging function with one that always passes and
checks that some scenario then comes out "passed": a judge nobody's negative test covers fails it.
benchmarks/judge_mutation.py does the same by rewriting the source and running this file.
"""

from __future__ import annotations

import copy
import inspect
import json
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from casefiles import write_case
from wheel_support import build_wheel
from kb.apidrift import verify
from kb.knowledge.drift_entry import EntryError
from kb.knowledge.load import load_case
from kb.knowledge.model import Case
from kb.reproduce import runner
from kb.reproduce.runner import case_expected, run_program

CASE_META = r"""
id = "KB9990"
slug = "judge-demo"
title = "judge demo"
hardware = ["cpu"]
[[signatures]]
name = "bad-json"
exception = "JSONDecodeError"
message = "Expecting property name enclosed in double quotes"
[[reproductions]]
name = "default"
failing = "failing.py"
fixed = "fixed.py"
timeout = 60
failing_expect = { signature = "bad-json", raised_in = { file = 'json/decoder\.py$', function = '^raw_decode$' }, warnings = ['truncated document'] }
fixed_expect = { measures = [{ name = "keys", min = 1, max = 1 }] }
[[reproductions]]
name = "silent"
failing = "failing.py"
fixed = "fixed.py"
failing_expect = { measures = [{ name = "grad_norm", max = 0.0 }] }
fixed_expect = { measures = [{ name = "grad_norm", min = 0.001 }], warnings = ['step 1 done'] }
[[reproductions]]
name = "pinned"
failing = "failing.py"
fixed = "fixed.py"
pins = ["kbjudge-demo==1.0"]
failing_expect = { signature = "bad-json" }
"""

FAILING = (
    "import json, warnings\n"
    "warnings.warn('parsing a truncated document')\n"
    "json.loads('{')\n"
)
FIXED = "import json\nkeys = len(json.loads('{\"a\": 1}'))\nprint(f'kb-measure keys={keys}')\n"
DECODER = "/usr/lib/python3.11/json/decoder.py"
MESSAGE = "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
WARNING_LINE = "failing.py:2: UserWarning: parsing a truncated document"


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Case:
    folder = tmp_path_factory.mktemp("judge") / "cases" / "KB9990-judge-demo"
    write_case(folder, CASE_META, programs={"failing.py": FAILING, "fixed.py": FIXED})
    return load_case(folder)


def frame(file: str, function: str, line: int = 1, code: str = "") -> dict[str, Any]:
    return {"file": file, "line": line, "function": function, "code": code}


def raised(type_: str = "json.decoder.JSONDecodeError", message: str = MESSAGE,
           frames: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One rank of a program that raised, as kb/reproduce/harness.py records it."""
    frames = frames if frames is not None else [
        frame("failing.py", "<module>", 3, "json.loads('{')"),
        frame(DECODER, "decode", 337), frame(DECODER, "raw_decode", 353, "obj, end = self.scan_once(s, idx)"),
    ]
    return {"rank": 0, "status": "exception", "exit_code": 1,
            "exception": {"type": type_, "message": message, "frames": frames, "causes": []},
            "environment": {"versions": {"python": "3.11.7"}}}


def completed(versions: dict[str, str] | None = None) -> dict[str, Any]:
    return {"rank": 0, "status": "ok", "exit_code": 0, "environment": {"versions": versions or {"python": "3.11.7"}}}


def verdict(case: Case, rep: str, program: str, ranks: list[dict[str, Any]], *, output: str = "",
            measures: dict[str, float] | None = None, exit_code: int | None = None,
            timed_out: bool = False, pins: tuple[str, ...] = ()) -> tuple[bool, str, str]:
    reproduction = case.reproduction(rep)
    fails = program == "failing"
    expected = case_expected(case, reproduction.failing_expect if fails else reproduction.fixed_expect, fails)
    if exit_code is None and not timed_out:
        exit_code = 1 if fails else 0
    return runner.judge_run(expected, timed_out=timed_out, exit_code=exit_code, ranks=ranks, measures=measures or {},
                     output=output, pins=pins, limit=60)


# ---- cases: positive controls


def test_the_documented_failure_is_reproduced(case: Case) -> None:
    passed, outcome, explanation = verdict(case, "default", "failing", [raised()], output=WARNING_LINE)
    assert (passed, outcome) == (True, "reproduced"), explanation
    assert "JSONDecodeError" in explanation and "raw_decode" in explanation


def test_a_qualified_type_is_matched_by_its_class_name(case: Case) -> None:
    # the signature says JSONDecodeError; the harness records json.decoder.JSONDecodeError (kb's signature rule)
    assert verdict(case, "default", "failing", [raised("JSONDecodeError")], output=WARNING_LINE)[0]


def test_the_matching_exception_may_be_on_any_rank(case: Case) -> None:
    other = completed() | {"rank": 1}
    assert verdict(case, "default", "failing", [other, raised()], output=WARNING_LINE)[0]


def test_a_working_fix_is_judged_fixed(case: Case) -> None:
    passed, outcome, explanation = verdict(case, "default", "fixed", [completed()], measures={"keys": 1})
    assert (passed, outcome) == (True, "fixed"), explanation
    assert "keys=1" in explanation


def test_a_silent_failure_is_reproduced_by_its_measure(case: Case) -> None:
    passed, outcome, explanation = verdict(case, "silent", "failing", [completed()], measures={"grad_norm": 0.0}, exit_code=0)
    assert (passed, outcome) == (True, "reproduced"), explanation
    assert verdict(case, "silent", "fixed", [completed()], measures={"grad_norm": 0.5}, output="step 1 done")[0]


def test_a_pinned_run_on_its_pins_is_reproduced(case: Case) -> None:
    rank = raised()
    rank["environment"]["versions"]["kbjudge-demo"] = "1.0"
    passed, outcome, explanation = verdict(case, "pinned", "failing", [rank], pins=("kbjudge-demo==1.0",))
    assert (passed, outcome) == (True, "reproduced"), explanation


# ---- cases: every way to miss. (name, verdict, words the explanation must hold)


def _with(rank: dict[str, Any], **exception: Any) -> dict[str, Any]:
    rank = copy.deepcopy(rank)
    rank["exception"].update(exception)
    return rank


def _pinned(version: str | None) -> list[dict[str, Any]]:
    rank = raised()
    if version is not None:
        rank["environment"]["versions"]["KBJudge_Demo"] = version  # compared by canonical name
    return [rank]


def _running() -> dict[str, Any]:
    """A rank whose program started and never reported (kb/reproduce/harness.py's record before the program)."""
    return {"rank": 0, "script": "failing.py", "status": "running", "pid": 4242}


CaseScenario = tuple[str, Callable[[Case], tuple[bool, str, str]], tuple[str, ...]]
CASE_MISSES: list[CaseScenario] = [
    ("wrong exception type", lambda c: verdict(c, "default", "failing", [raised("ValueError")], output=WARNING_LINE),
     ("ValueError", "expected JSONDecodeError")),
    ("a subclass name is not the type", lambda c: verdict(c, "default", "failing", [raised("json.MyJSONDecodeErrorX")], output=WARNING_LINE),
     ("MyJSONDecodeErrorX",)),
    ("right type, wrong message", lambda c: verdict(c, "default", "failing", [raised(message="Expecting value: line 1")], output=WARNING_LINE),
     ("message not matching", "Expecting value")),
    ("right type and message, raised in the program", lambda c: verdict(
        c, "default", "failing", [raised(frames=[frame("failing.py", "<module>", 3)])], output=WARNING_LINE),
     ("raised at failing.py:3", "not where expected")),
    ("right file, wrong function", lambda c: verdict(
        c, "default", "failing", [raised(frames=[frame(DECODER, "decode", 337)])], output=WARNING_LINE),
     ("in decode", "not where expected")),
    ("no frames recorded", lambda c: verdict(c, "default", "failing", [raised(frames=[])], output=WARNING_LINE),
     ("not where expected",)),
    ("the failing program completed", lambda c: verdict(c, "default", "failing", [completed()], output=WARNING_LINE, exit_code=0),
     ("rank 0 ok (exit 0)",)),
    ("no harness result at all", lambda c: verdict(c, "default", "failing", [], output=WARNING_LINE),
     ("harness error: no result from the harness",)),
    ("killed before reporting", lambda c: verdict(c, "default", "failing", [_running()], output=WARNING_LINE, exit_code=-9),
     ("signal 9 (SIGKILL)", "before it reported")),
    ("killed before the harness recorded anything", lambda c: verdict(c, "default", "failing", [], output=WARNING_LINE, exit_code=-9),
     ("SIGKILL", "before it recorded anything")),
    ("exited before reporting", lambda c: verdict(c, "default", "failing", [_running()], output=WARNING_LINE, exit_code=3),
     ("exited with 3",)),
    ("expected warning absent", lambda c: verdict(c, "default", "failing", [raised()], output="UserWarning: something else"),
     ("truncated document",)),
    ("silent failure: measure missing", lambda c: verdict(c, "silent", "failing", [completed()], exit_code=0),
     ("no `kb-measure grad_norm=...` line",)),
    ("silent failure: measure out of range", lambda c: verdict(c, "silent", "failing", [completed()], measures={"grad_norm": 0.3}, exit_code=0),
     ("grad_norm = 0.3", "<= 0")),
    ("fix raises", lambda c: verdict(c, "default", "fixed", [raised()], measures={"keys": 1}, exit_code=1),
     ("exited with 1", "raised json.decoder.JSONDecodeError")),
    ("fix exits non-zero without an exception", lambda c: verdict(
        c, "default", "fixed", [completed() | {"status": "exit", "exit_code": 3}], measures={"keys": 1}, exit_code=3),
     ("exited with 3", "status 'exit'")),
    ("fix exits non-zero, ranks say ok", lambda c: verdict(c, "default", "fixed", [completed()], measures={"keys": 1}, exit_code=137),
     ("exited with 137",)),
    ("fix: a rank ended with status exit, exit code not recorded", lambda c: runner.judge_run(
        case_expected(c, c.reproduction("default").fixed_expect, False), timed_out=False, exit_code=None,
        ranks=[completed() | {"status": "exit", "exit_code": 2}], measures={"keys": 1}, output=""),
     ("status 'exit'",)),
    ("fix: no harness result", lambda c: verdict(c, "default", "fixed", [], measures={"keys": 1}),
     ("no result from the harness",)),
    ("fix: killed before reporting", lambda c: verdict(c, "default", "fixed", [_running()], measures={"keys": 1}, exit_code=-9),
     ("SIGKILL",)),
    ("fix: measure missing", lambda c: verdict(c, "default", "fixed", [completed()]),
     ("no `kb-measure keys=...` line",)),
    ("fix: measure out of range", lambda c: verdict(c, "default", "fixed", [completed()], measures={"keys": 2}),
     ("keys = 2", "keys >= 1 and <= 1")),
    ("fix: expected warning absent", lambda c: verdict(c, "silent", "fixed", [completed()], measures={"grad_norm": 0.5}, output="step 2"),
     ("step 1 done",)),
    ("timeout", lambda c: verdict(c, "default", "failing", [raised()], output=WARNING_LINE, timed_out=True),
     ("timed out after 60 s",)),
    ("pinned run on other versions", lambda c: verdict(c, "pinned", "failing", _pinned("2.0"), pins=("kbjudge-demo==1.0",)),
     ("pinned kbjudge-demo==1.0 but the program ran kbjudge-demo 2.0",)),
    ("pinned run that recorded no version of the pin", lambda c: verdict(c, "pinned", "failing", _pinned(None), pins=("kbjudge-demo==1.0",)),
     ("recorded no version of kbjudge-demo",)),
]


@pytest.mark.parametrize(("scenario", "judged", "words"), CASE_MISSES, ids=[s[0] for s in CASE_MISSES])
def test_a_miss_is_not_reproduced(case: Case, scenario: str, judged: Callable[[Case], tuple[bool, str, str]],
                                  words: tuple[str, ...]) -> None:
    passed, outcome, explanation = judged(case)
    assert passed is False, f"{scenario}: judged passed ({outcome}: {explanation})"
    assert outcome in ("not-reproduced", "fix-failed", "worker-died", "timeout", "error")
    for word in words:
        assert word in explanation, f"{scenario}: {word!r} not in {explanation!r}"


def test_outcome_names_what_failed(case: Case) -> None:
    assert verdict(case, "default", "failing", [raised("ValueError")], output=WARNING_LINE)[1] == "not-reproduced"
    assert verdict(case, "default", "fixed", [raised()], exit_code=1)[1] == "fix-failed"
    assert verdict(case, "default", "failing", [], timed_out=True)[1] == "timeout"
    assert verdict(case, "default", "failing", [_running()], exit_code=-9)[1] == "worker-died"
    assert verdict(case, "default", "fixed", [_running()], exit_code=3)[1] == "worker-died"
    assert verdict(case, "default", "failing", [], exit_code=2)[1] == "error"  # the harness never started it
    # a pinned run on the wrong versions is an error even when its behaviour matched
    assert verdict(case, "pinned", "failing", _pinned("2.0"), pins=("kbjudge-demo==1.0",))[1] == "error"


def test_judge_pins_directly() -> None:
    pins = ("kbjudge-demo==1.0", "other==2.0")
    good = completed({"kbjudge-demo": "1.0", "Other": "2.0"})
    assert runner.judge_pins(pins, [good])[0]
    assert runner.judge_pins((), [])[0]
    assert not runner.judge_pins(pins, [])[0]
    bad_rank = completed({"kbjudge-demo": "1.0", "other": "2.1"}) | {"rank": 1}
    passed, why = runner.judge_pins(pins, [good, bad_rank])
    assert not passed and "other 2.1" in why


# ---- real programs through the runner: a timeout, crashes before the library call, and the control.
# Each runs as a fresh Python and as a fork of the preloaded server (kb/reproduce/forkserver.py, what the
# test suite uses when not recording): the judge must see the same.

PRELOADED = pytest.mark.parametrize("preloaded", [False, True], ids=["fresh", "forked"])


@PRELOADED
def test_a_real_run_of_the_documented_failure_and_fix(case: Case, preloaded: bool) -> None:
    rep = case.reproduction("default")
    assert runner.case_spec(case, rep, "failing", "cpu", preloaded=preloaded).fork is preloaded
    failing = run_program(case, rep, "failing", "cpu", preloaded=preloaded)
    assert (failing.passed, failing.outcome) == (True, "reproduced"), failing.explanation + failing.output
    fixed = run_program(case, rep, "fixed", "cpu", preloaded=preloaded)
    assert (fixed.passed, fixed.outcome) == (True, "fixed"), fixed.explanation + fixed.output


def _variant(case: Case, tmp_path: Path, failing: str) -> tuple[Case, Any]:
    folder = tmp_path / "cases" / "KB9990-judge-demo"
    write_case(folder, CASE_META, programs={"failing.py": failing, "fixed.py": FIXED})
    loaded = load_case(folder)
    return loaded, loaded.reproduction("default")


@PRELOADED
def test_a_timeout_is_not_reproduced(case: Case, tmp_path: Path, preloaded: bool) -> None:
    slow, rep = _variant(case, tmp_path, "import time\ntime.sleep(60)\n")
    result = run_program(slow, rep, "failing", "cpu", timeout=1, preloaded=preloaded)
    assert (result.passed, result.outcome) == (False, "timeout")
    assert result.explanation == "timed out after 1 s" and result.exit_code is None
    assert result.duration_s < 30


@PRELOADED
def test_an_import_error_before_the_library_call_is_not_reproduced(case: Case, tmp_path: Path, preloaded: bool) -> None:
    broken, rep = _variant(case, tmp_path, "import kb_judge_no_such_module\nimport json\njson.loads('{')\n")
    result = run_program(broken, rep, "failing", "cpu", preloaded=preloaded)
    assert (result.passed, result.outcome) == (False, "not-reproduced"), result.explanation
    assert "ModuleNotFoundError" in result.explanation and "expected JSONDecodeError" in result.explanation


@PRELOADED
def test_a_program_dying_before_the_harness_records_is_no_verdict(case: Case, tmp_path: Path, preloaded: bool) -> None:
    # not "did not reproduce": the program never got to show anything (tests/test_reproduce_worker_death.py)
    dead, rep = _variant(case, tmp_path, "import os\nos._exit(3)\n")
    result = run_program(dead, rep, "failing", "cpu", preloaded=preloaded)
    assert (result.passed, result.outcome, [r["status"] for r in result.ranks]) == (False, "worker-died", ["running"])
    assert "exited with 3 while the program ran, before it reported" in result.explanation and result.exit_code == 3


def test_a_forked_run_is_its_own_process_with_its_own_environment(case: Case, tmp_path: Path) -> None:
    program = ("import os, sys\nprint('cwd', os.getcwd()); print('profile', os.environ.get('KB_PROFILE'))\n"
               "print('cuda', repr(os.environ.get('CUDA_VISIBLE_DEVICES'))); print('sid', os.getsid(0) == os.getpid())\n"
               "print('stdin', repr(sys.stdin.read())); print('kb-measure keys=1')\n")
    probe, rep = _variant(case, tmp_path, program)
    (probe.path / "fixed.py").write_text(program, encoding="utf-8")  # the fixed program must complete
    result = run_program(probe, rep, "fixed", "cpu", preloaded=True)
    assert result.passed, result.output
    assert "profile cpu" in result.output and "cuda ''" in result.output  # the profile's environment
    assert "sid True" in result.output and "stdin ''" in result.output  # own session; no server input
    assert result.output.split("cwd ", 1)[1].splitlines()[0].endswith("/work")  # the run's own working folder


def test_only_runs_a_fork_cannot_change_are_forked(case: Case) -> None:
    from kb.reproduce.forkserver import eligible

    assert eligible("python", 0, None, (), {})
    assert not eligible("torchrun", 0, None, (), {})  # several processes, its own launcher
    assert not eligible("python", 1, None, (), {})  # a GPU profile: CUDA state must start fresh
    assert not eligible("python", 0, 1.0, (), {})  # a memory cgroup joined before exec
    assert not eligible("python", 0, None, ("trl==0.15.2",), {})  # pinned versions shadow the preloaded ones
    assert not eligible("python", 0, None, (), {"HF_HUB_OFFLINE": "1"})  # read by libraries at import
    rep = case.reproduction("default")
    assert not runner.case_spec(case, rep, "failing", "cpu").fork  # only when asked (never while recording)
    from kb.knowledge.registry import find_case

    hub = find_case("KB0018")  # its programs point HF_ENDPOINT at a local Hub before importing huggingface_hub
    assert all(r.fresh_python for r in hub.reproductions)
    assert not runner.case_spec(hub, hub.reproductions[0], "failing", "cpu", preloaded=True).fork


# ---- drift entries: the same judge, through kb/apidrift/verify.py

DRIFT = "trl-sfttrainer-tokenizer"


@pytest.fixture(scope="module")
def entry() -> verify.Entry:
    return verify.load_entry(Path(verify.REPO_ROOT) / "drift" / DRIFT)


def evidence(entry: verify.Entry, run_name: str) -> tuple[verify.Run, dict[str, Any]]:
    run = next(r for r in entry.runs() if r.name == run_name)
    return run, json.loads((entry.path / "evidence" / f"{run_name}.json").read_text())


def test_drift_recorded_runs_are_judged_passed(entry: verify.Entry) -> None:
    for run in entry.runs():
        _, record = evidence(entry, run.name)
        passed, explanation = verify.judge(entry, run, record)
        assert passed, explanation


def _drift(run_name: str, change: Callable[[dict[str, Any]], None]) -> Callable[[verify.Entry], tuple[bool, str]]:
    def judged(entry: verify.Entry) -> tuple[bool, str]:
        run, record = evidence(entry, run_name)
        change(record)
        return verify.judge(entry, run, record)
    return judged


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node = record
        for key in parents:
            node = node[key]
        if value is _DROP:
            del node[last]
        else:
            node[last] = value
    return change


_DROP = object()
DriftScenario = tuple[str, Callable[[verify.Entry], tuple[bool, str]], tuple[str, ...]]
DRIFT_MISSES: list[DriftScenario] = [
    ("wrong exception type", _drift("old-on-new", _set("exception.type", "ValueError")), ("ValueError", "expected TypeError")),
    ("wrong message", _drift("old-on-new", _set("exception.message", "SFTTrainer.__init__() missing 1 required argument")),
     ("message not matching",)),
    ("wrong frame", _drift("old-on-new", _set("exception.frames", [frame("site-packages/trl/trainer/sft_trainer.py", "__init__")])),
     ("not where expected", "sft_trainer.py")),
    ("the failing run completed", _drift("old-on-new", lambda r: (r.update(status="ok"), r.pop("exception"))), ("rank 0 ok",)),
    ("no harness result", lambda e: verify.judge(e, evidence(e, "old-on-new")[0], {}), ("no result from the harness",)),
    ("the working run raised", _drift("new-on-new", _set("exception", raised("TypeError", "boom")["exception"])),
     ("raised TypeError: boom",)),
    ("the working run ended otherwise", _drift("old-on-old", _set("status", "exit")), ("status 'exit'",)),
    ("ran another version of the library", _drift("old-on-new", _set("environment.versions.trl", "0.15.2")),
     ("pinned trl==0.16.1 but the program ran trl 0.15.2",)),
    ("ran another version of a pinned dependency", _drift("new-on-new", _set("environment.versions.tokenizers", "0.21.0")),
     ("tokenizers 0.21.0",)),
    ("recorded no version of the library", _drift("old-on-old", _set("environment.versions.trl", _DROP)),
     ("recorded no version of trl",)),
]


@pytest.mark.parametrize(("scenario", "judged", "words"), DRIFT_MISSES, ids=[s[0] for s in DRIFT_MISSES])
def test_a_drift_miss_is_not_verified(entry: verify.Entry, scenario: str, judged: Callable[[verify.Entry], tuple[bool, str]],
                                      words: tuple[str, ...]) -> None:
    passed, explanation = judged(entry)
    assert passed is False, f"{scenario}: judged passed ({explanation})"
    for word in words:
        assert word in explanation, f"{scenario}: {word!r} not in {explanation!r}"


def test_drift_timeout_and_exit_code_of_a_fresh_run_count(entry: verify.Entry) -> None:
    run, record = evidence(entry, "new-on-new")
    ran = runner.Execution(command=[], exit_code=None, timed_out=True, output="", ranks=[record], measures={}, duration_s=240, date="")
    passed, why = verify.judge(entry, run, record, ran)
    assert not passed and "timed out" in why
    ran = runner.Execution(command=[], exit_code=1, timed_out=False, output="", ranks=[record], measures={}, duration_s=1, date="")
    passed, why = verify.judge(entry, run, record, ran)
    assert not passed and "exited with 1" in why


# ---- a whole drift entry through the runner: fake releases of a library, real pip installs and runs


ENTRY_TOML = """library = "peft"
kind = "param"
owner = "peft.configure"
old = "a"
new = "b"
removed_in = "2.0"
summary = "a fake release of peft renames configure's a= to b= (a test's entry)"
old_pins = ["peft==1.0"]
new_pins = ["peft==2.0"]

[expect]
exception = "TypeError"
message = '''configure\\(\\) got an unexpected keyword argument 'a''''
frame = '''{frame}'''
"""


def test_a_drift_entry_runs_through_the_case_runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    house = tmp_path / "house"
    build_wheel(house, "peft", "1.0", "def configure(a=0):\n    return a\n")
    build_wheel(house, "peft", "2.0", "def configure(b=0):\n    return b\n")
    monkeypatch.setenv("KB_PINNED_CACHE", str(tmp_path / "cache"))
    folders = {}
    for name, frame_regex in (("peft-fake-ok", r"old\.py:<module>$"), ("peft-fake-wrong-frame", r"peft/__init__\.py:configure$")):
        folder = tmp_path / "drift" / name
        folder.mkdir(parents=True)
        (folder / "entry.toml").write_text(ENTRY_TOML.format(frame=frame_regex))
        (folder / "old.py").write_text("from peft import configure\nconfigure(a=1)\n")
        (folder / "new.py").write_text("from peft import configure\nprint(configure(b=1))\n")
        folders[name] = folder
    entries = {e.name: e for e in verify.all_entries(tmp_path / "drift")}
    outcomes = verify.verify_entry(entries["peft-fake-ok"], house, record=True)
    assert [(run.name, passed) for run, passed, _ in outcomes] == [("old-on-new", True), ("new-on-new", True), ("old-on-old", True)], outcomes
    assert "unexpected keyword argument 'a'" in outcomes[0][2]
    # the evidence keeps its format (tests/test_apidrift_verified.py reads it)
    recorded = json.loads((folders["peft-fake-ok"] / "evidence" / "old-on-new.json").read_text())
    reference = json.loads((Path(verify.REPO_ROOT) / "drift" / DRIFT / "evidence" / "old-on-new.json").read_text())
    assert recorded.keys() == reference.keys() and recorded["environment"].keys() == reference["environment"].keys()
    assert recorded["passed"] is True and recorded["environment"]["versions"]["peft"] == "2.0"
    # raised by Python binding the call in old.py, not in the library's function: the wrong-frame entry misses
    outcomes = verify.verify_entry(entries["peft-fake-wrong-frame"], house, record=False)
    failing = outcomes[0]
    assert failing[0].name == "old-on-new" and failing[1] is False and "not where expected" in failing[2]


def test_a_drift_entry_without_its_own_library_pinned_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "peft-fake"
    folder.mkdir()
    (folder / "entry.toml").write_text(ENTRY_TOML.format(frame="x").replace('["peft==1.0"]', '["trl==1.0"]'))
    (folder / "old.py").write_text("")
    (folder / "new.py").write_text("")
    with pytest.raises(EntryError, match="old_pins must pin peft itself"):
        verify.load_entry(folder)
    (folder / "entry.toml").write_text(ENTRY_TOML.format(frame="x").replace('["peft==1.0"]', '["peft>=1.0"]'))
    with pytest.raises(EntryError, match="not an exact"):
        verify.load_entry(folder)


# ---- an always-pass judge is caught (the in-process twin of benchmarks/judge_mutation.py)


def judging_functions() -> list[tuple[Any, str]]:
    """Every judge_* of the runner and the verifier, and the checks they are built from."""
    helpers = ("type_accepted", "_frame_matches", "_check_measures", "_check_warnings")
    found = [(runner, name) for name, _ in inspect.getmembers(runner, inspect.isfunction) if name.startswith("judge_")]
    found += [(runner, name) for name in helpers]
    found += [(verify, name) for name, _ in inspect.getmembers(verify, inspect.isfunction)
              if name.startswith("judge") and inspect.getmodule(getattr(verify, name)) is verify]
    return found


def always_pass(function: Callable[..., Any]) -> Callable[..., Any]:
    """A stand-in returning the "all is well" value of ``function``'s return type."""
    returns = typing.get_type_hints(function)["return"]
    if returns is bool:
        return lambda *a, **k: True
    if typing.get_origin(returns) is list:
        return lambda *a, **k: []
    width = len(typing.get_args(returns))
    return lambda *a, **k: (True, "reproduced", "reproduced")[:width]


def test_every_judge_is_guarded(case: Case, entry: verify.Entry, monkeypatch: pytest.MonkeyPatch) -> None:
    functions = judging_functions()
    names = {name for _, name in functions}
    assert {"judge_failing", "judge_fixed", "judge_pins", "judge_run", "judge_exception", "judge"} <= names
    survivors = []
    for module, name in functions:
        with monkeypatch.context() as patch:
            patch.setattr(module, name, always_pass(getattr(module, name)))
            caught = [s for s, judged, _ in CASE_MISSES if judged(case)[0]]
            caught += [s for s, judged, _ in DRIFT_MISSES if judged(entry)[0]]
        if not caught:
            survivors.append(f"{module.__name__}.{name}")
    assert not survivors, f"always-pass versions of these judge nothing a negative test checks: {survivors}"

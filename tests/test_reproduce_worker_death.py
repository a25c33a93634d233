"""The runner tells three ends of a run apart (kb/reproduce/runner.py, harness.py):

* the program ran and reported: judged against its expectation (reproduced or not, fixed or not);
* the harness's process died before reporting (a signal, the OOM killer, an exit that skipped the
  harness): ``worker-died``, naming the signal or exit status and the memory caps, never "did not
  reproduce"; killed by SIGKILL from outside the run, it runs once more;
* the harness failed itself: ``error``.

The real runs use the tiny programs in tests/fixtures/harness/ (copies in a temporary folder, each
logging its runs beside itself), as a fresh Python and as a fork of the preloaded server.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from kb.knowledge.reproductions import Measure
from kb.reproduce import runner
from kb.reproduce.result import RUNNING, WORKER_DIED
from kb.reproduce.runner import Execution, Expected, RunSpec

PROGRAMS = Path(__file__).parent / "fixtures" / "harness"
PRELOADED = pytest.mark.parametrize("fork", [False, True], ids=["fresh", "forked"])

JSON_ERROR = Expected(fails=True, exceptions=("JSONDecodeError",), message=re.compile("Expecting property name"))
VALUE_ERROR = Expected(fails=True, exceptions=("ValueError",))  # JSONDecodeError's base class name is not its name
COMPLETES = Expected(fails=False, measures=(Measure("done", min=1),))
OOM_KILLED = Expected(fails=True, exceptions=("JSONDecodeError",), measures=(Measure("host_oom_kills", min=1),))


def run(tmp_path: Path, program: str, expected: Expected, fork: bool, **spec: Any) -> tuple[Execution, bool, str, str, int]:
    """Run a copy of ``program`` through the runner: (execution, passed, outcome, explanation, times it ran)."""
    script = tmp_path / program
    shutil.copy(PROGRAMS / program, script)
    ran, passed, outcome, explanation = runner.run_and_judge(
        RunSpec(label="harness-test", script=script, expected=expected, timeout=60, fork=fork, **spec))
    log = tmp_path / "runs.log"
    return ran, passed, outcome, explanation, len(log.read_text().splitlines()) if log.exists() else 0


# ---- the harness's process died before it reported


@PRELOADED
def test_a_worker_killed_by_sigkill_is_no_verdict_and_runs_once_more(tmp_path: Path, fork: bool) -> None:
    ran, passed, outcome, explanation, runs = run(tmp_path, "killed.py", JSON_ERROR, fork)
    assert (passed, outcome, ran.exit_code) == (False, WORKER_DIED, -9), explanation
    assert "did not reproduce" not in explanation
    assert "killed by signal 9 (SIGKILL) while the program ran, before it reported" in explanation
    assert "under no memory cap of kb's" in explanation
    assert [r["status"] for r in ran.ranks] == [RUNNING] and ran.ranks[0]["pid"] > 0
    # killed from outside the run (no cgroup counted an OOM kill, none expected): tried twice, both said
    assert runs == 2 and "a second run; the first gave no verdict" in explanation
    assert "about to be killed" in ran.output


@PRELOADED
def test_a_second_run_gives_the_verdict_the_first_could_not(tmp_path: Path, fork: bool) -> None:
    _, passed, outcome, explanation, runs = run(tmp_path, "killed_once.py", JSON_ERROR, fork)
    assert (passed, outcome, runs) == (True, "reproduced", 2), explanation
    assert "JSONDecodeError" in explanation and "the first gave no verdict" in explanation and "SIGKILL" in explanation


@PRELOADED
def test_a_kill_the_expectation_declares_is_not_retried_and_its_expectation_still_checked(tmp_path: Path, fork: bool) -> None:
    _, passed, outcome, explanation, runs = run(tmp_path, "killed.py", OOM_KILLED, fork)
    assert (passed, outcome, runs) == (False, WORKER_DIED, 1), explanation
    assert "SIGKILL" in explanation and "the program printed no `kb-measure host_oom_kills=...` line" in explanation


@PRELOADED
def test_a_killed_fixed_program_is_no_verdict_either(tmp_path: Path, fork: bool) -> None:
    _, passed, outcome, explanation, runs = run(tmp_path, "killed.py", COMPLETES, fork)
    assert (passed, outcome, runs) == (False, WORKER_DIED, 2), explanation
    assert "fix did not work" not in explanation and "SIGKILL" in explanation


@PRELOADED
@pytest.mark.parametrize("expected", [JSON_ERROR, COMPLETES], ids=["failing", "fixed"])
def test_a_worker_that_exits_before_reporting_is_no_verdict_and_not_retried(tmp_path: Path, fork: bool, expected: Expected) -> None:
    ran, passed, outcome, explanation, runs = run(tmp_path, "exits.py", expected, fork)
    assert (passed, outcome, ran.exit_code, runs) == (False, WORKER_DIED, 3, 1), explanation
    assert "exited with 3 while the program ran, before it reported" in explanation
    assert "did not reproduce" not in explanation and "fix did not work" not in explanation


# ---- the program ran and reported: its expectation decides, either way


@PRELOADED
def test_a_program_that_reports_is_judged_by_its_expectation(tmp_path: Path, fork: bool) -> None:
    ran, passed, outcome, explanation, runs = run(tmp_path, "reports.py", JSON_ERROR, fork)
    assert (passed, outcome, runs, ran.exit_code) == (True, "reproduced", 1, 1), explanation
    assert ran.ranks[0]["status"] == "exception" and "pid" not in ran.ranks[0]  # the running record was replaced
    _, passed, outcome, explanation, _ = run(tmp_path, "reports.py", VALUE_ERROR, fork)
    assert (passed, outcome) == (False, "not-reproduced") and "expected ValueError" in explanation
    _, passed, outcome, explanation, _ = run(tmp_path, "completes.py", COMPLETES, fork)
    assert (passed, outcome) == (True, "fixed"), explanation
    _, passed, outcome, explanation, _ = run(tmp_path, "completes.py", Expected(False, measures=(Measure("done", min=2),)), fork)
    assert (passed, outcome) == (False, "fix-failed") and "done = 1" in explanation


# ---- the harness failed itself


def test_a_harness_that_never_started_the_program_is_an_error(tmp_path: Path) -> None:
    false = shutil.which("false")
    assert false is not None
    ran, passed, outcome, explanation, runs = run(tmp_path, "reports.py", JSON_ERROR, False, python=false)
    assert (passed, outcome, ran.ranks, runs) == (False, "error", [], 0), explanation
    assert "harness error: no result from the harness" in explanation and "exited with 1" in explanation


def test_a_harness_error_or_an_unreadable_result_is_an_error(tmp_path: Path) -> None:
    broken = {"rank": 0, "status": "exception", "exit_code": 1, "harness_error": "recording the environment: OSError: x",
              "exception": {"type": "json.decoder.JSONDecodeError", "message": "Expecting property name", "frames": []}}
    assert judge(JSON_ERROR, [broken], exit_code=1) == (False, "error", "harness error: rank 0: recording the environment: OSError: x")
    path = tmp_path / "result-rank1.json"
    path.write_text('{"rank": 1, "status": "ok"')  # cut short
    rank = runner._read_rank(path)
    assert rank["rank"] == 1 and "unreadable result-rank1.json" in rank["harness_error"]
    assert judge(COMPLETES, [rank], exit_code=0, measures={"done": 1})[1] == "error"


# ---- the judge on recorded data: torchrun, memory caps, a kill the case is about


def judge(expected: Expected, ranks: list[dict[str, Any]], *, exit_code: int | None,
          measures: dict[str, float] | None = None, output: str = "") -> tuple[bool, str, str]:
    return runner.judge_run(expected, timed_out=False, exit_code=exit_code, ranks=ranks, measures=measures or {},
                            output=output, limit=60)


def running(rank: int = 0, **extra: Any) -> dict[str, Any]:
    return {"rank": rank, "script": "failing.py", "status": RUNNING, "pid": 4242 + rank, **extra}


CGROUP = {"host_memory_limit_mib": 1024.0, "host_memory_peak_mib": 1024.0, "host_oom_kills": 1.0}


def test_the_explanation_names_the_launcher_and_the_memory_caps() -> None:
    ranks = [running(launcher="torchrun", memory_cap={"gib": 7.5, "devices": []})]
    passed, outcome, why = judge(JSON_ERROR, ranks, exit_code=1, measures=CGROUP)
    assert (passed, outcome) == (False, WORKER_DIED)
    assert "rank 0 (pid 4242) started the program and never reported (torchrun exited with 1)" in why
    assert "a host-memory cap of 1024 MiB (the kernel's OOM killer ended 1 process in it)" in why
    assert "a GPU-memory cap of 7.5 GiB" in why
    assert "signal 11 (SIGSEGV)" in judge(JSON_ERROR, [running()], exit_code=-11)[2]
    # killed before the harness wrote anything: still a death, not a harness error
    passed, outcome, why = judge(JSON_ERROR, [], exit_code=-9, measures=CGROUP)
    assert outcome == WORKER_DIED and "the harness's process was killed by signal 9 (SIGKILL) before it recorded anything" in why


def test_a_case_whose_worker_is_meant_to_die_is_judged_by_its_expectation() -> None:
    # a host-oom case's silent failure (KB0036's shape): the worker's death is what it shows
    meant = Expected(fails=True, measures=(Measure("host_oom_kills", min=1),), warnings=(re.compile(r"exitcode: -9"),))
    ranks = [running(launcher="torchrun")]
    assert judge(meant, ranks, exit_code=1, measures=CGROUP, output="failed (exitcode: -9) local_rank: 0")[:2] == (True, "reproduced")
    passed, outcome, why = judge(meant, ranks, exit_code=1, measures=CGROUP | {"host_oom_kills": 0.0},
                                 output="failed (exitcode: -9) local_rank: 0")
    assert (passed, outcome) == (False, WORKER_DIED) and "host_oom_kills = 0, expected host_oom_kills >= 1" in why
    # the expected exception on another rank is the failure, whatever happened to this one
    raised = {"rank": 1, "status": "exception", "exit_code": 1,
              "exception": {"type": "json.decoder.JSONDecodeError", "message": "Expecting property name", "frames": []}}
    assert judge(JSON_ERROR, [running(), raised], exit_code=1)[:2] == (True, "reproduced")


def test_a_fix_its_own_measures_refute_is_fix_failed_even_if_the_worker_died() -> None:
    fixed = Expected(fails=False, measures=(Measure("host_oom_kills", max=0), Measure("steps", min=64)))
    passed, outcome, why = judge(fixed, [running()], exit_code=-9, measures=CGROUP)
    assert (passed, outcome) == (False, "fix-failed")
    assert "host_oom_kills = 1, expected host_oom_kills <= 0" in why and "SIGKILL" in why
    # only the printed measure is missing (the death kept it from being printed): no verdict
    passed, outcome, _ = judge(fixed, [running()], exit_code=-9, measures=CGROUP | {"host_oom_kills": 0.0})
    assert (passed, outcome) == (False, WORKER_DIED)


def test_which_deaths_get_a_second_run() -> None:
    def execution(exit_code: int, measures: dict[str, float] | None = None) -> Execution:
        return Execution([], exit_code, False, "", [running()], measures or {}, 1.0, "")

    assert runner.worth_a_second_run(JSON_ERROR, execution(-9), WORKER_DIED)
    assert runner.worth_a_second_run(JSON_ERROR, execution(-9, CGROUP | {"host_oom_kills": 0.0}), WORKER_DIED)
    assert not runner.worth_a_second_run(JSON_ERROR, execution(-9, CGROUP), WORKER_DIED)  # the run's own cap killed it
    assert not runner.worth_a_second_run(OOM_KILLED, execution(-9), WORKER_DIED)  # the case is about the kill
    assert not runner.worth_a_second_run(JSON_ERROR, execution(-11), WORKER_DIED)  # the program crashed itself
    assert not runner.worth_a_second_run(JSON_ERROR, execution(3), WORKER_DIED)
    assert not runner.worth_a_second_run(JSON_ERROR, execution(-9), "not-reproduced")

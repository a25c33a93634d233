"""`kb reproduce` and `kb verify` report a run whose process died before it reported (outcome ``worker-died``)
as no verdict: exit code 4 (kb/cli/output.py EXIT_WORKER_DIED), one line on standard error naming the
signal or exit status and the memory caps, the outcome in the JSON; a program that ran and did not behave as
documented keeps exit code 1.

The runs are real: a copy of case KB0001 in a temporary cases folder (``KB_CASES_DIR``) whose failing
program is one of the tiny programs of tests/fixtures/harness/ (killed by SIGKILL, exiting before the
harness reports, failing the ordinary way), run by ``python -m kb`` in a subprocess.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kb.cli.output import EXIT_NO_MATCH, EXIT_OK, EXIT_WORKER_DIED
from kb.reproduce.result import WORKER_DIED

REPO = Path(__file__).resolve().parent.parent
PROGRAMS = REPO / "tests" / "fixtures" / "harness"
CASE = "KB0001-dtype-double-vs-float"  # a CPU reproduction whose failing program the copy replaces


def reproduce(tmp_path: Path, program: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`kb reproduce KB0001 --profile cpu ARGS` with ``program`` (of tests/fixtures/harness/) as its failing program."""
    cases = tmp_path / "cases"
    shutil.copytree(REPO / "cases" / CASE, cases / CASE, ignore=shutil.ignore_patterns("evidence"))
    shutil.copy(PROGRAMS / program, cases / CASE / "failing.py")
    env = {**os.environ, "KB_CASES_DIR": str(cases), "KB_CACHE_DIR": str(tmp_path / "cache"), "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-m", "kb", "reproduce", "KB0001", "--profile", "cpu", *args],
                          capture_output=True, text=True, cwd=REPO, env=env, timeout=120)
    assert "Traceback (most recent call last)" not in proc.stderr, proc.stderr
    return proc


def test_a_worker_killed_by_sigkill_is_no_verdict_with_its_own_exit_code(tmp_path: Path) -> None:
    proc = reproduce(tmp_path, "killed.py")
    assert proc.returncode == EXIT_WORKER_DIED == 4, (proc.stdout, proc.stderr)
    message = proc.stderr.strip().splitlines()
    assert len(message) == 1, proc.stderr
    assert message[0].startswith("kb reproduce: no verdict on KB0001 default failing on cpu (worker-died): ")
    assert "killed by signal 9 (SIGKILL)" in message[0] and "under no memory cap of kb's" in message[0]
    assert "did not reproduce" not in proc.stdout + proc.stderr
    assert "KB0001 default failing on cpu: worker-died" in proc.stdout  # the verdict line says it too
    assert (tmp_path / "cases" / CASE / "runs.log").read_text().splitlines() == ["killed", "killed"]  # retried once


def test_the_json_output_carries_the_outcome(tmp_path: Path) -> None:
    proc = reproduce(tmp_path, "killed.py", "--format", "json")
    assert proc.returncode == EXIT_WORKER_DIED, proc.stderr
    doc = json.loads(proc.stdout)  # standard output is the JSON document only
    assert (doc["outcome"], doc["passed"], doc["exit_code"]) == (WORKER_DIED, False, -9)
    assert "killed by signal 9 (SIGKILL)" in doc["explanation"]
    assert len(proc.stderr.strip().splitlines()) == 1 and "SIGKILL" in proc.stderr


def test_an_exit_before_the_harness_reports_is_no_verdict_naming_the_exit_status(tmp_path: Path) -> None:
    proc = reproduce(tmp_path, "exits.py", "--quiet")
    assert proc.returncode == EXIT_WORKER_DIED, (proc.stdout, proc.stderr)
    assert "exited with 3 while the program ran, before it reported" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_run_without_a_verdict_is_not_recorded(tmp_path: Path) -> None:
    proc = reproduce(tmp_path, "killed.py", "--record", "--quiet")
    assert proc.returncode == EXIT_WORKER_DIED, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.strip().endswith("; not recorded")
    assert not list((tmp_path / "cases" / CASE).glob("evidence/*.json"))
    other = tmp_path / "other"
    other.mkdir()
    proc = reproduce(other, "reports.py", "--record", "--quiet")  # a verdict, even a failed one, is recorded
    assert proc.returncode == EXIT_NO_MATCH and "recorded " in proc.stderr, proc.stderr
    assert [p.name for p in (other / "cases" / CASE).glob("evidence/*.json")] == ["default.failing.cpu.json"]


@pytest.mark.parametrize("program", ["reports.py", "completes.py"])
def test_a_program_that_ran_and_did_not_reproduce_keeps_exit_code_1(tmp_path: Path, program: str) -> None:
    # reports.py raises a JSONDecodeError, completes.py completes: neither is KB0001's dtype error
    proc = reproduce(tmp_path, program, "--format", "json")
    assert proc.returncode == EXIT_NO_MATCH == 1, (proc.stdout, proc.stderr)
    doc = json.loads(proc.stdout)
    assert (doc["outcome"], doc["passed"]) == ("not-reproduced", False)
    assert "no verdict" not in proc.stderr and WORKER_DIED not in proc.stderr


# ---- kb verify: the exit code from the matrix entries (kb/reproduce/matrix.py writes them from real runs)


def entry(status: str, failing: str, fixed: str, reason: str = "") -> object:
    from kb.reproduce.matrix import Entry

    return Entry("lowest", "default", "cpu", status, "2026-01-01T00:00:00+00:00",
                 failing={"outcome": failing}, fixed={"outcome": fixed}, reason=reason)


def test_verify_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    from kb.cli.verify import verify_exit_code
    from kb.knowledge.registry import find_case

    case = find_case("KB0001")
    died = entry("fail", WORKER_DIED, "fixed",
                 "failing: no verdict, the worker died: rank 0 (pid 7) was killed by signal 9 (SIGKILL) while the "
                 "program ran, before it reported, under a host-memory cap of 1024 MiB")
    passed = entry("pass", "reproduced", "fixed")
    failed = entry("fail", "not-reproduced", "fixed", "failing: expected RuntimeError")
    both = entry("fail", WORKER_DIED, "fix-failed", "failing: no verdict ...; fixed: raised ValueError")
    assert verify_exit_code([(case, passed)]) == EXIT_OK
    assert capsys.readouterr().err == ""
    assert verify_exit_code([(case, passed), (case, died)]) == EXIT_WORKER_DIED
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["kb verify: no verdict on KB0001 default (lowest): failing: no verdict, the worker died: rank 0 "
                   "(pid 7) was killed by signal 9 (SIGKILL) while the program ran, before it reported, under a "
                   "host-memory cap of 1024 MiB"]
    assert verify_exit_code([(case, died), (case, failed)]) == EXIT_NO_MATCH  # a real failure outranks no verdict
    capsys.readouterr()
    assert verify_exit_code([(case, both)]) == EXIT_NO_MATCH  # the fixed program's own failure is a verdict
    assert capsys.readouterr().err == ""


# ---- python -m kb.apidrift.verify: a drift run whose process died is not verified and records no evidence


def test_a_drift_run_whose_worker_died_is_not_verified_and_records_nothing(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The real harness runs killed.py in place of the entry's program; only the pinned wheelhouse (not in
    CI) is left out: the spec drops the pins, and no pin set is reported missing."""
    import dataclasses

    from kb.apidrift import verify as drift

    entry = drift.all_entries()[0]
    folder = tmp_path / entry.name
    shutil.copytree(entry.path, folder, ignore=shutil.ignore_patterns("evidence"))
    entry = entry.replace(folder=str(folder))  # (a Frozen value: kb/knowledge/values.py)
    failing = entry.runs()[0]
    assert failing.must_fail
    shutil.copy(PROGRAMS / "killed.py", folder / failing.program)

    original_spec = drift.spec
    monkeypatch.setattr(drift, "spec", lambda e, run, house: dataclasses.replace(original_spec(e, run, house),
                                                                                  pins=(), timeout=60))
    monkeypatch.setattr(drift, "skip_reason", lambda pins, house: None)
    monkeypatch.setattr(drift.Entry, "runs", lambda self: [failing])  # the failing run only
    [(run, verified, explanation)] = drift.verify_entry(entry, tmp_path / "wheelhouse", record=True)
    assert (run, verified) == (failing, False), explanation
    assert explanation.startswith("no verdict, the worker died: rank 0 (pid ")
    assert "killed by signal 9 (SIGKILL) while the program ran, before it reported, under no memory cap of kb's" in explanation
    assert "a second run; the first gave no verdict" in explanation and explanation.endswith("; no evidence recorded")
    assert not (folder / "evidence").exists()  # no "running" record written as the run's evidence
    assert (folder / "runs.log").read_text().splitlines() == ["killed", "killed"]

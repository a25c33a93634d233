"""Run a program under the harness in a subprocess, and judge what it did: for cases and drift entries alike.

Two halves, each taking a neutral description that a case reproduction and an API-history entry
(drift/, kb/apidrift/verify.py) both supply:

* :class:`RunSpec` (program, launcher, environment, pins, timeout, memory caps) -> :func:`execute`
  runs it under :mod:`kb.reproduce.harness` and returns what happened (:class:`Execution`);
* :class:`Expected` (must it fail; exception types, message regex, innermost-frame regexes;
  measures; warnings) -> :func:`judge_run` (with :func:`judge_failing`, :func:`judge_fixed`,
  :func:`judge_pins`) says whether the run showed it. Judging reads plain data, so recorded
  evidence is re-judged by the same functions as a fresh run.

A run ends in one of three kinds of verdict. The program ran and reported: it reproduced or not, the
fix worked or not (or the run timed out). The harness's process died before it reported (a rank
still "running", kb/reproduce/harness.py): a signal, the kernel's OOM killer, an exit that skipped the
harness. That is ``worker-died``, never "did not reproduce", and its explanation names the signal or
exit status and the memory caps in force; only a fixed program whose own measures already refute it
is "fix-failed". The harness failed itself (it recorded nothing and was not killed, or recorded a
``harness_error``): ``error``. :func:`run_and_judge` runs a program once more when its process was
killed by SIGKILL and nothing in the run says the kill was its own (see :func:`worth_a_second_run`).

Nothing here raises on the program's behalf.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import kb

from kb.knowledge.model import Case
from kb.knowledge.reproductions import Expectation, Measure, Reproduction
from kb.reproduce.pinned import (
    PINS_ENV, canonical_name, compare as compare_pins, parse_pins, prepare as prepare_pinned,
    skip_reason as pinned_skip_reason, unpinned,
)
from kb.reproduce.memlimit import LIMIT_MEASURE, OOM_KILLS_MEASURE, create as create_memory_cgroup
from kb.reproduce.forkserver import eligible
from kb.reproduce.profiles import get_profile, missing_hardware, missing_packages, visible_devices
from kb.reproduce.ranges import installed_versions, version_problem
from kb.reproduce.result import RUNNING, WORKER_DIED, RunResult

REPO_ROOT = Path(kb.REPO_ROOT)
MEASURE_LINE = re.compile(r"^kb-measure\s+(?P<name>[A-Za-z_][\w.]*)=(?P<value>[-+0-9.eE]+|nan|inf)\s*$")
OUTPUT_KEEP = 200_000  # characters of combined output kept in a result


class LauncherError(ValueError):
    pass


@dataclass(frozen=True)
class Expected:
    """What one run must show, in terms that neither a case nor a drift entry owns.

    ``fails``: the program must fail. With ``exceptions``, some rank raised one of those types
    (compared by class name, :func:`type_accepted`) with a message matching ``message`` in an
    innermost frame whose fields match every ``raised_in`` pattern (keys ``file``, ``function``,
    ``code``, or ``location`` = ``"<file>:<function>"``); without, it is a silent failure that
    ``measures`` show. Not ``fails``: the program must complete (exit 0, no rank raised).
    Either way every measure must be printed and in range and every warning regex must occur.
    """

    fails: bool
    exceptions: tuple[str, ...] = ()
    message: re.Pattern[str] | None = None
    raised_in: dict[str, re.Pattern[str]] = field(default_factory=dict)
    measures: tuple[Measure, ...] = ()
    warnings: tuple[re.Pattern[str], ...] = ()


def case_expected(case: Case, expect: Expectation, fails: bool) -> Expected:
    """A case reproduction's failing_expect/fixed_expect as an :class:`Expected` (its signature gives type and message)."""
    exceptions: tuple[str, ...] = ()
    message = None
    if expect.signature:
        signature = case.signature(expect.signature)
        exceptions, message = signature.exceptions, signature.message
    return Expected(fails, exceptions, message, dict(expect.raised_in), tuple(expect.measures), tuple(expect.warnings))


@dataclass(frozen=True)
class RunSpec:
    """One program to run under the harness; a case reproduction and a drift entry's run both become one."""

    label: str  # names the temporary folder: a case id, a drift entry
    script: Path
    expected: Expected
    timeout: float
    launcher: str = "python"  # or "torchrun"
    nproc: int = 1
    env: dict[str, str] = field(default_factory=dict)  # set over the caller's environment
    pins: tuple[str, ...] = ()  # exact versions installed offline and put first on the path (kb/reproduce/pinned.py)
    wheelhouse: Path | None = None  # where the pinned wheels come from (default: pinned.wheelhouse())
    memory_cap_gib: float | None = None  # per-GPU cap applied in the child (an emulated smaller card)
    host_memory_cap_gib: float | None = None  # host RAM limit: a memory cgroup the program joins
    fork: bool = False  # run as a fork of a preloaded Python (kb/reproduce/forkserver.py; tests, never evidence)
    python: str = ""  # the interpreter that runs it (a `kb verify` stack's venv); default: this one


@dataclass
class Execution:
    """What one run did, before judging."""

    command: list[str]
    exit_code: int | None  # None: killed at the timeout
    timed_out: bool
    output: str  # stdout and stderr, interleaved
    ranks: list[dict[str, Any]]  # the harness's result-rank*.json, one per process
    measures: dict[str, float]
    duration_s: float
    date: str


def cannot_run(rep: Reproduction, profile_name: str, program: str | None = None) -> str | None:
    """Why ``rep``'s ``program`` (``failing``, ``fixed``; None: both) cannot run on ``profile_name`` on this
    machine (hardware, packages, pinned wheels), or None.

    The one check behind pytest's skips and `kb reproduce`'s exit 3; a reproduction whose
    ``requires_versions`` the installed libraries miss skips with the versions it needs and found
    (kb/reproduce/ranges.py). Each program is checked with its own pins (``fixed_pins``).
    """
    hardware = missing_hardware(get_profile(profile_name))
    if hardware:
        return hardware
    for name in (program,) if program else ("failing", "fixed"):
        pins = rep.pins_for(name)
        reason = (
            missing_packages(unpinned(rep.requires, pins))
            or pinned_skip_reason(pins)
            or version_problem(rep, installed_versions(), pins)
        )
        if reason:
            return f"the fixed program: {reason}" if name == "fixed" and rep.fixed_pins is not None else reason
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build_command(spec: RunSpec, result_dir: Path) -> list[str]:
    harness = ["-m", "kb.reproduce.harness", "--result-dir", str(result_dir)]
    if spec.memory_cap_gib:
        harness += ["--memory-cap-gib", str(spec.memory_cap_gib)]
    harness.append(str(spec.script))
    python = spec.python or sys.executable
    if spec.launcher == "python":
        return [python, *harness]
    if spec.launcher == "torchrun":
        return [
            python, "-m", "torch.distributed.run",
            "--nproc-per-node", str(spec.nproc), "--master-port", str(_free_port()),
            *harness,
        ]
    raise LauncherError(f"unknown launcher {spec.launcher!r} (known: python, torchrun)")


def parse_measures(output: str) -> dict[str, float]:
    measures: dict[str, float] = {}
    for line in output.splitlines():
        m = MEASURE_LINE.match(line.strip())
        if m:
            measures[m["name"]] = float(m["value"])
    return measures


# ---- judging: what a run showed against what it must show (no subprocess, no case: plain data in, verdict out)


def _innermost_frame(exception: dict[str, Any]) -> dict[str, Any]:
    frames = exception.get("frames") or []
    return frames[-1] if frames else {"file": "", "function": "", "code": ""}


def frame_field(frame: dict[str, Any], key: str) -> str:
    """A field of a recorded frame; ``location`` is ``"<file>:<function>"`` (what drift entries match)."""
    if key == "location":
        return f"{frame.get('file', '')}:{frame.get('function', '')}"
    return str(frame.get(key, ""))


def _frame_matches(expected: Expected, frame: dict[str, Any]) -> bool:
    return all(pattern.search(frame_field(frame, key)) for key, pattern in expected.raised_in.items())


def type_accepted(exception_type: str, accepted: tuple[str, ...]) -> bool:
    """The recorded type is one of ``accepted``, compared by the class name after the last dot
    (``torch.OutOfMemoryError`` accepts ``torch.cuda.OutOfMemoryError``), as a case signature compares."""
    short = exception_type.rsplit(".", 1)[-1]
    return any(short == name.rsplit(".", 1)[-1] for name in accepted)


def _where(exception: dict[str, Any]) -> str:
    frame = _innermost_frame(exception)
    return f"{frame.get('file')}:{frame.get('line')} in {frame.get('function')}"


def judge_exception(expected: Expected, exception: dict[str, Any]) -> tuple[bool, str]:
    """One recorded exception against the expected type, message and innermost frame."""
    where = _where(exception)
    if not type_accepted(exception["type"], expected.exceptions):
        return False, f"{exception['type']} (expected {' or '.join(expected.exceptions)}) at {where}"
    if expected.message is not None and not expected.message.search(exception["message"]):
        return False, f"{exception['type']} with a message not matching /{expected.message.pattern}/: {exception['message'][:300]!r}"
    if not _frame_matches(expected, _innermost_frame(exception)):
        wanted = {k: p.pattern for k, p in expected.raised_in.items()}
        return False, f"{exception['type']} raised at {where}, not where expected ({wanted})"
    return True, f"{exception['type']}: {exception['message'][:300]} (raised at {where})"


def _check_measures(expected: Expected, measures: dict[str, float]) -> list[str]:
    problems = []
    for measure in expected.measures:
        if measure.name not in measures:
            problems.append(f"the program printed no `kb-measure {measure.name}=...` line")
        elif not measure.check(measures[measure.name]):
            problems.append(f"{measure.name} = {measures[measure.name]:g}, expected {measure.describe()}")
    return problems


def _check_warnings(expected: Expected, output: str) -> list[str]:
    return [f"expected a warning matching /{w.pattern}/ in the output" for w in expected.warnings if not w.search(output)]


def _rank_ended(rank: dict[str, Any]) -> str:
    """How a rank that raised nothing ended: ``rank 0 ok (exit 0)``, ``rank 1 never reported (pid 42)``."""
    if rank.get("status") == RUNNING:
        return f"rank {rank.get('rank', 0)} never reported (pid {rank.get('pid', '?')})"
    if rank.get("status") == "ok":
        return f"rank {rank.get('rank', 0)} ok (exit {rank.get('exit_code')})"
    return f"rank {rank.get('rank', 0)} ended with status {rank.get('status')!r} (exit {rank.get('exit_code')})"


def judge_failing(expected: Expected, ranks: list[dict[str, Any]], measures: dict[str, float], output: str) -> tuple[bool, str]:
    """A program that must fail: some rank raised the expected exception (when one is expected), and
    the measures and warnings hold (a silent failure has only those)."""
    problems: list[str] = []
    if expected.exceptions:
        seen = []
        matched = None
        for rank in ranks:
            exc = rank.get("exception")
            if not exc:
                seen.append(_rank_ended(rank))
                continue
            ok, why = judge_exception(expected, exc)
            if ok:
                matched = why
                break
            seen.append(why)
        if not ranks:
            seen.append("no result from the harness")
        if matched is None:
            problems.append("; ".join(seen))
    problems += _check_measures(expected, measures)
    problems += _check_warnings(expected, output)
    if problems:
        return False, "did not reproduce: " + "; ".join(problems)
    shown = ", ".join(f"{k}={v:g}" for k, v in measures.items())
    if expected.exceptions:
        return True, f"{matched}; {shown}" if shown else str(matched)
    return True, f"reproduced: {shown}" if shown else "reproduced"


def judge_fixed(expected: Expected, ranks: list[dict[str, Any]], exit_code: int | None, measures: dict[str, float], output: str) -> tuple[bool, str]:
    """A program that must complete: exit 0, no rank raised or ended otherwise, measures and warnings hold.

    ``exit_code`` None: the process's exit code was not recorded (re-judging recorded evidence);
    each rank's own status then decides.
    """
    problems: list[str] = []
    if exit_code is not None and exit_code != 0:
        problems.append(f"exited with {exit_code}")
    for rank in ranks:
        exc = rank.get("exception")
        if exc:
            problems.append(f"rank {rank.get('rank', 0)} raised {exc['type']}: {exc['message'][:300]}")
        elif rank.get("status") != "ok":
            problems.append(_rank_ended(rank))
    if not ranks:
        problems.append("no result from the harness")
    problems += _check_measures(expected, measures)
    problems += _check_warnings(expected, output)
    if problems:
        return False, "fix did not work: " + "; ".join(problems)
    shown = ", ".join(f"{k}={v:g}" for k, v in measures.items())
    return True, f"fix works: {shown}" if shown else "fix works: the program completed"


def judge_pins(pins: tuple[str, ...], ranks: list[dict[str, Any]]) -> tuple[bool, str]:
    """A pinned run proves something only if every rank recorded every pinned package at its pinned version."""
    if not pins:
        return True, "no pins"
    if not ranks:
        return False, "no result from the harness: the versions that ran are unknown"
    problems = []
    for rank in ranks:
        versions = rank.get("environment", {}).get("versions", {}) or {}
        problems += compare_pins(pins, versions)
        recorded = {canonical_name(name) for name in versions}
        problems += [f"pinned {pin} but the run recorded no version of {pin.name}" for pin in parse_pins(pins) if pin.name not in recorded]
    if problems:
        return False, "; ".join(dict.fromkeys(problems))
    return True, "ran the pinned versions: " + ", ".join(pins)


def exit_status(exit_code: int | None) -> str:
    """A process's end in words: ``was killed by signal 9 (SIGKILL)``, ``exited with 3``."""
    if exit_code is None:
        return "ended with an exit status nobody recorded"
    if exit_code < 0:
        try:
            name = signal.Signals(-exit_code).name
        except ValueError:
            name = "unknown"
        return f"was killed by signal {-exit_code} ({name})"
    return f"exited with {exit_code}"


def memory_caps(ranks: list[dict[str, Any]], measures: dict[str, float]) -> str:
    """The memory caps a run was under, in words (the host cgroup's limit and OOM kills, the per-GPU cap)."""
    caps = []
    if LIMIT_MEASURE in measures:
        cap = f"a host-memory cap of {measures[LIMIT_MEASURE]:g} MiB"
        if OOM_KILLS_MEASURE in measures:
            kills = measures[OOM_KILLS_MEASURE]
            cap += f" (the kernel's OOM killer ended {kills:g} process{'' if kills == 1 else 'es'} in it)"
        caps.append(cap)
    gpu = next((r["memory_cap"].get("gib") for r in ranks if isinstance(r.get("memory_cap"), dict)), None)
    if gpu:
        caps.append(f"a GPU-memory cap of {gpu:g} GiB")
    return "under " + " and ".join(caps) if caps else "under no memory cap of kb's"


def worker_death(exit_code: int | None, ranks: list[dict[str, Any]], measures: dict[str, float]) -> str | None:
    """How the harness's process died before it reported, in words; None when nothing says one did.

    A rank still ``running`` started the program and never reported. No record at all and a signal:
    killed before the harness wrote anything. No record and a plain exit is not a death but the
    harness failing before the program started (:func:`judge_run` calls that an error).
    """
    unreported = [r for r in ranks if r.get("status") == RUNNING]
    if unreported:
        who = " and ".join(f"rank {r.get('rank', 0)} (pid {r.get('pid', '?')})" for r in unreported)
        launcher = next((str(r["launcher"]) for r in unreported if r.get("launcher")), None)
        if launcher:  # the exit status we have is the launcher's; its own output names the rank's
            how = f"started the program and never reported ({launcher} {exit_status(exit_code)})"
        else:
            how = f"{exit_status(exit_code)} while the program ran, before it reported"
        return f"{who} {how}, {memory_caps(ranks, measures)}"
    if not ranks and exit_code is not None and exit_code < 0:
        return f"the harness's process {exit_status(exit_code)} before it recorded anything, {memory_caps(ranks, measures)}"
    return None


def _fix_refuted(expected: Expected, reported: list[dict[str, Any]], measures: dict[str, float]) -> bool:
    """Whether a fixed program is shown not to work even though a process died before reporting: a rank
    that did report raised or ended badly, or a measure that was taken is out of its range (the kernel's
    OOM-kill count, say). A measure the death kept from being printed refutes nothing."""
    if any(r.get("exception") or r.get("status") != "ok" for r in reported):
        return True
    return any(m.name in measures and not m.check(measures[m.name]) for m in expected.measures)


def judge_run(
    expected: Expected,
    *,
    timed_out: bool,
    exit_code: int | None,
    ranks: list[dict[str, Any]],
    measures: dict[str, float],
    output: str,
    pins: tuple[str, ...] = (),
    limit: float | None = None,
) -> tuple[bool, str, str]:
    """The verdict on one run: (passed, outcome, explanation).

    outcome: ``timeout``; ``reproduced``/``not-reproduced`` for a program that must fail;
    ``fixed``/``fix-failed`` for one that must complete; ``worker-died`` when the expectation was not
    met and the harness's process died before it reported (:func:`worker_death`; a fixed program
    whose reported ranks or taken measures refute it stays ``fix-failed``); ``error`` when the harness
    failed itself, or when a pinned run did not run (or did not record) its pinned versions,
    whatever it did otherwise. The expectation is always checked first: a run that shows what the
    case says passes even though a process died (a case whose worker is meant to be killed).
    """
    if timed_out:
        return False, "timeout", f"timed out after {limit} s"
    broken = [f"rank {r.get('rank', 0)}: {r['harness_error']}" for r in ranks if r.get("harness_error")]
    if broken:
        return False, "error", "harness error: " + "; ".join(broken)
    if expected.fails:
        passed, explanation = judge_failing(expected, ranks, measures, output)
        outcome = "reproduced" if passed else "not-reproduced"
    else:
        passed, explanation = judge_fixed(expected, ranks, exit_code, measures, output)
        outcome = "fixed" if passed else "fix-failed"
    reported = [r for r in ranks if r.get("status") != RUNNING]
    if not passed:
        death = worker_death(exit_code, ranks, measures)
        if death is not None and (expected.fails or not _fix_refuted(expected, reported, measures)):
            checked = _check_measures(expected, measures) + _check_warnings(expected, output)
            held = "; without its report: " + "; ".join(checked) if checked else (
                "; its measures and warnings held" if expected.measures or expected.warnings else "")
            return False, WORKER_DIED, f"no verdict, the worker died: {death}{held}"
        if death is not None:
            explanation += f" ({death})"
        elif not ranks:
            return False, "error", (f"harness error: no result from the harness: the process {exit_status(exit_code)} "
                                    "and recorded nothing, so the program never started")
    if pins and reported:  # a pinned run must have run the pinned versions, or it proves nothing
        pinned, why = judge_pins(pins, reported)
        if not pinned:
            return False, "error", f"{why} (was: {explanation})"
    return passed, outcome, explanation


# ---- running: one program under the harness, in a subprocess


def _trim(text: str) -> str:
    if len(text) <= OUTPUT_KEEP:
        return text
    half = OUTPUT_KEEP // 2
    return text[:half] + f"\n[... {len(text) - OUTPUT_KEEP} characters cut by kb ...]\n" + text[-half:]


def _run_subprocess(command: list[str], workdir: Path, env: dict[str, str], timeout: float,
                    cgroup: Any) -> tuple[int | None, bool, str]:
    """The program as a child process in its own session, killed with its children at the timeout:
    (exit code, timed out, combined output)."""
    proc = subprocess.Popen(
        command, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, errors="replace", start_new_session=True, preexec_fn=cgroup.join if cgroup else None,
    )
    try:
        output, _ = proc.communicate(timeout=timeout)
        return proc.returncode, False, output
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        return None, True, output


def _read_rank(path: Path) -> dict[str, Any]:
    """One rank's result file; one that cannot be read is the harness's failure, said as such."""
    try:
        rank = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(rank, dict):
            return rank
        problem = f"not a JSON object: {type(rank).__name__}"
    except (OSError, ValueError) as exc:
        problem = f"{type(exc).__name__}: {exc}"
    number = path.stem.removeprefix("result-rank")
    return {"rank": int(number) if number.isdigit() else number, "harness_error": f"unreadable {path.name} ({problem})"}


def execute(spec: RunSpec) -> Execution:
    """Run ``spec``'s program under the harness (in its own session, killed with its children at the timeout)."""
    date = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    safe_label = re.sub(r"[^A-Za-z0-9_.-]+", "-", spec.label)
    with tempfile.TemporaryDirectory(prefix=f"kb-{safe_label}-") as tmp:
        result_dir = Path(tmp) / "results"
        workdir = Path(tmp) / "work"
        workdir.mkdir()
        command = build_command(spec, result_dir)
        env = os.environ.copy()
        env.update(spec.env)
        env["PYTHONUNBUFFERED"] = "1"
        pinned_site = None
        if spec.pins:  # the pinned wheels shadow the machine's packages (kb/reproduce/pinned.py)
            pinned_site = str(prepare_pinned(spec.pins, spec.wheelhouse))
            env[PINS_ENV] = " ".join(spec.pins)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), pinned_site, env.get("PYTHONPATH")]))
        # A host-RAM limit is a memory cgroup the program joins before exec (never for a fork: forkserver.eligible).
        cgroup = create_memory_cgroup(spec.host_memory_cap_gib) if spec.host_memory_cap_gib else None
        t0 = time.monotonic()
        if spec.fork:
            from kb.reproduce.forkserver import server_for

            log = Path(tmp) / "output.log"
            exit_code, timed_out = server_for(env).run(command[3:], str(workdir), env, str(log), spec.timeout)
            output = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
        else:
            exit_code, timed_out, output = _run_subprocess(command, workdir, env, spec.timeout, cgroup)
        duration = time.monotonic() - t0
        ranks = [_read_rank(p) for p in sorted(result_dir.glob("result-rank*.json"))]
        cgroup_measures = cgroup.measures() if cgroup else {}
        if cgroup:
            cgroup.remove()
    measures = parse_measures(output)
    measures.update(cgroup_measures)  # measured by the kernel for the run, not printed by the program
    return Execution(command, exit_code, timed_out, output, ranks, measures, round(duration, 2), date)


def expects_oom_kill(expected: Expected) -> bool:
    """Whether the program is meant to be OOM-killed: its expectation asks for at least one kill by the
    kernel in its memory cgroup (how host-oom cases declare it: ``host_oom_kills`` with a ``min``)."""
    return any(m.name == OOM_KILLS_MEASURE and m.min is not None and m.min > 0 for m in expected.measures)


def worth_a_second_run(expected: Expected, ran: Execution, outcome: str) -> bool:
    """Whether a run gets one more try: its harness process was killed by SIGKILL before it reported, the
    program is not meant to be OOM-killed, and its memory cgroup (where it had one) counted no OOM kill.

    Such a kill came from outside the run: the machine's OOM killer under other users' load, a person,
    a container's supervisor; a second run says what the program does. Where the run's own memory cap
    killed it, or the case is about that kill, the kernel picks its victim by size and would pick the
    same process again: the first verdict stands (and a second run would double a slow case's time).
    A signal other than SIGKILL (SIGSEGV, SIGABRT) or an exit code is the program's own doing.
    """
    return (outcome == WORKER_DIED and ran.exit_code == -signal.SIGKILL and not expects_oom_kill(expected)
            and not ran.measures.get(OOM_KILLS_MEASURE))


def _judge_execution(spec: RunSpec, ran: Execution) -> tuple[bool, str, str]:
    return judge_run(
        spec.expected, timed_out=ran.timed_out, exit_code=ran.exit_code, ranks=ran.ranks,
        measures=ran.measures, output=ran.output, pins=spec.pins, limit=spec.timeout,
    )


def run_and_judge(spec: RunSpec) -> tuple[Execution, bool, str, str]:
    """:func:`execute` then :func:`judge_run`: (what happened, passed, outcome, explanation); once more
    when :func:`worth_a_second_run` says so, the second run's verdict saying what the first was."""
    ran = execute(spec)
    passed, outcome, explanation = _judge_execution(spec, ran)
    if worth_a_second_run(spec.expected, ran, outcome):
        first = explanation
        ran = execute(spec)
        passed, outcome, explanation = _judge_execution(spec, ran)
        explanation += f" (a second run; the first gave no verdict: {first.removeprefix('no verdict, ')})"
    return ran, passed, outcome, explanation


def case_spec(case: Case, rep: Reproduction, program: str, profile_name: str, timeout: int | None = None,
              preloaded: bool = False) -> RunSpec:
    """A case reproduction's failing or fixed program on a hardware profile, as a :class:`RunSpec`.
    ``preloaded``: run it as a fork of a Python that imported the libraries already, where that cannot
    change what it does (kb/reproduce/forkserver.py; the test suite's speed, never a recorded run)."""
    if program not in ("failing", "fixed"):
        raise ValueError(f"program must be 'failing' or 'fixed', not {program!r}")
    profile = get_profile(profile_name)
    fixed = program == "fixed"
    env = {**profile.env, **visible_devices(profile), **rep.env, **(rep.fixed_env if fixed else {}),
           "KB_PROFILE": profile.name}
    return RunSpec(
        label=case.id,
        script=case.path / (rep.fixed if fixed else rep.failing),
        expected=case_expected(case, rep.fixed_expect if fixed else rep.failing_expect, fails=not fixed),
        timeout=timeout or rep.timeout,
        launcher=rep.launcher,
        nproc=rep.fixed_nproc if fixed and rep.fixed_nproc else rep.nproc,
        env=env,
        pins=rep.pins_for(program),
        memory_cap_gib=profile.memory_cap_gib,
        host_memory_cap_gib=profile.host_memory_cap_gib,
        fork=preloaded and not rep.fresh_python and eligible(
            rep.launcher, profile.gpus, profile.host_memory_cap_gib, rep.pins_for(program),
            {**rep.env, **(rep.fixed_env if fixed else {})}),
    )


def run_program(
    case: Case,
    rep: Reproduction,
    program: str,
    profile_name: str,
    timeout: int | None = None,
    preloaded: bool = False,
) -> RunResult:
    """Run ``rep``'s failing or fixed program on ``profile_name`` and judge it (``preloaded``: see case_spec)."""
    spec = case_spec(case, rep, program, profile_name, timeout, preloaded)
    ran, passed, outcome, explanation = run_and_judge(spec)
    return RunResult(
        case_id=case.id, slug=case.slug, reproduction=rep.name, program=program,
        profile=profile_name, outcome=outcome, passed=passed, explanation=explanation,
        exit_code=ran.exit_code, duration_s=ran.duration_s, date=ran.date, command=ran.command,
        output=_trim(ran.output), ranks=ran.ranks, measures=ran.measures,
    )

"""Run a case's failing or fixed program in a subprocess and judge the outcome.

The program runs under :mod:`kb.reproduce.harness` with the case's launcher, a timeout and
the hardware profile applied. Judging compares what the library raised (type,
message, innermost frame) or what the program measured against the case's
expectations; nothing here raises on the program's behalf.
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
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import kb

from kb.knowledge.model import Case, Expectation, Reproduction
from kb.reproduce.pinned import PINS_ENV, compare as compare_pins, prepare as prepare_pinned, skip_reason as pinned_skip_reason, unpinned
from kb.reproduce.memlimit import create as create_memory_cgroup
from kb.reproduce.profiles import Profile, get_profile, missing_hardware, missing_packages
from kb.reproduce.result import RunResult

REPO_ROOT = Path(kb.REPO_ROOT)
MEASURE_LINE = re.compile(r"^kb-measure\s+(?P<name>[A-Za-z_][\w.]*)=(?P<value>[-+0-9.eE]+|nan|inf)\s*$")
OUTPUT_KEEP = 200_000  # characters of combined output kept in a result


class LauncherError(ValueError):
    pass


def cannot_run(rep: Reproduction, profile_name: str) -> str | None:
    """Why ``rep`` cannot run on ``profile_name`` on this machine (hardware, packages, pinned wheels), or None.

    The one check behind pytest's skips and `kb reproduce`'s exit 3.
    """
    return (
        missing_hardware(get_profile(profile_name))
        or missing_packages(unpinned(rep.requires, rep.pins))
        or pinned_skip_reason(rep.pins)
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build_command(rep: Reproduction, profile: Profile, script: Path, result_dir: Path, nproc: int | None = None) -> list[str]:
    harness = ["-m", "kb.reproduce.harness", "--result-dir", str(result_dir)]
    if profile.memory_cap_gib:
        harness += ["--memory-cap-gib", str(profile.memory_cap_gib)]
    harness.append(str(script))
    if rep.launcher == "python":
        return [sys.executable, *harness]
    if rep.launcher == "torchrun":
        return [
            sys.executable, "-m", "torch.distributed.run",
            "--nproc-per-node", str(nproc or rep.nproc), "--master-port", str(_free_port()),
            *harness,
        ]
    raise LauncherError(f"unknown launcher {rep.launcher!r} (known: python, torchrun)")


def parse_measures(output: str) -> dict[str, float]:
    measures: dict[str, float] = {}
    for line in output.splitlines():
        m = MEASURE_LINE.match(line.strip())
        if m:
            measures[m["name"]] = float(m["value"])
    return measures


def _innermost_frame(exception: dict[str, Any]) -> dict[str, Any]:
    frames = exception.get("frames") or []
    return frames[-1] if frames else {"file": "", "function": "", "code": ""}


def _frame_matches(expect: Expectation, frame: dict[str, Any]) -> bool:
    return all(pattern.search(str(frame.get(key, ""))) for key, pattern in expect.raised_in.items())


def _check_measures(expect: Expectation, measures: dict[str, float]) -> list[str]:
    problems = []
    for measure in expect.measures:
        if measure.name not in measures:
            problems.append(f"the program printed no `kb-measure {measure.name}=...` line")
        elif not measure.check(measures[measure.name]):
            problems.append(f"{measure.name} = {measures[measure.name]:g}, expected {measure.describe()}")
    return problems


def _check_warnings(expect: Expectation, output: str) -> list[str]:
    return [f"expected a warning matching /{w.pattern}/ in the output" for w in expect.warnings if not w.search(output)]


def judge_failing(case: Case, expect: Expectation, ranks: list[dict[str, Any]], measures: dict[str, float], output: str) -> tuple[bool, str]:
    problems: list[str] = []
    if expect.signature:
        signature = case.signature(expect.signature)
        seen = []
        for rank in ranks:
            exc = rank.get("exception")
            if not exc:
                seen.append(f"rank {rank.get('rank', 0)} {rank.get('status', '?')} (exit {rank.get('exit_code')})")
                continue
            frame = _innermost_frame(exc)
            where = f"{frame.get('file')}:{frame.get('line')} in {frame.get('function')}"
            if not signature.accepts_type(exc["type"]):
                seen.append(f"{exc['type']} (expected {' or '.join(signature.exceptions)}) at {where}")
            elif not signature.message.search(exc["message"]):
                seen.append(f"{exc['type']} with a message not matching /{signature.message.pattern}/: {exc['message'][:300]!r}")
            elif not _frame_matches(expect, frame):
                seen.append(f"{exc['type']} raised at {where}, not where the case says ({ {k: p.pattern for k, p in expect.raised_in.items()} })")
            else:
                return True, f"{exc['type']}: {exc['message'][:300]} (raised at {where})"
        if not ranks:
            seen.append("no result from the harness")
        problems.append("; ".join(seen))
    problems += _check_measures(expect, measures)
    problems += _check_warnings(expect, output)
    if problems:
        return False, "did not reproduce: " + "; ".join(problems)
    shown = ", ".join(f"{k}={v:g}" for k, v in measures.items())
    return True, f"reproduced: {shown}" if shown else "reproduced"


def judge_fixed(expect: Expectation, ranks: list[dict[str, Any]], exit_code: int | None, measures: dict[str, float], output: str) -> tuple[bool, str]:
    problems: list[str] = []
    if exit_code != 0:
        problems.append(f"exited with {exit_code}")
    for rank in ranks:
        exc = rank.get("exception")
        if exc:
            problems.append(f"rank {rank.get('rank', 0)} raised {exc['type']}: {exc['message'][:300]}")
    if not ranks:
        problems.append("no result from the harness")
    problems += _check_measures(expect, measures)
    problems += _check_warnings(expect, output)
    if problems:
        return False, "fix did not work: " + "; ".join(problems)
    shown = ", ".join(f"{k}={v:g}" for k, v in measures.items())
    return True, f"fix works: {shown}" if shown else "fix works: the program completed"


def _trim(text: str) -> str:
    if len(text) <= OUTPUT_KEEP:
        return text
    half = OUTPUT_KEEP // 2
    return text[:half] + f"\n[... {len(text) - OUTPUT_KEEP} characters cut by kb ...]\n" + text[-half:]


def run_program(
    case: Case,
    rep: Reproduction,
    program: str,
    profile_name: str,
    timeout: int | None = None,
) -> RunResult:
    """Run ``rep``'s failing or fixed program on ``profile_name`` and judge it."""
    if program not in ("failing", "fixed"):
        raise ValueError(f"program must be 'failing' or 'fixed', not {program!r}")
    profile = get_profile(profile_name)
    script = case.path / (rep.failing if program == "failing" else rep.fixed)
    limit = timeout or rep.timeout
    started = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    with tempfile.TemporaryDirectory(prefix=f"kb-{case.id}-") as tmp:
        result_dir = Path(tmp) / "results"
        workdir = Path(tmp) / "work"
        workdir.mkdir()
        nproc = rep.fixed_nproc if program == "fixed" and rep.fixed_nproc else rep.nproc
        command = build_command(rep, profile, script, result_dir, nproc)
        env = os.environ.copy()
        env.update(profile.env)
        env.update(rep.env)
        if program == "fixed":
            env.update(rep.fixed_env)
        env["PYTHONUNBUFFERED"] = "1"
        env["KB_PROFILE"] = profile.name
        pinned_site = None
        if rep.pins:  # the pinned wheels shadow the machine's packages (kb/reproduce/pinned.py)
            pinned_site = str(prepare_pinned(rep.pins))
            env[PINS_ENV] = " ".join(rep.pins)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), pinned_site, env.get("PYTHONPATH")]))
        # A host-RAM limit (profile.host_memory_cap_gib) is a memory cgroup the program joins before exec.
        cgroup = create_memory_cgroup(profile.host_memory_cap_gib) if profile.host_memory_cap_gib else None
        t0 = time.monotonic()
        proc = subprocess.Popen(
            command, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, errors="replace", start_new_session=True, preexec_fn=cgroup.join if cgroup else None,
        )
        try:
            output, _ = proc.communicate(timeout=limit)
            exit_code: int | None = proc.returncode
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
            exit_code, timed_out = None, True
        duration = time.monotonic() - t0
        ranks = [json.loads(p.read_text()) for p in sorted(result_dir.glob("result-rank*.json"))]
        cgroup_measures = cgroup.measures() if cgroup else {}
        if cgroup:
            cgroup.remove()

    measures = parse_measures(output)
    measures.update(cgroup_measures)  # measured by the kernel for the run, not printed by the program
    expect = rep.failing_expect if program == "failing" else rep.fixed_expect
    if timed_out:
        passed, explanation, outcome = False, f"timed out after {limit} s", "timeout"
    elif program == "failing":
        passed, explanation = judge_failing(case, expect, ranks, measures, output)
        outcome = "reproduced" if passed else "not-reproduced"
    else:
        passed, explanation = judge_fixed(expect, ranks, exit_code, measures, output)
        outcome = "fixed" if passed else "fix-failed"
    for rank in ranks:  # a pinned run must have run the pinned versions, or it proves nothing
        mismatch = compare_pins(rep.pins, rank.get("environment", {}).get("versions", {})) if rep.pins else []
        if mismatch:
            passed, outcome = False, "error"
            explanation = "; ".join(mismatch) + f" (was: {explanation})"
            break
    return RunResult(
        case_id=case.id, slug=case.slug, reproduction=rep.name, program=program,
        profile=profile.name, outcome=outcome, passed=passed, explanation=explanation,
        exit_code=exit_code, duration_s=round(duration, 2), date=started, command=command,
        output=_trim(output), ranks=ranks, measures=measures,
    )

"""Verified API-drift reproductions: run each entry of ``drift/`` on its pinned versions.

An entry (``drift/<lib>-<short-name>/``) states one fact of the API history (a parameter, an
exported name, a module or a model type that was removed, renamed or added) with two programs:
``old.py`` (the usage written for the old release) and ``new.py`` (the usage for the new one),
and two pin sets (``old_pins``, ``new_pins``) installed offline from a wheelhouse with
:mod:`kb.reproduce.pinned`. For a removal or rename the runs are

* ``old-on-new``: old.py on the new pins must FAIL with the entry's exception type, message
  and innermost frame (raised by the real library; the programs never raise it themselves);
* ``new-on-new``: new.py on the new pins must complete;
* ``old-on-old``: old.py on the old pins must complete (skipped when ``old_works`` says why not).

For an addition (``added_in``: a name newer than the old release, e.g. ``processing_class``,
model type ``qwen2``) the failing run is ``new-on-old`` and the others are ``new-on-new`` and
``old-on-old``. The entry is read by :mod:`kb.knowledge.drift_entry`; each run is mapped to
the case runner's neutral description (:class:`kb.reproduce.runner.RunSpec` and ``Expected``),
run by the same code as a case program (under :mod:`kb.reproduce.harness`, which records the
exception, frames and imported versions) and judged by the same functions
(:func:`kb.reproduce.runner.judge_run`), on a fresh run and on recorded evidence alike.
``--record`` writes the runs to the entry's ``evidence/``.

    python -m kb.apidrift.verify [ENTRY ...] [--wheelhouse DIR] [--record]

The wheelhouse (default ``~/.cache/kb/apidrift/wheelhouse``) is built with
``python -m kb.apidrift.verify --download``; it is not committed and this command does not
run in CI (tests/test_apidrift_verified.py checks the recorded evidence instead).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import kb
from kb.knowledge.drift_entry import (  # noqa: F401 - KINDS, CHANGE_KEYS: this module's public names too
    CHANGE_KEYS, ENTRY_FILE, KINDS, DriftEntry, EntryError, drift_folders, load_drift_entry,
)
from kb.knowledge.pins import canonical_name
from kb.reproduce.pinned import PinError, parse_pins, prepare, skip_reason
from kb.reproduce.result import WORKER_DIED
from kb.reproduce.runner import Execution, Expected, RunSpec, judge_run
from kb.reproduce.runner import run_and_judge as run_and_judge_spec

REPO_ROOT = Path(kb.REPO_ROOT)
DEFAULT_WHEELHOUSE = Path.home() / ".cache" / "kb" / "apidrift" / "wheelhouse"
TIMEOUT_S = 240
# The programs load tiny local models and datasets: never reach for the Hub (kept if the caller set them).
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1"}


@dataclass(frozen=True)
class Run:
    name: str  # "old-on-new", "new-on-new", "old-on-old", "new-on-old"
    program: str  # "old.py" or "new.py"
    side: str  # "old" or "new": which pin set
    must_fail: bool


class Entry(DriftEntry):
    """A drift entry (read by kb.knowledge.drift_entry) with its pins checked, and the runs it calls for."""

    def pinned_version(self, side: str, library: str | None = None) -> str | None:
        """The version of ``library`` (default: the entry's) in the old or new pin set."""
        wanted = canonical_name(library or self.library)  # huggingface_hub is pinned as huggingface-hub
        for pin in parse_pins(self.old_pins if side == "old" else self.new_pins):
            if pin.name == wanted:
                return pin.version
        return None

    def runs(self) -> list[Run]:
        if self.direction == "added":
            runs = [Run("new-on-old", "new.py", "old", True), Run("new-on-new", "new.py", "new", False)]
        else:
            runs = [Run("old-on-new", "old.py", "new", True), Run("new-on-new", "new.py", "new", False)]
        if self.old_works:
            runs.append(Run("old-on-old", "old.py", "old", False))
        return runs

    def pins(self, side: str) -> tuple[str, ...]:
        return self.old_pins if side == "old" else self.new_pins


def load_entry(path: Path) -> Entry:
    """Read ``<path>/entry.toml`` (kb.knowledge.drift_entry) and check its pins; raises EntryError naming what is wrong."""
    base = load_drift_entry(path)
    entry = Entry(*base.values())
    toml = Path(path) / ENTRY_FILE
    try:
        parse_pins(entry.old_pins)
        parse_pins(entry.new_pins)
    except PinError as exc:
        raise EntryError(f"{toml}: {exc}") from None
    for side in ("old", "new"):
        if entry.pinned_version(side) is None:
            raise EntryError(f"{toml}: {side}_pins must pin {entry.library} itself")
    return entry


def all_entries(root: Path | None = None) -> list[Entry]:
    """Every entry under ``root`` (default: the knowledge root's drift/)."""
    return [load_entry(p) for p in drift_folders(root)]


def expected(entry: Entry, run: Run) -> Expected:
    """What ``run`` must show, in the runner's terms: the failing run raises the entry's [expect]
    (type, message, innermost ``file:function``); the others complete."""
    if not run.must_fail:
        return Expected(fails=False)
    want = entry.expected
    return Expected(fails=True, exceptions=(want.exception,), message=want.message, raised_in={"location": want.frame})


def spec(entry: Entry, run: Run, house: Path) -> RunSpec:
    """One run of an entry as the runner's :class:`RunSpec`: its program on its pin set, offline."""
    return RunSpec(
        label=f"drift-{entry.name}", script=entry.path / run.program, expected=expected(entry, run),
        timeout=TIMEOUT_S, env={k: os.environ.get(k, v) for k, v in OFFLINE_ENV.items()},
        pins=entry.pins(run.side), wheelhouse=house,
    )


def judge(entry: Entry, run: Run, result: dict[str, Any], execution: Execution | None = None) -> tuple[bool, str]:
    """Whether a harness result (or a recorded evidence file, which holds the same fields) is what ``run``
    requires, by the runner's judge (:func:`kb.reproduce.runner.judge_run`): on fresh runs and on evidence.

    ``execution``: the fresh run, whose exit code, timeout and output count too; recorded evidence
    has none of them (its exit code is then the harness's status: "ok" or not).
    """
    passed, _outcome, explanation = judge_outcome(entry, run, result, execution)
    return passed, explanation


def judge_outcome(entry: Entry, run: Run, result: dict[str, Any], execution: Execution | None = None) -> tuple[bool, str, str]:
    """:func:`judge` with the runner's outcome: (passed, outcome, explanation); ``worker-died`` when the
    program's process died before it reported (the result is then the harness's "running" record)."""
    return judge_run(
        expected(entry, run),
        timed_out=execution.timed_out if execution else False,
        exit_code=execution.exit_code if execution else None,
        ranks=[result] if result else [],
        measures=execution.measures if execution else {},
        output=execution.output if execution else "",
        pins=entry.pins(run.side), limit=TIMEOUT_S,
    )


def _collected(ran: Execution) -> tuple[dict[str, Any], str, float]:
    """A drift program's run (one rank) as (harness result, output, seconds)."""
    result = ran.ranks[0] if ran.ranks else {}
    output = ran.output if not ran.timed_out else f"timed out after {TIMEOUT_S} s\n{ran.output}"
    return result, output, ran.duration_s


def program_digest(entry: Entry, run: Run) -> str:
    """The program's content hash: the evidence belongs to this text of old.py/new.py, not to a later edit."""
    return hashlib.sha256((entry.path / run.program).read_bytes()).hexdigest()


def evidence_record(entry: Entry, run: Run, result: dict[str, Any], passed: bool, explanation: str, seconds: float) -> dict[str, Any]:
    environment = result.get("environment", {})
    return {
        "entry": entry.name,
        "run": run.name,
        "program": run.program,
        "pins": list(entry.pins(run.side)),
        "must_fail": run.must_fail,
        "program_sha256": program_digest(entry, run),
        "passed": passed,
        "explanation": explanation,
        "date": datetime.now(UTC).replace(microsecond=0).isoformat(),
        "duration_s": round(seconds, 2),
        "status": result.get("status"),
        "exception": result.get("exception"),
        "environment": {k: environment.get(k) for k in ("versions", "pins", "pinned_imported_from", "cpu", "platform")},
    }


def run_and_judge(entry: Entry, run: Run, house: Path) -> tuple[dict[str, Any], str, float, bool, str, str]:
    """The case runner's :func:`kb.reproduce.runner.run_and_judge` on the run's :func:`spec` (judged as
    :func:`judge_outcome` judges, and run once more where it would be: its process killed by SIGKILL from
    outside the run): (result, output, seconds, passed, outcome, explanation)."""
    ran, passed, outcome, explanation = run_and_judge_spec(spec(entry, run, house))
    return (*_collected(ran), passed, outcome, explanation)


def verify_entry(entry: Entry, house: Path, record: bool) -> list[tuple[Run, bool, str]]:
    """Run ``entry``'s runs: (run, verified, explanation) each. A run whose process died before it reported
    (``worker-died``) is not verified, its explanation naming the signal or exit status and the memory caps,
    and with ``record`` it writes no evidence: its result is the harness's "running" record, which shows
    nothing about the API, and the entry's earlier evidence (if any) is left as it was."""
    outcomes = []
    for run in entry.runs():
        reason = skip_reason(entry.pins(run.side), house)
        if reason:
            outcomes.append((run, False, f"skipped: {reason}"))
            continue
        result, output, seconds, passed, outcome, explanation = run_and_judge(entry, run, house)
        if outcome == WORKER_DIED:
            outcomes.append((run, False, f"{explanation}{'; no evidence recorded' if record else ''}"))
            continue
        outcomes.append((run, passed, explanation))
        if record:
            folder = entry.path / "evidence"
            folder.mkdir(exist_ok=True)
            record_json = evidence_record(entry, run, result, passed, explanation, seconds)
            # paths of this machine are not evidence: keep them relative to the pinned cache or repo
            text = json.dumps(record_json, indent=2).replace(str(REPO_ROOT) + "/", "")
            (folder / f"{run.name}.json").write_text(text + "\n")
            (folder / f"{run.name}.log").write_text(output.replace(str(REPO_ROOT) + "/", ""))
    return outcomes


def download(entries: list[Entry], house: Path) -> int:
    """Fetch every pinned wheel the entries need into ``house`` (pip download --no-deps, binary only)."""
    house.mkdir(parents=True, exist_ok=True)
    pins = sorted({p for e in entries for p in (*e.old_pins, *e.new_pins)})
    missing = [p for p in pins if skip_reason((p,), house)]
    for pin in missing:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest", str(house), pin]
        if subprocess.run(command, check=False).returncode != 0:
            print(f"could not download {pin}", file=sys.stderr)
            return 1
    print(f"{len(pins)} pins, {len(missing)} downloaded into {house}")
    return 0


def evidence_table(entries: list[Entry]) -> str:
    """A Markdown table of the entries and what their recorded evidence shows (for docs/apidrift-verified.md)."""
    rows = [
        "| entry | library | kind | fact | old / new pinned | failing run | new works | old works |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for entry in entries:
        cells = {}
        for run in entry.runs():
            path = entry.path / "evidence" / f"{run.name}.json"
            if not path.is_file():
                cells[run.name] = "not recorded"
                continue
            passed, _ = judge(entry, run, json.loads(path.read_text()))
            cells[run.name] = ("yes" if passed else "**NO**")
        failing = "new-on-old" if entry.direction == "added" else "old-on-new"
        change = entry.change.replace("_in", "")
        fact = f"`{entry.owner}`: `{entry.old}` -> `{entry.new or '(removed)'}`, {change} in {entry.version}"
        if entry.direction == "added":
            fact = f"`{entry.owner}`: `{entry.new}` added in {entry.version}"
        old_works = cells.get("old-on-old", f"not run: {entry.old_works_note}")
        rows.append(
            f"| {entry.name} | {entry.library} | {entry.kind} | {fact} | {entry.pinned_version('old')} / {entry.pinned_version('new')} | "
            f"{failing}: {entry.expected.exception} {cells[failing]} | {cells['new-on-new']} | {old_works} |"
        )
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kb.apidrift.verify", description=__doc__.split("\n\n")[0])
    parser.add_argument("entries", nargs="*", help="entry folder names under drift/ (default: all)")
    parser.add_argument("--wheelhouse", type=Path, default=Path(os.environ.get("KB_DRIFT_WHEELHOUSE", DEFAULT_WHEELHOUSE)))
    parser.add_argument("--record", action="store_true", help="write evidence/<run>.json and .log into each entry")
    parser.add_argument("--download", action="store_true", help="download the pinned wheels into the wheelhouse and stop")
    parser.add_argument("--table", action="store_true", help="print a Markdown table of the entries and their recorded evidence")
    parser.add_argument("--jobs", type=int, default=1, help="entries verified at once (each run is a subprocess)")
    ns = parser.parse_args(argv)
    entries = all_entries()
    if ns.entries:
        wanted = {name.rstrip("/").split("/")[-1] for name in ns.entries}
        entries = [e for e in entries if e.name in wanted]
        unknown = wanted - {e.name for e in entries}
        if unknown:
            parser.error(f"no such entry: {', '.join(sorted(unknown))}")
    if ns.download:
        return download(entries, ns.wheelhouse)
    if ns.table:
        print(evidence_table(entries), end="")
        return 0
    for pins in sorted({e.pins(side) for e in entries for side in ("old", "new")}):
        if not skip_reason(pins, ns.wheelhouse):
            prepare(pins, ns.wheelhouse)  # once per pin set, before the runs share it from several threads
    failures = 0
    with ThreadPoolExecutor(max_workers=max(1, ns.jobs)) as pool:
        futures = {pool.submit(verify_entry, entry, ns.wheelhouse, ns.record): entry for entry in entries}
        for future in as_completed(futures):
            for run, passed, explanation in future.result():
                failures += not passed
                print(f"{'ok  ' if passed else 'FAIL'} {futures[future].name:45} {run.name:11} {explanation}", flush=True)
    print(f"{len(entries)} entries, {failures} failed runs")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

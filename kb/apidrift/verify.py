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
``old-on-old``. Each program runs under :mod:`kb.reproduce.harness`, which records the
exception, frames and imported versions; ``--record`` writes them to the entry's ``evidence/``.

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
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import kb
from kb.reproduce.pinned import PINS_ENV, parse_pins, prepare, skip_reason
from kb.reproduce.pinned import compare as compare_pins

REPO_ROOT = Path(kb.REPO_ROOT)
DRIFT_ROOT = REPO_ROOT / "drift"
DEFAULT_WHEELHOUSE = Path.home() / ".cache" / "kb" / "apidrift" / "wheelhouse"
LIBRARIES = ("transformers", "peft", "trl", "accelerate", "bitsandbytes", "datasets")
KINDS = ("param", "name", "module", "model_type", "config_check")
CHANGE_KEYS = ("removed_in", "renamed_in", "added_in")
TIMEOUT_S = 240


@dataclass(frozen=True)
class Expected:
    """The error the failing run must raise: exception type, message regex, innermost frame regex.

    ``frame`` is matched against ``"<file>:<function>"`` of the innermost frame; for an
    argument rejected while Python binds the call, that frame is the caller's (old.py).
    """

    exception: str
    message: re.Pattern[str]
    frame: re.Pattern[str]


@dataclass(frozen=True)
class Run:
    name: str  # "old-on-new", "new-on-new", "old-on-old", "new-on-old"
    program: str  # "old.py" or "new.py"
    side: str  # "old" or "new": which pin set
    must_fail: bool


@dataclass(frozen=True)
class Entry:
    path: Path
    library: str
    kind: str
    owner: str
    old: str
    new: str
    change: str  # one of CHANGE_KEYS
    version: str  # the release of the change (first release with the new state)
    old_pins: tuple[str, ...]
    new_pins: tuple[str, ...]
    expected: Expected
    summary: str
    old_works: bool = True
    old_works_note: str = ""
    data: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def direction(self) -> str:
        """"added": the new usage fails on the old release; otherwise the old usage fails on the new one."""
        return "added" if self.change == "added_in" else "removed"

    def pinned_version(self, side: str, library: str | None = None) -> str | None:
        """The version of ``library`` (default: the entry's) in the old or new pin set."""
        wanted = library or self.library
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


class EntryError(ValueError):
    """An entry.toml that is incomplete or inconsistent."""


def load_entry(path: Path) -> Entry:
    """Read and check ``<path>/entry.toml``; raises EntryError naming what is wrong."""
    toml = path / "entry.toml"
    try:
        data = tomllib.loads(toml.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise EntryError(f"{toml}: {exc}") from exc
    problems = []
    for key in ("library", "kind", "owner", "old", "new", "summary", "old_pins", "new_pins", "expect"):
        if key not in data:
            problems.append(f"missing {key!r}")
    changes = [k for k in CHANGE_KEYS if k in data]
    if len(changes) != 1:
        problems.append(f"exactly one of {', '.join(CHANGE_KEYS)} is required (found {changes or 'none'})")
    if problems:
        raise EntryError(f"{toml}: " + "; ".join(problems))
    if data["library"] not in LIBRARIES:
        raise EntryError(f"{toml}: library {data['library']!r} is not one of {LIBRARIES}")
    if data["kind"] not in KINDS:
        raise EntryError(f"{toml}: kind {data['kind']!r} is not one of {KINDS}")
    expect = data["expect"]
    try:
        expected = Expected(expect["exception"], re.compile(expect["message"]), re.compile(expect["frame"]))
    except (KeyError, re.error) as exc:
        raise EntryError(f"{toml}: [expect] needs exception, message and frame regexes ({exc})") from exc
    old_works = data.get("old_works", True)
    entry = Entry(
        path=path, library=data["library"], kind=data["kind"], owner=data["owner"], old=data["old"],
        new=data["new"], change=changes[0], version=str(data[changes[0]]),
        old_pins=tuple(data["old_pins"]), new_pins=tuple(data["new_pins"]), expected=expected,
        summary=data["summary"], old_works=old_works is True,
        old_works_note="" if old_works is True else str(old_works), data=data,
    )
    parse_pins(entry.old_pins)
    parse_pins(entry.new_pins)
    for side in ("old", "new"):
        if entry.pinned_version(side) is None:
            raise EntryError(f"{toml}: {side}_pins must pin {entry.library} itself")
    for program in ("old.py", "new.py"):
        if not (path / program).is_file():
            raise EntryError(f"{path}: {program} is missing")
    return entry


def all_entries(root: Path = DRIFT_ROOT) -> list[Entry]:
    return [load_entry(p) for p in sorted(root.iterdir()) if (p / "entry.toml").is_file()]


def innermost(exception: dict[str, Any]) -> str:
    frames = exception.get("frames") or []
    if not frames:
        return ""
    frame = frames[-1]
    return f"{frame.get('file', '')}:{frame.get('function', '')}"


def judge(entry: Entry, run: Run, result: dict[str, Any]) -> tuple[bool, str]:
    """Whether a harness result is what ``run`` requires. Used on fresh runs and on recorded evidence."""
    if not result:
        return False, "no result from the harness"
    versions = result.get("environment", {}).get("versions", {})
    mismatch = compare_pins(entry.pins(run.side), versions)
    if mismatch:
        return False, "; ".join(mismatch)
    wanted = entry.pinned_version(run.side)
    if versions.get(entry.library) != wanted:
        return False, f"ran {entry.library} {versions.get(entry.library)}, pinned {wanted}"
    exc = result.get("exception")
    if not run.must_fail:
        if result.get("status") != "ok" or exc:
            what = f"{exc['type']}: {exc['message'][:300]}" if exc else f"status {result.get('status')}"
            return False, f"{run.program} should work on {entry.library} {wanted} but {what}"
        return True, f"{run.program} works on {entry.library} {wanted}"
    if not exc:
        return False, f"{run.program} should fail on {entry.library} {wanted} but completed"
    expected = entry.expected
    where = innermost(exc)
    if exc["type"] != expected.exception:
        return False, f"raised {exc['type']} (expected {expected.exception}): {exc['message'][:300]}"
    if not expected.message.search(exc["message"]):
        return False, f"message {exc['message'][:300]!r} does not match /{expected.message.pattern}/"
    if not expected.frame.search(where):
        return False, f"raised at {where}, expected a frame matching /{expected.frame.pattern}/"
    return True, f"{exc['type']}: {exc['message'][:200]} (at {where})"


def run_program(entry: Entry, run: Run, house: Path) -> tuple[dict[str, Any], str, float]:
    """Run one program under the harness on its pinned versions: (harness result, output, seconds)."""
    site = prepare(entry.pins(run.side), house)
    with tempfile.TemporaryDirectory(prefix=f"kb-drift-{entry.name}-") as tmp:
        result_dir = Path(tmp) / "result"
        work = Path(tmp) / "work"
        work.mkdir()
        env = os.environ.copy()
        env[PINS_ENV] = " ".join(entry.pins(run.side))
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), str(REPO_ROOT), env.get("PYTHONPATH")]))
        env["PYTHONUNBUFFERED"] = "1"
        env.setdefault("HF_HUB_OFFLINE", "1")
        env.setdefault("HF_DATASETS_OFFLINE", "1")
        env.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
        command = [sys.executable, "-m", "kb.reproduce.harness", "--result-dir", str(result_dir), str(entry.path / run.program)]
        started = time.monotonic()
        try:
            proc = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S, check=False)
            output = proc.stdout + proc.stderr
        except subprocess.TimeoutExpired as exc:
            output = f"timed out after {TIMEOUT_S} s\n{exc.stdout or ''}{exc.stderr or ''}"
        seconds = time.monotonic() - started
        files = sorted(result_dir.glob("result-rank*.json"))
        result = json.loads(files[0].read_text()) if files else {}
    return result, output, seconds


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


def verify_entry(entry: Entry, house: Path, record: bool) -> list[tuple[Run, bool, str]]:
    outcomes = []
    for run in entry.runs():
        reason = skip_reason(entry.pins(run.side), house)
        if reason:
            outcomes.append((run, False, f"skipped: {reason}"))
            continue
        result, output, seconds = run_program(entry, run, house)
        passed, explanation = judge(entry, run, result)
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

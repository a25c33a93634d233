"""The reproduction matrix: the CPU reproductions run on named library stacks (`kb verify`).

A **stack** is data (tables/stacks.toml): a name and the requirements a venv is built from, pinned
(``torch==2.4.1``) or not (``numpy``: the resolver's choice). :func:`ensure_stack` builds the venv
under ``~/.cache/kb/stacks/NAME`` (``$KB_STACKS_DIR``) with uv when it is installed, else pip, from
the package index or a wheelhouse (``--find-links``), and reuses it while the requirements are
unchanged. ``latest`` is the stack of the newest releases: the ``newest`` stack's names without
their pins, upgraded on every use.

:func:`verify` runs every CPU reproduction of the given cases with the stack's Python (failing, then
fixed, judged by kb/reproduce/runner.py as any run) and writes one entry per stack x reproduction
into the case's ``evidence/matrix.toml``: the versions, the status and a digest of what each program
did. Statuses:

* ``pass``: the failing program failed as documented and the fixed one worked;
* ``does-not-fail``: the failing program completed without an error and the fixed one worked (on a
  release above every one it failed on, a release fixed the bug: the case page says since which);
* ``fail``: anything else (an API the programs use is gone, the error changed, a timeout);
* ``skip``: the reproduction cannot run on this stack or machine; ``reason`` says why (a
  ``requires_versions`` range the stack misses, a pinned reproduction's wheels missing, missing hardware).

A **pinned** reproduction (``pins``, ``fixed_pins``) runs too, on the stack's Python with its pinned wheels
(the wheelhouse of kb/reproduce/pinned.py: ``$KB_WHEELHOUSE`` or ``.whl-pinned/``) shadowing the stack's
releases, as pytest and `kb reproduce` run it: its entry says which versions each program runs with (``pins``,
the one wording of kb/knowledge/pins.py) and records under ``failing`` and ``fixed`` the versions each run
used, since the two programs of a reproduction with ``fixed_pins`` run different releases. Without the
wheels it is skipped with the reason.

The digest is of the behaviour, not the bytes: per program the outcome, each process's exception
type, message (addresses and paths reduced) and raising function, and the whole-number measures
(``steps=2``); two runs with equal digests did the same thing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from kb.knowledge.evidence import EVIDENCE_DIR, MATRIX_FILE, matrix_runs
from kb.knowledge.model import Case, KnowledgeError
from kb.knowledge.reproductions import Reproduction
from kb.knowledge.pins import canonical_name, pins_text
from kb.knowledge.tables import libraries, read_table
from kb.knowledge.toml_write import toml_key, toml_value
from kb.reproduce.pinned import skip_reason as pinned_skip_reason, unpinned
from kb.reproduce.profiles import PROFILES, Profile, missing_hardware
from kb.reproduce.ranges import version_problem
from kb.reproduce.result import RUNNING
from kb.reproduce.runner import case_spec, run_and_judge

STATUSES = ("pass", "does-not-fail", "fail", "skip")
LATEST = "latest"
Say = Callable[[str], None]


class StackError(ValueError):
    """A stack that is not in tables/stacks.toml, or a venv that could not be built."""


@dataclass(frozen=True)
class Stack:
    name: str
    description: str
    packages: tuple[str, ...]  # requirements: `torch==2.4.1`, or a bare name for the resolver's choice
    upgrade: bool = False  # reinstall the newest releases on every use (`latest`)


@dataclass
class StackEnv:
    """A built stack: its Python and what that Python has."""

    stack: Stack
    python: Path
    versions: dict[str, str]  # canonical distribution name -> version, and python
    importable: set[str]
    cuda: str | None  # torch.version.cuda of the stack's torch (None: a CPU build, or no torch)


@dataclass
class Entry:
    """One stack x reproduction: what `kb verify` writes into matrix.toml."""

    stack: str
    reproduction: str
    profile: str
    status: str
    date: str
    versions: dict[str, str] = field(default_factory=dict)
    failing: dict[str, Any] = field(default_factory=dict)
    fixed: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    pins: str = ""  # a pinned reproduction: which versions each program runs with (kb/knowledge/pins.py)

    def as_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in dataclasses.asdict(self).items() if v not in ("", {}, None)}
        return data


# ---- stacks


def load_stacks() -> dict[str, Stack]:
    """The named stacks of tables/stacks.toml, and ``latest`` (the ``newest`` stack's names, unpinned)."""
    raw = read_table("stacks").get("stacks")
    if not isinstance(raw, dict) or not raw:
        raise KnowledgeError("tables/stacks.toml: needs [stacks.NAME] tables with `packages`")
    out: dict[str, Stack] = {}
    for name, body in raw.items():
        packages = body.get("packages") if isinstance(body, dict) else None
        if not isinstance(packages, list) or not all(isinstance(p, str) and p.strip() for p in packages):
            raise KnowledgeError(f"tables/stacks.toml: [stacks.{name}] packages must be a list of requirements")
        if name == LATEST:
            raise KnowledgeError(f"tables/stacks.toml: {LATEST!r} is reserved (kb verify --latest)")
        out[name] = Stack(name, str(body.get("description", "")), tuple(p.strip() for p in packages))
    base = out.get("newest") or next(iter(out.values()))
    names = tuple(re.split(r"[=<>!~;\[ ]", p, maxsplit=1)[0] for p in base.packages)
    out[LATEST] = Stack(LATEST, f"the newest releases of {', '.join(names)} (resolved at run time)", names, upgrade=True)
    return out


def stacks_root() -> Path | None:
    """The folder of the stacks' venvs: ``$KB_STACKS_DIR`` (made absolute), else ``stacks`` in kb's cache folder
    (kb/knowledge/index.py's rules: an absolute ``$XDG_CACHE_HOME``, never a relative one; none for an empty or
    relative ``HOME``, which Path.home() made ``/.cache/kb/stacks`` or a folder under the current one); None when
    there is none."""
    override = os.environ.get("KB_STACKS_DIR")
    if override:
        return Path(os.path.abspath(override))
    from kb.knowledge.index import _cache_dir

    where = _cache_dir()
    return Path(where) / "stacks" if where else None


def _trusted(root: Path) -> bool:
    """Whether ``root`` (and kb's cache folder above it) is a folder of this user's that no one else can write to,
    made 0700 where missing: a venv there is code kb runs (its bin/python), under a name anyone can compute, so one
    another user could plant must never run (kb/reproduce/pinned.py's rule for the pinned environments)."""
    from kb.knowledge.index import _cache_dir, _safe_dir

    parent = _cache_dir()
    if parent is not None and root == Path(parent) / "stacks" and not _safe_dir(parent):
        return False
    return _safe_dir(str(root))


def _stamp(path: Path) -> Any:
    """The requirements a venv was built from (kb-stack.json), or None when missing or unreadable (a build cut
    short, a file not kb's): the venv is rebuilt."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _kb_began(folder: Path) -> bool:
    """Whether ``folder`` is a venv build kb began (its kb-stack.json, even unreadable; a venv's pyvenv.cfg, written
    first) or an empty folder: what kb may clear when the stamp does not name the stack's requirements."""
    try:
        return folder.is_dir() and ((folder / "kb-stack.json").is_file() or (folder / "pyvenv.cfg").is_file()
                                    or not any(folder.iterdir()))
    except OSError:
        return False


def _installer() -> list[str] | None:
    """``uv`` (this Python's sibling or on PATH), or None for pip."""
    sibling = Path(sys.executable).with_name("uv")
    found = str(sibling) if sibling.is_file() else shutil.which("uv")
    return [found] if found else None


def _run(command: list[str]) -> None:
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    if proc.returncode != 0:
        raise StackError(f"{' '.join(command[:4])} ... failed ({proc.returncode}):\n{proc.stdout[-3000:]}")


def build_venv(stack: Stack, folder: Path, wheelhouse: Path | None, offline: bool, say: Say) -> None:
    """Create (or update, for an upgrading stack) the venv in ``folder`` with the stack's packages."""
    python = folder / "bin" / "python"
    uv = _installer()
    if not python.is_file():
        say(f"kb verify: creating the {stack.name} venv in {folder}")
        _run([*uv, "venv", "--quiet", "--python", sys.executable, str(folder)] if uv
             else [sys.executable, "-m", "venv", str(folder)])
    options = (["--find-links", str(wheelhouse)] if wheelhouse else []) + (["--upgrade"] if stack.upgrade else [])
    if uv:
        command = [*uv, "pip", "install", "--quiet", "--python", str(python), *options, *(["--offline"] if offline else [])]
    else:
        command = [str(python), "-m", "pip", "install", "--quiet", *options, *(["--no-index"] if offline else [])]
    say(f"kb verify: installing {' '.join(stack.packages)} ({'uv' if uv else 'pip'})")
    _run([*command, *stack.packages])


PROBE = r"""
import importlib.metadata, importlib.util, json, platform, re, sys
names = json.loads(sys.argv[1])
versions = {"python": platform.python_version()}
for dist in importlib.metadata.distributions():
    name = dist.metadata["Name"] if dist.metadata else None
    if name:
        versions.setdefault(re.sub(r"[-_.]+", "-", name).lower(), dist.version)
cuda = None
if importlib.util.find_spec("torch"):
    import torch
    cuda = torch.version.cuda
print(json.dumps({"versions": versions, "importable": [n for n in names if importlib.util.find_spec(n)], "cuda": cuda}))
"""


def probe(python: Path, names: list[str]) -> tuple[dict[str, str], set[str], str | None]:
    """(versions, importable names of ``names``, torch.version.cuda) as ``python`` sees them."""
    proc = subprocess.run([str(python), "-c", PROBE, json.dumps(names)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise StackError(f"{python}: cannot read its packages: {proc.stderr[-2000:]}")
    try:
        data = json.loads(proc.stdout.strip().splitlines()[-1])
        return data["versions"], set(data["importable"]), data["cuda"]
    except (IndexError, ValueError, KeyError, TypeError):  # nothing, or not the probe's JSON: not a venv kb built
        raise StackError(f"{python}: cannot read its packages (its probe printed no report)") from None


def ensure_stack(stack: Stack, names: list[str], *, wheelhouse: Path | None = None, offline: bool = False,
                 rebuild: bool = False, say: Say = print) -> StackEnv:
    """The stack's venv, built when missing, stale (other requirements) or upgrading; reused otherwise."""
    root = stacks_root()
    if root is None:
        raise StackError("no folder for the stacks' venvs: HOME is empty or relative; set KB_STACKS_DIR")
    if not _trusted(root):
        raise StackError(f"{root} is not a folder of this user's that only this user can write to (a venv there "
                         "could be another user's code): choose another with KB_STACKS_DIR")
    folder = root / stack.name
    stamp = folder / "kb-stack.json"
    wanted = {"packages": list(stack.packages)}
    current = _stamp(stamp) if stamp.is_file() else None
    if rebuild and folder.exists():
        shutil.rmtree(folder)
        current = None
    if current != wanted or stack.upgrade:
        if current != wanted and folder.exists():
            if not _kb_began(folder):
                # (review50) not a venv kb built: a folder of the user's under a KB_STACKS_DIR they chose that bears
                # the stack's name is never deleted
                raise StackError(f"{folder} exists and is not a venv kb built (no kb-stack.json, no pyvenv.cfg): move "
                                 "it, or choose another folder with KB_STACKS_DIR")
            shutil.rmtree(folder)  # other pins, or a build cut short: start clean rather than layering releases
        folder.parent.mkdir(parents=True, exist_ok=True)
        build_venv(stack, folder, wheelhouse, offline, say)
        stamp.write_text(json.dumps(wanted) + "\n")
    else:
        say(f"kb verify: reusing the {stack.name} venv in {folder}")
    python = folder / "bin" / "python"
    versions, importable, cuda = probe(python, names)
    return StackEnv(stack, python, versions, importable, cuda)


def stack_versions(env: StackEnv) -> dict[str, str]:
    """The versions an entry records: python and the libraries a run records (tables/libraries.toml)."""
    names = ["python", *libraries("recorded")]
    return {n: env.versions[canonical_name(n) if n != "python" else n] for n in names
            if env.versions.get(canonical_name(n) if n != "python" else n)}


# ---- what runs


def cpu_profile(rep: Reproduction) -> Profile | None:
    """The first of ``rep``'s profiles that needs no GPU: the matrix runs that one."""
    return next((PROFILES[p] for p in rep.hardware if p in PROFILES and PROFILES[p].gpus == 0), None)


def in_matrix(case: Case) -> bool:
    """A case the matrix covers: not retired, with a reproduction on a CPU profile."""
    return case.status != "retired" and any(cpu_profile(rep) for rep in case.reproductions)


def skip_reason(rep: Reproduction, profile: Profile, env: StackEnv) -> str | None:
    """Why ``rep`` does not run on this stack (and machine), or None. Each program is checked with its own pins
    (``fixed_pins``): what no pin provides must be in the stack, what a pin provides must be in the wheelhouse."""
    for program in ("failing", "fixed") if rep.pinned else ("failing",):
        reason = program_skip_reason(rep, program, env)
        if reason:
            return f"the fixed program: {reason}" if program == "fixed" and rep.fixed_pins is not None else reason
    if profile.torch_without_cuda and env.cuda is not None:
        return f"profile {profile.name} needs a torch build without CUDA; the stack's torch is built for CUDA {env.cuda}"
    if profile.host_memory_cap_gib or profile.gpus:
        reason = missing_hardware(profile)
        if reason:
            return reason
    return None


def program_skip_reason(rep: Reproduction, program: str, env: StackEnv) -> str | None:
    """Why ``rep``'s ``program`` cannot run with the stack's Python: an import neither the stack nor a pin
    provides, a pinned wheel missing for this Python, or the versions outside ``requires_versions``."""
    pins = rep.pins_for(program)
    missing = [n for n in unpinned(rep.requires, pins) if n not in env.importable]
    if missing:
        return f"the stack lacks {', '.join(missing)}"
    if pins:
        here = f"{sys.version_info.major}.{sys.version_info.minor}"
        theirs = ".".join(env.versions.get("python", "").split(".")[:2])
        if theirs != here:  # the pinned wheels are installed and chosen for kb's own Python (kb/reproduce/pinned.py)
            return f"pinned reproduction: the stack runs Python {theirs or 'unknown'}, the pinned wheels are installed for {here}"
        reason = pinned_skip_reason(pins)
        if reason:
            return reason
    return version_problem(rep, env.versions, pins)


_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_PATH = re.compile(r"(?:/[\w.+-]+)+/([\w.+-]+)")


def _reduce(text: str) -> str:
    return _PATH.sub(r"\1", _ADDRESS.sub("0x?", text)).strip()


def behaviour_digest(outcome: str, ranks: list[dict[str, Any]], measures: dict[str, float]) -> str:
    """A short digest of what a program did (see the module docstring); equal digests, the same behaviour."""
    parts = {outcome}
    for rank in ranks:
        if rank.get("status") == RUNNING:  # died before reporting: the outcome says so; digests stay comparable
            continue                      # with runs recorded before the harness wrote "running" records
        exc = rank.get("exception")
        if exc:
            frames = exc.get("frames") or [{}]
            where = f"{Path(str(frames[-1].get('file', ''))).name}:{frames[-1].get('function', '')}"
            parts.add(f"{exc['type'].rsplit('.', 1)[-1]}: {_reduce(exc.get('message', ''))} @ {where}")
        else:
            parts.add(f"status {rank.get('status')}")
    parts |= {f"{k}={v:g}" for k, v in measures.items() if float(v).is_integer()}
    return "sha256:" + hashlib.sha256("\n".join(sorted(parts)).encode()).hexdigest()[:16]


def run_entry(case: Case, rep: Reproduction, profile: Profile, env: StackEnv) -> Entry:
    """Run ``rep``'s two programs with the stack's Python and judge them."""
    date = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    entry = Entry(env.stack.name, rep.name, profile.name, "skip", date, stack_versions(env),
                  pins=pins_text(rep) if rep.pinned else "")
    reason = skip_reason(rep, profile, env)
    if reason:
        entry.reason = reason
        return entry
    results = {}
    for program in ("failing", "fixed"):
        spec = dataclasses.replace(case_spec(case, rep, program, profile.name), python=str(env.python), fork=False)
        ran, passed, outcome, explanation = run_and_judge(spec)
        crashed = any(r.get("exception") or r.get("status") != "ok" for r in ran.ranks) or ran.exit_code != 0
        results[program] = (passed, outcome, explanation, crashed)
        setattr(entry, program, {"outcome": outcome, "digest": behaviour_digest(outcome, ran.ranks, ran.measures),
                                 "duration_s": ran.duration_s})
        if rep.pinned:  # the stack's releases under the program's pins: what the run recorded, not the stack's list
            getattr(entry, program)["versions"] = run_versions(ran.ranks)
    (f_ok, _, f_why, f_crashed), (x_ok, _, _, _) = results["failing"], results["fixed"]
    if f_ok and x_ok:
        entry.status = "pass"
    elif x_ok and not f_crashed and results["failing"][1] == "not-reproduced":
        entry.status = "does-not-fail"
        entry.reason = f"the failing program completed: {f_why[:300]}"
    else:
        entry.status = "fail"
        entry.reason = "; ".join(f"{p}: {why[:300]}" for p, (ok, _, why, _) in results.items() if not ok)
    return entry


def run_versions(ranks: list[dict[str, Any]]) -> dict[str, str]:
    """The versions a run recorded (kb/reproduce/harness.py), from the first process that recorded them."""
    for rank in ranks:
        versions = (rank.get("environment") or {}).get("versions")
        if versions:
            return {str(k): str(v) for k, v in versions.items()}
    return {}


# ---- matrix.toml


HEADER = ("# Written by `kb verify` (kb/reproduce/matrix.py): one entry per library stack (tables/stacks.toml) x\n"
          "# reproduction. Do not edit by hand; rerun `kb verify CASE --stack NAME`.\n")


def matrix_text(entries: list[dict[str, Any]]) -> str:
    blocks = [HEADER]
    for entry in entries:
        lines = ["[[runs]]"] + [f"{toml_key(k)} = {toml_value(v)}" for k, v in entry.items()]
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def write_entries(case: Case, entries: list[Entry], stack_order: list[str]) -> Path:
    """Merge ``entries`` into the case's matrix.toml (replacing the same stack x reproduction)."""
    new = {(e.stack, e.reproduction): e.as_dict() for e in entries}
    kept = [r for r in matrix_runs(case) if (r.get("stack"), r.get("reproduction")) not in new]
    rep_order = [r.name for r in case.reproductions]

    def order(run: dict[str, Any]) -> tuple[int, int, str]:
        stack, rep = str(run.get("stack")), str(run.get("reproduction"))
        return (stack_order.index(stack) if stack in stack_order else len(stack_order),
                rep_order.index(rep) if rep in rep_order else len(rep_order), stack)

    merged = sorted(kept + list(new.values()), key=order)
    folder = case.path / EVIDENCE_DIR
    folder.mkdir(exist_ok=True)
    path = folder / MATRIX_FILE
    path.write_text(matrix_text(merged), encoding="utf-8")
    return path


# ---- comparing stacks


def changed(before: dict[str, Any] | None, after: Entry) -> str | None:
    """How ``after`` differs from the entry it is compared with (another stack's), in words; None: the same."""
    if before is None or after.status == "skip" or before.get("status") == "skip":
        return None
    if before.get("status") != after.status:
        return f"{before.get('status')} on {before.get('stack')} -> {after.status} on {after.stack}"
    for program in ("failing", "fixed"):
        old, new = (before.get(program) or {}).get("digest"), (getattr(after, program) or {}).get("digest")
        if old and new and old != new:
            return f"the {program} program behaves differently than on {before.get('stack')} (status {after.status} on both)"
    return None


def differing(before: dict[str, Any], after: Entry) -> list[str]:
    """The main libraries whose versions differ: ``transformers 5.24.0 -> 5.25.0``."""
    old, new = before.get("versions") or {}, after.versions
    return [f"{n} {old.get(n)} -> {new.get(n)}" for n in libraries("stack") if old.get(n) != new.get(n) and new.get(n)]


def pinned_suggestion(before: dict[str, Any], rep: Reproduction) -> str:
    """The ``pins`` a reproduction keeps to go on failing on the last stack it failed on."""
    versions = before.get("versions") or {}
    names = [n for n in libraries("stack") if canonical_name(n) in {canonical_name(r) for r in rep.requires} and versions.get(n)]
    return "pins = [" + ", ".join(f'"{n}=={versions[n].split("+")[0]}"' for n in names) + "]"


def verify(cases: list[Case], env: StackEnv, *, jobs: int = 2, say: Say = print,
           compare_with: str | None = None) -> tuple[list[tuple[Case, Entry]], list[str]]:
    """Run every CPU reproduction of ``cases`` on the stack, write the entries; (entries, changes).

    ``compare_with``: a stack whose entries the new ones are compared with (``--latest``: ``newest``),
    each change one line of the second list (a release that fixed a case says so, with the pins
    that keep a reproduction failing).
    """
    units = [(case, rep, profile) for case in cases if case.status != "retired"
             for rep in case.reproductions if (profile := cpu_profile(rep)) is not None]
    previous = {case.id: {r.get("reproduction"): r for r in matrix_runs(case) if r.get("stack") == compare_with}
                for case in cases} if compare_with else {}

    def one(unit: tuple[Case, Reproduction, Profile]) -> tuple[Case, Entry]:
        case, rep, profile = unit
        entry = run_entry(case, rep, profile, env)
        detail = entry.reason if entry.status != "pass" else ", ".join(
            f"{p} {getattr(entry, p).get('duration_s')} s" for p in ("failing", "fixed"))
        say(f"{case.id} {rep.name} on {env.stack.name}: {entry.status}" + (f" ({detail})" if detail else ""))
        return case, entry

    order = list(load_stacks())
    left = {case.id: sum(1 for c, _, _ in units if c.id == case.id) for case in cases}
    finished: dict[str, list[Entry]] = {}
    lock = threading.Lock()

    def one_and_write(unit: tuple[Case, Reproduction, Profile]) -> tuple[Case, Entry]:
        case, entry = one(unit)
        with lock:  # a case's file is written once all its reproductions ran: an interrupted run keeps the rest
            finished.setdefault(case.id, []).append(entry)
            left[case.id] -= 1
            if left[case.id] == 0:
                write_entries(case, finished[case.id], order)
        return case, entry

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        done = list(pool.map(one_and_write, units))
    changes = []
    for case, entry in done:
        before = previous.get(case.id, {}).get(entry.reproduction)
        how = changed(before, entry)
        if how and before is not None:
            line = f"{case.id} {entry.reproduction}: {how} ({'; '.join(differing(before, entry)) or 'same versions'})"
            if entry.status == "does-not-fail" and before.get("status") == "pass":
                line += (f"; fixed since {', '.join(differing(before, entry))}: keep a pinned reproduction "
                         f"({pinned_suggestion(before, case.reproduction(entry.reproduction))}) and set status = \"fixed-upstream\"")
            changes.append(line)
    return done, changes


# ---- reading the matrix back: a case x stack cell, and the figure


def counted(case: Case) -> bool:
    """A case the matrix figure counts: in the matrix with a CPU reproduction that is not pinned (a pinned
    one runs its own versions whatever the stack)."""
    return case.status != "retired" and any(cpu_profile(rep) and not rep.pinned for rep in case.reproductions)


def cell(case: Case, stack: str) -> tuple[str, str]:
    """(status, note) of ``case`` on ``stack`` from its matrix.toml: ``pass`` when every unpinned CPU
    reproduction passed there; ``fail`` when one failed; ``does-not-fail`` when one stopped failing and
    none failed; ``skip`` otherwise (none recorded, or some skipped); the note says which and why."""
    reps = [rep for rep in case.reproductions if cpu_profile(rep) and not rep.pinned]
    entries = {e.get("reproduction"): e for e in matrix_runs(case) if e.get("stack") == stack}
    found = {rep.name: entries.get(rep.name) for rep in reps}
    statuses = {name: (e or {}).get("status", "none") for name, e in found.items()}
    notes = [f"{name}: {(found[name] or {}).get('reason') or 'not run on this stack'}"
             for name, s in statuses.items() if s not in ("pass",)]
    values = set(statuses.values())
    if not reps:
        return "skip", "pinned reproductions only (they run their own versions)"
    if values == {"pass"}:
        return "pass", f"{len(reps)} of {len(reps)} reproductions"
    if "fail" in values:
        return "fail", "; ".join(notes)
    if "does-not-fail" in values and values <= {"pass", "does-not-fail"}:
        return "does-not-fail", "; ".join(notes)
    return "skip", "; ".join(notes)


def figure(cases: list[Case], stacks: tuple[str, ...] = ("lowest", "newest")) -> tuple[int, int]:
    """(cases passing on every one of ``stacks``, cases counted): the matrix's headline figure."""
    counted_cases = [c for c in cases if counted(c)]
    passing = [c for c in counted_cases if all(cell(c, s)[0] == "pass" for s in stacks)]
    return len(passing), len(counted_cases)


def figure_on_any(cases: list[Case], least: int = 2) -> tuple[int, int]:
    """(cases passing on at least ``least`` stacks, whichever they are, cases counted)."""
    counted_cases = [c for c in cases if counted(c)]
    stacks = [name for name in load_stacks() if name != LATEST]
    passing = [c for c in counted_cases if sum(cell(c, s)[0] == "pass" for s in stacks) >= least]
    return len(passing), len(counted_cases)

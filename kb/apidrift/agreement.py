"""Check the extracted API history against the real packages: draw (library, name, version) pairs,
install that release, inspect the real object, compare.

    python -m kb.apidrift.agreement --pairs 100 --seed 32 [--versions-per-library 3] [--out FILE] [--json FILE]

A pair is one claim of the history: "at trl 0.15.2, ``trl.SFTTrainer`` accepts ``max_seq_length``"
(a parameter), "at peft 0.9.0, ``peft`` exports ``prepare_model_for_int8_training``" (an
export) or "transformers 4.36.2 knows model type ``qwen2``" (a model type). Names are drawn
from everything the history records for that target across all releases, half of them from
names it says are *absent* at the sampled release, so both kinds of claim are checked.

Sampling is in two stages so the installs stay few: ``--versions-per-library`` releases of each
library are drawn, then pairs are drawn round-robin over the libraries among those releases, in the
seed's fixed order, until ``--pairs`` of them are decidable here (:func:`judge`).

The environments, tried in this order for each release (:func:`environments`) until the pair is answered:
the release alone over this interpreter's packages (``pip install --no-deps --target``, first on the
child's PYTHONPATH); its era's own virtual environment (:func:`era_venv`: ``uv pip compile
--exclude-newer <upload date>`` with torch included, on the newest Python whose wheels that stack has,
3.11 down to 3.8 from pyenv; once its child runs, its answer is final); and, where that venv cannot be
built, the overlays of ATTEMPTS over this interpreter's torch. Environments are cached under
``~/.cache/kb-agreement`` (``KB_AGREEMENT_CACHE``).

The child (agreement_child.py, standard library only, Python 3.8+) imports the real module and answers
with ``hasattr`` (exports), ``inspect.signature`` with ``**kwargs`` followed up the MRO (parameters;
dataclass fields come out of the signature) or ``CONFIG_MAPPING_NAMES`` (model types). An import that
fails is classified from the exception (:func:`environment_reason`): a module outside the library that
is not installed (an optional backend such as tensorflow), a name missing from another package (a
dependency of another era), a compiled extension that does not load (ABI), an error raised in another
package's code: the environment's fault, so the pair is undecidable, listed with its reason, outside the
denominator and never counted as agreement. A failure in the library's own code stays a disagreement.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import itertools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Iterator, Protocol

import kb
from kb.apidrift.agreement_child import (  # noqa: F401 - the child's logic, re-exported for tests and callers
    accepted_parameters,
    conditional_import,
    inspect_pair,
    optional_dependency,
    read_from_kwargs,
    resolve_object,
)

REPO_ROOT = Path(kb.REPO_ROOT)
DEFAULT_OUT = REPO_ROOT / "benchmarks" / "results" / "apidrift-agreement.md"
NOT_INSTALLED = {"torch", "triton", "setuptools", "pip", "wheel"}  # taken from this interpreter, never shadowed
CHILD_TIMEOUT_S = 300


class HistoryLike(Protocol):
    """The part of kb.apidrift.history.History (the shared contract) that the check reads."""

    def libraries(self) -> list[str]: ...
    def versions(self, lib: str) -> list[str]: ...
    def exports(self, lib: str, module: str, version: str) -> set[str] | None: ...
    def params(self, lib: str, callable_path: str, version: str) -> list[str] | None: ...
    def model_types(self, version: str) -> set[str]: ...


@dataclass
class Pair:
    library: str
    version: str
    kind: str  # "export" | "param" | "model_type"
    target: str  # module (export), callable path (param), "CONFIG_MAPPING_NAMES" (model_type)
    name: str
    claim: bool  # what the history says: the name is exported / accepted / known at this version
    real: bool | None = None
    note: str = ""
    undecidable: bool = False  # the real answer depends on an optional package this machine lacks


    @property
    def agrees(self) -> bool:
        return self.real is not None and self.real == self.claim

    def sentence(self) -> str:
        verb = {"export": "exports", "param": "accepts", "model_type": "knows model type"}[self.kind]
        return f"{self.library} {self.version}: `{self.target}` {verb} `{self.name}`"


class JsonHistory:
    """A history read from a plain JSON file, for testing this check without the shipped data.

    ``{"transformers": {"4.46.3": {"exports": {"transformers": [...]}, "params": {"transformers.Trainer": [...]},
    "model_types": [...]}}}``
    """

    def __init__(self, data: dict[str, dict[str, dict[str, Any]]]) -> None:
        self.data = data

    @classmethod
    def read(cls, path: Path) -> JsonHistory:
        return cls(json.loads(path.read_text()))

    def libraries(self) -> list[str]:
        return sorted(self.data)

    def versions(self, lib: str) -> list[str]:
        return sorted(self.data.get(lib, {}), key=lambda v: [int(x) for x in re.findall(r"\d+", v)])

    def exports(self, lib: str, module: str, version: str) -> set[str] | None:
        names = self.data.get(lib, {}).get(version, {}).get("exports", {}).get(module)
        return None if names is None else set(names)

    def params(self, lib: str, callable_path: str, version: str) -> list[str] | None:
        return self.data.get(lib, {}).get(version, {}).get("params", {}).get(callable_path)

    def model_types(self, version: str) -> set[str]:
        return set(self.data.get("transformers", {}).get(version, {}).get("model_types", []))

    def callables(self, lib: str) -> list[str]:
        return sorted({c for v in self.data.get(lib, {}).values() for c in v.get("params", {})})

    def modules(self, lib: str, version: str) -> set[str]:
        return set(self.data.get(lib, {}).get(version, {}).get("exports", {}))


# ---- sampling ---------------------------------------------------------------------------


def targets(history: HistoryLike, lib: str, version: str) -> list[tuple[str, str]]:
    """(kind, target) pairs the history answers for ``lib`` at ``version``."""
    found: list[tuple[str, str]] = []
    modules = getattr(history, "modules", None)
    for module in sorted(modules(lib, version) if modules else {lib}):
        if history.exports(lib, module, version) is not None:
            found.append(("export", module))
    callables = getattr(history, "callables", None)
    for path in callables(lib) if callables else []:
        if history.params(lib, path, version) is not None:
            found.append(("param", path))
    if lib == "transformers" and history.model_types(version):
        found.append(("model_type", "CONFIG_MAPPING_NAMES"))
    return found


def claimed(history: HistoryLike, lib: str, kind: str, target: str, version: str) -> set[str]:
    if kind == "export":
        return set(history.exports(lib, target, version) or ())
    if kind == "param":
        return set(history.params(lib, target, version) or ())
    return set(history.model_types(version))


def pick_target(rng: random.Random, lib: str, options: list[tuple[str, str]]) -> tuple[str, str]:
    """A kind first (export, param, model type: equally likely), then a target of that kind.

    Exports are half the time the package's top level (``from peft import X``, what users
    write) and otherwise any tracked module, so the few hundred submodules do not crowd out
    the names users import most.
    """
    kind = rng.choice(sorted({k for k, _ in options}))
    of_kind = [target for k, target in options if k == kind]
    if kind == "export" and lib in of_kind and rng.random() < 0.5:
        return kind, lib
    return kind, rng.choice(of_kind)


def draw_pairs(history: HistoryLike, seed: int, versions_per_library: int = 3, max_attempts: int = 50_000) -> Iterator[Pair]:
    """The seed's stream of distinct pairs, drawn lazily (each costs a scan of the target's history)."""
    rng = random.Random(seed)
    libraries = [lib for lib in history.libraries() if history.versions(lib)]
    chosen = {lib: sorted(rng.sample(history.versions(lib), min(versions_per_library, len(history.versions(lib))))) for lib in libraries}
    seen: set[tuple[str, str, str, str]] = set()
    for attempts in range(max_attempts):
        lib = libraries[attempts % len(libraries)]
        version = rng.choice(chosen[lib])
        options = targets(history, lib, version)
        if not options:
            continue
        kind, target = pick_target(rng, lib, options)
        present = claimed(history, lib, kind, target, version)
        everywhere = set().union(*(claimed(history, lib, kind, target, v) for v in history.versions(lib)))
        absent = sorted(everywhere - present)
        want_absent = absent and rng.random() < 0.5
        pool = absent if want_absent else sorted(present)
        if not pool:
            continue
        name = rng.choice(pool)
        key = (lib, version, target, name)
        if key in seen:
            continue
        seen.add(key)
        yield Pair(lib, version, kind, target, name, claim=name in present)


def sample_pairs(history: HistoryLike, count: int, seed: int, versions_per_library: int = 3) -> list[Pair]:
    """The first ``count`` pairs of the seed's stream (a longer sample starts with a shorter one)."""
    return list(itertools.islice(draw_pairs(history, seed, versions_per_library, count * 50), count))


# ---- the throwaway environment ----------------------------------------------------------


def installed_version(name: str) -> str | None:
    """``name``'s installed version; None when it is not installed or its METADATA cannot be read (not UTF-8: an old
    setuptools wrote an author's name in Latin-1), as kb/reproduce/harness.py's installed_version reads it."""
    try:
        return importlib.metadata.version(name)
    except (importlib.metadata.PackageNotFoundError, OSError, ValueError):  # (UnicodeDecodeError is a ValueError)
        return None


def resolve(lib: str, version: str, workdir: Path, extra: tuple[str, ...] = (),
            extra_requirements: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """What pip would install for ``lib==version`` from scratch, torch held at this interpreter's version;
    ``extra_requirements`` (unpinned) are resolved with it."""
    constraints = workdir / "constraints.txt"
    torch_version = installed_version("torch")
    constraints.write_text("".join(f"{c}\n" for c in ([f"torch=={torch_version}"] if torch_version else []) + list(extra)))
    report = workdir / "report.json"
    command = [
        sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet", "--disable-pip-version-check",
        "--report", str(report), "--constraint", str(constraints), f"{lib}=={version}", *extra_requirements,
    ]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"pip could not resolve {lib}=={version}: {proc.stderr[-1500:]}")
    resolved = [(item["metadata"]["name"], item["metadata"]["version"]) for item in json.loads(report.read_text())["install"]]
    broken = broken_dependents(resolved)
    if broken and not extra_requirements:
        # this interpreter's packages that would import the resolved ones at versions they do not accept
        # (datasets 5.x over huggingface_hub 0.x): resolve them too, so the child imports a consistent stack
        return resolve(lib, version, workdir, extra, tuple(broken))
    return resolved


def broken_dependents(resolved: list[tuple[str, str]]) -> list[str]:
    """Installed distributions (not in ``resolved``) whose requirements reject a resolved version."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version

    versions = {canonicalize_name(name): ver for name, ver in resolved}
    found = []
    for dist in importlib.metadata.distributions():
        try:  # (as kb/reproduce/ranges.py and kb/env/report.py read every distribution)
            name = canonicalize_name(dist.metadata["Name"] or "")
            requires = dist.requires or []
        except (OSError, ValueError):  # a METADATA file unreadable or not UTF-8: not a dependent kb can judge
            continue
        if not name or name in versions or name in NOT_INSTALLED or name.startswith("nvidia-"):
            continue
        for text in requires:
            try:
                req = Requirement(text)
                if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                    continue
                wanted = versions.get(canonicalize_name(req.name))
                if wanted is not None and not req.specifier.contains(Version(wanted), prereleases=True):
                    found.append(name)
                    break
            except (InvalidRequirement, InvalidVersion):
                continue
    return sorted(set(found))


# How to build the throwaway environment, tried in this order until the real objects can be inspected:
# the release alone over this interpreter's packages; the release's own era (its dependencies as of its
# upload date, ERA); the resolved stack with transformers < 5 (packages of 2024-2025 whose metadata does
# not cap transformers, yet import names 5.0 removed); the resolved stack.
ERA = ("era",)
ATTEMPTS: tuple[tuple[str, tuple[str, ...] | None], ...] = (
    ("alone", None),
    ("era", ERA),
    ("resolved, transformers<5", ("transformers<5",)),
    ("resolved", ()),
)
UV = Path(sys.executable).with_name("uv")
ERA_STEP_DAYS = 61  # how far the date moves when the era's stack has no wheel for this Python yet
ERA_MAX_STEPS = 24
PY_TAG = f"cp{sys.version_info.major}{sys.version_info.minor}"


def upload_time(files: list[dict[str, Any]]) -> datetime | None:
    """The earliest upload time of a release's files (PyPI's simple index JSON, ``upload-time``)."""
    times = [datetime.fromisoformat(f["upload-time"].replace("Z", "+00:00")) for f in files if f.get("upload-time")]
    return min(times) if times else None


def installs_here(files: list[dict[str, Any]], py_tag: str = PY_TAG) -> bool:
    """Whether one of a release's files can install on this Python (Linux x86_64): an sdist, a pure
    wheel, an abi3 wheel or a wheel for ``py_tag``."""
    for f in files:
        name = f["filename"]
        if name.endswith((".tar.gz", ".zip")):
            return True
        if not name.endswith(".whl"):
            continue
        py, abi, plat = name[:-4].split("-")[-3:]
        if "linux" not in plat and plat != "any" and "manylinux" not in plat:
            continue
        if plat != "any" and "x86_64" not in plat:
            continue
        pure = abi == "none" and any(tag in ("py3", "py2") or tag.startswith("py3") for tag in py.split("."))
        if py_tag in py.split(".") or abi == "abi3" or pure:
            return True
    return False


def undecidable_reason(lib: str, version: str, files: list[dict[str, Any]], torch_here: str | None,
                       py_tag: str = PY_TAG) -> str | None:
    """Why this machine cannot build an environment for ``lib==version`` at all, or None.

    A release with no file that installs on this Python (torch 1.11-1.13 on 3.11) cannot be checked
    here; nor can a torch other than this interpreter's (the check never replaces the interpreter's
    torch: every other library is inspected over it, and a torch wheel is ~1 GB a release).
    """
    if files and not installs_here(files, py_tag):
        return f"undecidable here: no wheel or sdist of {lib} {version} installs on this Python ({py_tag})"
    if lib == "torch" and torch_here and version != torch_here.split("+")[0]:
        return (f"undecidable here: the check keeps this interpreter's torch ({torch_here}) and does not "
                f"install torch {version}")
    return None


def torch_requirements() -> list[str]:
    """The requirements of this interpreter's torch (it stays, so the era must not break it)."""
    try:
        return list(importlib.metadata.requires("torch") or [])
    except importlib.metadata.PackageNotFoundError:
        return []


def keeps_torch_working(name: str, version: str, torch_requires: list[str]) -> bool:
    """Whether pinning ``name==version`` over this interpreter leaves its torch's requirements met
    (an era's typing_extensions 4.7 shadowing the 4.10+ today's torch imports ``TypeIs`` from)."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version

    for text in torch_requires:
        try:
            req = Requirement(text)
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            if canonicalize_name(req.name) == canonicalize_name(name) and not req.specifier.contains(Version(version), prereleases=True):
                return False
        except (InvalidRequirement, InvalidVersion):
            continue
    return True


def era_requirements(lib: str, version: str, root: Path, published: datetime) -> tuple[list[tuple[str, str]], datetime]:
    """``lib==version`` with its dependencies as of its upload date (uv ``--exclude-newer``), wheels only
    for dependencies, torch and triton left to this interpreter, setuptools included (pkg_resources).

    Where that era's stack has no wheel for this Python yet (numpy, pyarrow of early 2022 on 3.11), the
    date moves forward ERA_STEP_DAYS at a time: the earliest stack of the release that installs here.
    Returns the pins and the date used.
    """
    from datetime import timedelta

    overrides = root / "era-overrides.txt"
    overrides.write_text("".join(f"{name} ; sys_platform == 'never'\n" for name in ("torch", "triton")))
    requirements = root / "era-requirements.in"
    requirements.write_text(f"{lib}=={version}\nsetuptools\n")
    last = ""
    for step in range(ERA_MAX_STEPS):
        date = published + timedelta(days=1 + step * ERA_STEP_DAYS)
        command = [
            str(UV), "pip", "compile", str(requirements), "--override", str(overrides), "--no-header", "--quiet",
            "--python-version", f"{sys.version_info.major}.{sys.version_info.minor}", "--only-binary", ":all:",
            "--no-binary", lib, "--exclude-newer", date.strftime("%Y-%m-%dT%H:%M:%SZ"), "--no-annotate",
        ]
        proc = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)
        if proc.returncode == 0:
            pins = [tuple(line.split("==", 1)) for line in proc.stdout.splitlines() if "==" in line and not line.startswith("#")]
            return [(name.strip(), ver.strip().split(" ")[0]) for name, ver in pins], date
        last = proc.stderr.strip()[-400:]
    raise RuntimeError(f"uv could not resolve {lib}=={version} for any date up to {ERA_MAX_STEPS} steps: {last}")


def build_environment(lib: str, version: str, root: Path, constraints: tuple[str, ...] | None) -> tuple[Path, list[str]]:
    """Install ``lib==version`` into a fresh directory: alone (``constraints`` None), or with the resolved
    packages this interpreter lacks or has at another version."""
    slug = "alone" if constraints is None else "era" if constraints == ERA else "resolved-" + "-".join(
        re.sub(r"[^A-Za-z0-9.]+", "", c) for c in constraints)
    target = ENV_CACHE / "overlays" / f"{lib}-{version}-{slug}-{PY_TAG}-torch{installed_version('torch')}"
    ready = target / "kb-ready.json"
    if ready.exists():
        return target, json.loads(ready.read_text())
    free = shutil.disk_usage(ENV_CACHE.parent if ENV_CACHE.parent.exists() else Path.home()).free
    if free < OVERLAY_KEEP_FREE_BYTES:  # an overlay is a copy, up to ~0.3 GB: the disk is shared
        raise RuntimeError(f"too little free disk for an overlay ({free / 2**30:.1f} GB free)")
    shutil.rmtree(target, ignore_errors=True)
    if constraints is None:
        pins = [f"{lib}=={version}"]
    elif constraints == ERA:
        from kb.apidrift.releases import index_files

        published = upload_time(index_files(lib, refresh=False).get(version, []))
        if published is None:
            raise RuntimeError(f"no upload time for {lib}=={version} on the index")
        resolved, _date = era_requirements(lib, version, root, published)
        held = torch_requirements()
        pins = [
            f"{name}=={ver}" for name, ver in resolved
            if name.lower() not in {"torch", "triton", "pip", "wheel"} and not name.lower().startswith("nvidia-")
            and keeps_torch_working(name, ver, held)
        ]
    else:
        if lib == "transformers":
            constraints = tuple(c for c in constraints if not c.startswith("transformers"))
        pins = [
            f"{name}=={ver}" for name, ver in resolve(lib, version, root, constraints)
            if name.lower() not in NOT_INSTALLED and not name.lower().startswith("nvidia-")
            and (name.lower() == lib or installed_version(name) != ver)
        ]
    command = [
        sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--disable-pip-version-check", "--no-compile",
        "--target", str(target), *pins,
    ]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"pip could not install {pins}: {proc.stderr[-1500:]}")
    ready.write_text(json.dumps(pins))
    return target, pins


# ---- the era's own interpreter: a full environment with the release's Python and torch ------------


ENV_CACHE = Path(os.environ.get("KB_AGREEMENT_CACHE", Path.home() / ".cache" / "kb-agreement"))
ERA_PYTHONS = ("3.11", "3.10", "3.9", "3.8")  # newest first: the first whose era stack has wheels
# libraries whose modules import torch without requiring it (transformers' modeling files); the others
# either require it (peft, trl, accelerate, deepspeed) or use it in a corner (datasets' formatter): a
# torch and its CUDA wheels are ~5 GB on a shared disk
WITH_TORCH = {"transformers"}
MIN_FREE_BYTES = 10 * 2**30  # the disk is shared: a venv whose torch and CUDA wheels would crowd it is not built
# what must stay free once an era venv is built: the free space before it, less ~HEAVY_BYTES per torch, triton
# or CUDA wheel not yet in uv's cache (a torch 1.x CUDA wheel is up to ~1.8 GB), must be at least this
KEEP_FREE_BYTES = 7 * 2**30
OVERLAY_KEEP_FREE_BYTES = 13 * 2**29  # 6.5 GiB


def find_python(minor: str) -> str | None:
    """An interpreter of Python ``minor`` on this machine (this one, pyenv's, or one uv knows), or None."""
    if f"{sys.version_info.major}.{sys.version_info.minor}" == minor:
        return sys.executable
    for candidate in sorted(Path.home().glob(f".pyenv/versions/{minor}.*/bin/python{minor}"), reverse=True):
        if os.access(candidate, os.X_OK):
            return str(candidate)
    proc = subprocess.run([str(UV), "python", "find", "--no-python-downloads", minor], capture_output=True, text=True, check=False)
    found = proc.stdout.strip()
    return found if proc.returncode == 0 and found and "shims" not in found else None


HEAVY_BYTES = 2 * 2**30


def uncached_heavy(pins: list[tuple[str, str]], minor: str) -> list[str]:
    """The torch, triton and nvidia-* pins that uv's cache does not hold yet for Python ``minor`` (a venv
    of cached wheels links their files instead of taking gigabytes of disk)."""
    proc = subprocess.run([str(UV), "cache", "dir"], capture_output=True, text=True, check=False)
    wheels = Path(proc.stdout.strip()) / "wheels-v8" / "pypi"
    tag = "cp" + minor.replace(".", "")
    missing = []
    for name, version in pins:
        name = name.lower()
        if name in ("torch", "triton") or name.startswith("nvidia-"):
            found = [p for p in (wheels / name).glob(f"{version}-*") if p.is_symlink() and p.exists()
                     and (tag in p.name or "-py3-" in p.name)]
            if proc.returncode != 0 or not found:
                missing.append(f"{name}=={version}")
    return missing


def compile_era(lib: str, version: str, date: datetime, python: str, workdir: Path) -> list[tuple[str, str]] | str:
    """``lib==version`` and its dependencies as of ``date`` for Python ``python``, torch included (wheels
    only, except ``lib`` and pure packages that never shipped one); the pins, or uv's complaint."""
    requirements = workdir / f"era-venv-{python}.in"
    # torch too, where the library's modules import it without requiring it (transformers' modeling files)
    requirements.write_text(f"{lib}=={version}\nsetuptools\n" + ("torch\n" if lib in WITH_TORCH else ""))
    sdists: list[str] = []  # the release itself may be an sdist only (deepspeed): added when uv says so
    for _ in range(6):
        command = [
            str(UV), "pip", "compile", str(requirements), "--no-header", "--quiet", "--no-annotate",
            "--python-version", python, "--only-binary", ":all:", *[a for s in sdists for a in ("--no-binary", s)],
            "--exclude-newer", date.strftime("%Y-%m-%dT%H:%M:%SZ"),
        ]
        proc = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)
        if proc.returncode == 0:
            pins = [line.split("==", 1) for line in proc.stdout.splitlines() if "==" in line and not line.startswith("#")]
            return [(name.strip(), ver.strip().split(" ")[0]) for name, ver in pins]
        # a pure package that only ever shipped an sdist (py-cpuinfo of 2022): let it build
        missing = re.search(r"(?:all versions of|versions? of|^\s*)\s*([A-Za-z0-9_.-]+)(?:==\S+)? (?:has|have) no usable wheels",
                            proc.stderr, re.MULTILINE)
        if not missing or missing.group(1) in sdists or missing.group(1).lower() in {"torch", "numpy", "pyarrow", "tokenizers"}:
            return proc.stderr.strip()[-400:]
        sdists.append(missing.group(1))
    return proc.stderr.strip()[-400:]


def _install_era(home: Path, python: str, pins: list[tuple[str, str]], minor: str, torch: str | None) -> None:
    """Create the venv ``home`` on ``python`` and install ``pins`` into it (no dependency resolution)."""
    free = shutil.disk_usage(ENV_CACHE.parent if ENV_CACHE.parent.exists() else Path.home()).free
    # each torch, triton or CUDA wheel not yet in uv's cache takes up to ~HEAVY_BYTES more: the disk is shared
    floor = KEEP_FREE_BYTES + HEAVY_BYTES * len(uncached_heavy(pins, minor))
    if free < floor:
        raise RuntimeError(f"too little free disk for the era's stack (torch {torch}; {free / 2**30:.1f} GB free)")
    shutil.rmtree(home, ignore_errors=True)
    home.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([str(UV), "venv", "--quiet", "--python", python, str(home)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"uv venv failed: {proc.stderr[-300:]}")
    command = [str(UV), "pip", "install", "--quiet", "--no-deps", "--python", str(home / "bin" / "python"),
               *[f"{name}=={ver}" for name, ver in pins]]
    proc = subprocess.run(command, capture_output=True, text=True, check=False, timeout=1800)
    if proc.returncode != 0:
        shutil.rmtree(home, ignore_errors=True)
        raise RuntimeError(f"uv could not install the era's stack: {proc.stderr.strip()[-300:]}")


def era_venv(lib: str, version: str, workdir: Path) -> tuple[str, str]:
    """A virtual environment (cached under ENV_CACHE) holding ``lib==version`` with its era's stack,
    torch included, on the newest Python that stack has wheels for; returns (its python, a label)."""
    from kb.apidrift.releases import index_files

    home = ENV_CACHE / "venvs" / f"{lib}-{version}"
    ready = home / "kb-ready.json"
    if ready.exists():
        info = json.loads(ready.read_text())
        return str(home / "bin" / "python"), info["label"]
    published = upload_time(index_files(lib, refresh=False).get(version, []))
    if published is None:
        raise RuntimeError(f"no upload time for {lib}=={version} on the index")
    date = published + timedelta(days=1)
    complaints = []
    for minor in ERA_PYTHONS:
        python = find_python(minor)
        if python is None:
            complaints.append(f"no Python {minor} here")
            continue
        pins = compile_era(lib, version, date, minor, workdir)
        if isinstance(pins, str):
            complaints.append(f"Python {minor}: {pins[-200:]}")
            continue
        torch = dict((n.lower(), v) for n, v in pins).get("torch")
        _install_era(home, python, pins, minor, torch)
        # the newest Python with wheels for the era's stack may still be newer than the release supports
        # (datasets 1.15.0 on 3.10: functools.wraps over pyarrow's methods fails, "readonly attribute"):
        # a release whose package does not even import there is tried on the next older Python
        smoke = subprocess.run([str(home / "bin" / "python"), "-c", f"import {top_package(lib)}"],
                               capture_output=True, text=True, check=False, timeout=600)
        if smoke.returncode == 0:
            break
        last = (smoke.stderr.strip().splitlines() or ["?"])[-1]
        complaints.append(f"Python {minor}: import {top_package(lib)} fails: {last[-200:]}")
        shutil.rmtree(home, ignore_errors=True)
    else:
        raise RuntimeError(f"no era stack of {lib}=={version} ({date:%Y-%m-%d}) resolves and imports here: "
                           + " / ".join(complaints))
    label = f"era venv: Python {minor}, {date:%Y-%m-%d}" + (f", torch {torch}" if torch else ", no torch")
    ready.write_text(json.dumps({"label": label, "pins": [f"{n}=={v}" for n, v in pins]}))
    return str(home / "bin" / "python"), label


# ---- telling an environment's fault from the library's -------------------------------------------


def top_package(lib: str) -> str:
    return lib.replace("-", "_").lower()


def environment_reason(lib: str, error: dict[str, Any] | None) -> str | None:
    """Why an import failed for a reason of this environment rather than of ``lib`` itself, or None.

    The environment is at fault where the missing module lies outside ``lib`` (an optional backend
    such as tensorflow or flax, an old torch's ``torch._six``), where a name is missing from another
    package (``cannot import name 'top_k_top_p_filtering' from 'transformers'``: a dependency of
    another era), where a compiled extension does not load (an undefined symbol: another torch's ABI),
    or where the exception was raised inside another package's code. A module of ``lib`` itself that
    is missing, or an error raised in ``lib``'s own code, is the library's: not undecidable.
    """
    if not error:
        return None
    own = top_package(lib)
    kind, name, message, raised_in = error.get("type"), error.get("name"), error.get("message") or "", error.get("file") or ""
    if kind == "ModuleNotFoundError" and name and name.split(".")[0] != own:
        return f"optional or era module `{name}` is not installed here (not part of {lib})"
    cannot = re.match(r"cannot import name '([^']+)' from '([^']+)'", message)
    if cannot and cannot.group(2).split(".")[0] != own:
        return f"another package of this environment, `{cannot.group(2)}`, has no `{cannot.group(1)}` (a dependency of another era)"
    if re.search(r"undefined symbol|GLIBC_|cannot open shared object file|incompatible ABI|compiled using NumPy 1\.x", message):
        return f"a compiled extension does not load here (ABI): {message[:160]}"
    package = re.search(r"(?:site-packages|dist-packages)/([^/]+)/", raised_in) or re.search(r"/kb-agreement/[^/]+/[^/]+/([^/]+)/", raised_in)
    if package and package.group(1).split(".")[0].lower() != own and not package.group(1).endswith((".py", ".dist-info")):
        return f"raised inside another package ({package.group(1)}): {kind}: {message[:160]}"
    return None


# ---- running the check ------------------------------------------------------------------


def run_child(python: str, target: Path | None, lib: str, group: list[Pair], root: Path) -> dict[str, Any] | str:
    """Run agreement_child.py with ``python`` (``target`` first on its PYTHONPATH); its result or why not."""
    specs = [{"library": p.library, "kind": p.kind, "target": p.target, "name": p.name} for p in group]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    if target is not None:
        env["PYTHONPATH"] = str(target)
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    env.setdefault("DS_BUILD_OPS", "0")
    code = (Path(__file__).parent / "agreement_child.py").read_text()
    try:
        proc = subprocess.run([python, "-c", code, json.dumps(specs)], env=env, capture_output=True, text=True,
                              timeout=CHILD_TIMEOUT_S, cwd=root, check=False)
    except subprocess.TimeoutExpired:
        return f"inspection timed out after {CHILD_TIMEOUT_S} s"
    line = next((out for out in proc.stdout.splitlines() if out.startswith("KB-AGREEMENT ")), None)
    if line is None:
        return f"inspection failed: {(proc.stderr or proc.stdout)[-300:]}"
    return json.loads(line.removeprefix("KB-AGREEMENT "))


@dataclass
class Outcome:
    """What one way of building the environment said about one pair."""

    label: str
    real: bool | None
    note: str
    undecidable: bool = False
    environment: str | None = None  # the environment's fault, where the import failed for one
    missing: bool = False  # the callable does not exist at this release: an answer (the history is wrong)

    @property
    def answers(self) -> bool:
        return self.real is not None or self.undecidable or self.missing


def answer_in(python: str, target: Path | None, lib: str, version: str, label: str, group: list[Pair],
              root: Path) -> list[Outcome] | str:
    result = run_child(python, target, lib, group, root)
    if isinstance(result, str):
        return result
    ran = result["versions"].get(lib)
    if ran != version:
        return f"the child imported {lib} {ran}, not {version}"
    outcomes = []
    for pair, answer in zip(group, result["answers"]):
        error = answer.get("error")
        other = other_era(lib, version, "era" if target is None else label, answer, result["versions"])
        if other is not None:  # not this environment's to answer: the era venv's (or undecidable)
            outcomes.append(Outcome(label, None, other, environment=other))
            continue
        outcomes.append(Outcome(label, answer["real"], answer.get("note", ""), answer.get("undecidable", False),
                                environment_reason(lib, error), answer.get("missing", False)))
    return outcomes


# the libraries the history tracks: a parameter one of them gives another's class is resolved by the history against
# the release that was current when the other's wheel was built (docs/apidrift.md, What it cannot tell)
TRACKED = ("accelerate", "bitsandbytes", "datasets", "deepspeed", "huggingface_hub", "peft", "torch", "transformers",
           "trl")


def other_era(lib: str, version: str, label: str, answer: dict, versions: dict) -> str | None:
    """Why an environment that does not install the release's era (``label``: "era" for the era venv and the era's
    overlay, whose other packages are those of the release's date) cannot answer a parameter pair: the answer is decided
    by another tracked library's code (trl 0.27.0's RewardConfig takes `dataloader_in_order` from the transformers
    TrainingArguments installed beside it, 5.24.0 over this interpreter, not the 4.57 of trl's date), or None. The era's
    environments install that library as of the release's date, as the history reads it."""
    if label == "era":
        return None
    others = [p for p in answer.get("packages", []) if p != lib and p in TRACKED]
    if not others:
        return None
    shown = ", ".join(f"{p} {versions.get(p) or '?'}" for p in others)
    return (f"the answer is {shown}'s code as installed in this environment, not of {lib} {version}'s era "
            "(a parameter from another tracked library)")


def release_undecidable(lib: str, version: str) -> str | None:
    """:func:`undecidable_reason` for a release, from PyPI's index (cached by the history build): why
    the release cannot be inspected over this interpreter (it may still be in its era's own venv)."""
    from kb.apidrift.releases import index_files

    try:
        files = index_files(lib, refresh=False).get(version, [])
    except OSError:
        files = []
    return undecidable_reason(lib, version, files, installed_version("torch"))


_BUILD_FAILURES: dict[tuple[str, str, str], str] = {}


def environments(lib: str, version: str, root: Path) -> list[str]:
    """The ways to build an environment for this release, in order: the release alone over this interpreter
    (cheap, and right for most), its era's own venv (the most faithful: once its child runs, no other is
    tried), then the overlays of ATTEMPTS over this interpreter's torch, for when the venv cannot be built."""
    if release_undecidable(lib, version):
        return ["era venv"]  # not over this interpreter: another Python or another torch
    labels = [label for label, _ in ATTEMPTS]
    return labels[:1] + ["era venv"] + labels[1:]


def settle(pair: Pair, outcomes: list[Outcome]) -> None:
    """The pair's verdict from the outcomes of the environments tried, in order.

    The first outcome that answers (real True/False, undecidable by the module's own branches, or the
    callable missing) decides. Where none answers and an attempt failed for a reason of its environment,
    the pair is undecidable, with every attempt's reason; where every attempt failed in the library's
    own code, it stays a disagreement.
    """
    trail = "; ".join(f"[{o.label}] {o.environment or o.note}" for o in outcomes)
    for o in outcomes:
        if o.answers:
            pair.real, pair.undecidable = o.real, o.undecidable
            pair.note = f"[{o.label}] {o.note}".strip()
            return
    pair.real = None
    if any(o.environment for o in outcomes):
        pair.undecidable = True
        pair.note = f"undecidable here: {trail}"
    else:
        pair.note = trail


def check(pairs: list[Pair], keep: Path | None = None) -> None:
    """Fill in ``real`` and ``note`` of every pair, in environments per (library, version).

    Each release is tried in the environments of :func:`environments` in order until every pair is
    answered; each pair keeps every attempt's outcome, and :func:`settle` gives the verdict.
    """
    groups: dict[tuple[str, str], list[Pair]] = defaultdict(list)
    for pair in pairs:
        groups[(pair.library, pair.version)].append(pair)
    root = Path(tempfile.mkdtemp(prefix="kb-agreement-", dir=keep))
    try:
        for (lib, version), group in sorted(groups.items()):
            trail: dict[int, list[Outcome]] = {id(p): [] for p in group}
            answered: set[int] = set()
            for label in environments(lib, version, root):
                pending = [p for p in group if id(p) not in answered]
                if not pending:
                    break
                print(f"{lib} {version}: {len(pending)} pairs ({label})", flush=True)
                key = (lib, version, label)
                try:
                    if key in _BUILD_FAILURES:
                        raise RuntimeError(_BUILD_FAILURES[key])
                    if label == "era venv":
                        python, shown = era_venv(lib, version, root)
                        target: Path | None = None
                    else:
                        constraints = dict(ATTEMPTS)[label]
                        target, _pins = build_environment(lib, version, root, constraints)
                        python, shown = sys.executable, label
                except (RuntimeError, subprocess.TimeoutExpired) as exc:
                    _BUILD_FAILURES[key] = str(exc)
                    for pair in pending:
                        trail[id(pair)].append(Outcome(f"could not build ({label})", None, str(exc)[:300],
                                                       environment=f"could not build ({label}): {str(exc)[:300]}"))
                    continue
                result = answer_in(python, target, lib, version, shown, pending, root)
                for i, pair in enumerate(pending):
                    outcome = result[i] if isinstance(result, list) else Outcome(shown, None, result)
                    trail[id(pair)].append(outcome)
                    if outcome.answers:
                        answered.add(id(pair))
                if label == "era venv" and isinstance(result, list):
                    break  # the era's own stack has spoken; today's torch would only be less faithful
            for pair in group:
                settle(pair, trail[id(pair)])
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)


def judge(history: HistoryLike, decidable: int, seed: int, versions_per_library: int = 3,
          max_draws: int = 1000, checker: Any = check, progress: Any = None) -> list[Pair]:
    """Draw pairs in the seed's fixed order and judge them until ``decidable`` of them are decidable here
    (or ``max_draws`` are drawn); returns every drawn pair, undecidable ones included.

    The draw order does not depend on how many are wanted (:func:`sample_pairs` stops early on the
    same stream), so the first pairs of a longer run are those of a shorter one with the same seed.
    """
    stream = draw_pairs(history, seed, versions_per_library, max_draws * 50)
    judged: list[Pair] = []
    while len(judged) < max_draws:
        need = min(decidable - sum(not p.undecidable for p in judged), max_draws - len(judged))
        batch = list(itertools.islice(stream, need))
        if not batch:
            break
        checker(batch)
        judged += batch
        if progress is not None:
            progress(judged)
    return judged


def reason_class(pair: Pair) -> str:
    """A short class of why a pair is undecidable, for the summary: the reason the most faithful (last)
    environment tried gave."""
    note = pair.note.split("; [")[-1]
    for pattern, label in (
        (r"module `(tensorflow|flax|jax|keras)", r"needs \1 (optional backend)"),
        (r"module `torch\._six`", "needs torch._six (torch < 2.0)"),
        (r"module `([\w.]+)` is not installed", r"needs `\1` (not installed)"),
        (r"`([\w.]+)`, has no `(\w+)`", r"`\1` lacks `\2`"),
        (r"\(ABI\)", "compiled extension does not load (ABI)"),
        (r"raised inside another package \((\w+)\)", r"raised inside \1"),
        (r"optional dependency", "binds the name only when an optional package is installed"),
        (r"branch not taken here", "binds the name only in a branch not taken here"),
        (r"could not build \(era venv\)", "its era's environment cannot be built here"),
    ):
        m = re.search(pattern, note)
        if m:
            return m.expand(label)
    return note[:80]


def report(pairs: list[Pair], seed: int, source: str, command: str | None = None) -> str:
    agreed = sum(p.agrees for p in pairs)
    undecidable = [p for p in pairs if p.undecidable]
    decided = len(pairs) - len(undecidable)
    reasons: dict[str, int] = defaultdict(int)
    for p in undecidable:
        reasons[f"{p.library} {p.version}: {reason_class(p)}"] += 1
    summary = "; ".join(f"{why} ({n})" for why, n in sorted(reasons.items())) or "none"
    command = command or f"python -m kb.apidrift.agreement --pairs {len(pairs)} --seed {seed}"
    lines = [
        "# API history agreement check",
        "",
        f"`{command}` ({datetime.now(UTC).replace(microsecond=0).isoformat()}, history: {source}).",
        "",
        f"**Agreement: {agreed} of {decided} decidable pairs ({100 * agreed / max(1, decided):.0f}%); "
        f"{len(pairs)} pairs drawn, {len(undecidable)} undecidable here.** ({agreed}/{len(pairs)} pairs; "
        f"{agreed}/{decided} of the pairs this machine can decide.)",
        "",
        f"Undecidable ({len(undecidable)}), outside the denominator and never counted as agreement, by release and "
        f"reason: {summary}.",
        "",
        "A pair is undecidable where every environment built for its release failed to import the target for a reason "
        "of the environment (a module outside the library that is not installed, such as an optional backend; a name "
        "missing from another package of another era; a compiled extension that does not load; an error raised in "
        "another package's code), where its era's own environment cannot be built here, or where the module binds the "
        "name only when an optional package is installed or in a branch not taken (the history records every branch's "
        "bindings; docs/apidrift.md, What it cannot tell). A failure in the library's own code stays a disagreement.",
        "",
        "| # | library | version | kind | target | name | history | real | agrees | note |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for i, p in enumerate(pairs, 1):
        real = "undecidable" if p.undecidable else "?" if p.real is None else ("yes" if p.real else "no")
        lines.append(
            f"| {i} | {p.library} | {p.version} | {p.kind} | `{p.target}` | `{p.name}` | {'yes' if p.claim else 'no'} | {real} | "
            f"{'yes' if p.agrees else '-' if p.undecidable else '**NO**'} | {' '.join(p.note.split()).replace('|', '/')} |"
        )
    disagreements = [p for p in pairs if not p.agrees and not p.undecidable]
    lines += ["", f"## Disagreements ({len(disagreements)})", ""]
    lines += [f"- {p.sentence()}: history {'yes' if p.claim else 'no'}, real {p.real}. {p.note}" for p in disagreements] or ["None."]
    return "\n".join(lines) + "\n"


def load(history_file: Path | None) -> tuple[HistoryLike, str]:
    if history_file:
        return JsonHistory.read(history_file), str(history_file)
    from kb.apidrift.history import load_history

    return load_history(), "kb.apidrift.history (shipped data)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kb.apidrift.agreement", description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=50, help="judge pairs until this many are decidable here")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--versions-per-library", type=int, default=3)
    parser.add_argument("--max-draws", type=int, default=1000, help="stop drawing after this many pairs")
    parser.add_argument("--history-file", type=Path, help="a JSON history (JsonHistory format) instead of the shipped one")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the Markdown report (default: %(default)s)")
    parser.add_argument("--json", type=Path, help="also write the pairs as JSON")
    ns = parser.parse_args(argv)
    history, source = load(ns.history_file)
    command = "python -m kb.apidrift.agreement " + " ".join(argv if argv is not None else sys.argv[1:])

    def write(pairs: list[Pair]) -> None:  # after every batch: a long run killed midway still leaves its pairs
        ns.out.parent.mkdir(parents=True, exist_ok=True)
        ns.out.write_text(report(pairs, ns.seed, source, command))
        if ns.json:
            ns.json.write_text(json.dumps([asdict(p) | {"agrees": p.agrees} for p in pairs], indent=2) + "\n")

    pairs = judge(history, ns.pairs, ns.seed, ns.versions_per_library, ns.max_draws, progress=write)
    write(pairs)
    agreed = sum(p.agrees for p in pairs)
    decided = sum(not p.undecidable for p in pairs)
    print(f"agreement {agreed} of {decided} decidable pairs ({len(pairs)} drawn, {len(pairs) - decided} undecidable); "
          f"report in {ns.out}")
    return 0 if agreed == decided else 1


if __name__ == "__main__":
    raise SystemExit(main())

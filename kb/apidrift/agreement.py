"""Check the extracted API history against the real packages: sample (library, name, version) pairs,
install that release in a throwaway directory, inspect the real object, compare.

    python -m kb.apidrift.agreement --pairs 50 --seed 1 [--versions-per-library 3] [--out FILE]

A pair is one claim of the history: "at trl 0.15.2, ``trl.SFTTrainer`` accepts ``max_seq_length``"
(a parameter), "at peft 0.9.0, ``peft`` exports ``prepare_model_for_int8_training``" (an
export) or "transformers 4.36.2 knows model type ``qwen2``" (a model type). Names are drawn
from everything the history records for that target across all releases, half of them from
names it says are *absent* at the sampled release, so both kinds of claim are checked.

Sampling is in two stages so the installs stay few: ``--versions-per-library`` releases of each
library are drawn, then pairs are drawn round-robin over the libraries among those releases.

The environment: ``pip install --dry-run --ignore-installed --report`` resolves
``<lib>==<version>`` with torch constrained to the installed one; every resolved package whose
version differs from this interpreter's is installed with ``pip install --no-deps --target``
into a temporary directory, which is put first on the child's ``PYTHONPATH`` (torch stays the
interpreter's). Where the release does not import over this interpreter's packages, its own era is
tried next: ``uv pip compile --exclude-newer <upload date>`` (setuptools included, for pkg_resources;
the date moved forward until that stack has wheels for this Python). A release with no file that
installs on this Python, or a torch other than this interpreter's, is undecidable here: listed apart,
outside the denominator, never an agreement. The child imports the real module and answers with ``hasattr`` (exports),
``inspect.signature`` with ``**kwargs`` followed up the MRO (parameters; dataclass fields come
out of the signature) or ``CONFIG_MAPPING_NAMES`` (model types).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import inspect
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
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import kb

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


def sample_pairs(history: HistoryLike, count: int, seed: int, versions_per_library: int = 3) -> list[Pair]:
    rng = random.Random(seed)
    libraries = [lib for lib in history.libraries() if history.versions(lib)]
    chosen = {lib: sorted(rng.sample(history.versions(lib), min(versions_per_library, len(history.versions(lib))))) for lib in libraries}
    pairs: list[Pair] = []
    seen: set[tuple[str, str, str, str]] = set()
    attempts = 0
    while len(pairs) < count and attempts < count * 50:
        lib = libraries[attempts % len(libraries)]
        attempts += 1
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
        pairs.append(Pair(lib, version, kind, target, name, claim=name in present))
    return pairs


# ---- the throwaway environment ----------------------------------------------------------


def installed_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
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
        name = canonicalize_name(dist.metadata["Name"] or "")
        if not name or name in versions or name in NOT_INSTALLED or name.startswith("nvidia-"):
            continue
        for text in dist.requires or []:
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
    target = root / f"{lib}-{version}"
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
    return target, pins


# ---- inspecting the real object (runs in the child) -------------------------------------


def resolve_object(path: str) -> Any:
    """Import the longest importable module prefix of ``path`` and walk the rest as attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(f"cannot import any prefix of {path}")


def accepted_parameters(obj: Any) -> tuple[set[str], bool]:
    """Names a caller may pass to ``obj`` and whether an unresolved ``**kwargs`` remains.

    A class's ``__init__`` that takes ``**kwargs`` is followed to the next ``__init__`` up the
    MRO, as the call would forward them (Trainer subclasses, configs).
    """
    names: set[str] = set()
    if inspect.isclass(obj):
        for cls in obj.__mro__:
            if cls is object or "__init__" not in vars(cls) and cls is not obj:
                continue
            try:
                signature = inspect.signature(cls) if cls is obj else inspect.signature(cls.__init__)
            except (TypeError, ValueError):
                continue
            parameters = [p for p in signature.parameters.values() if p.name != "self"]
            names |= {p.name for p in parameters if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
            if not any(p.kind == p.VAR_KEYWORD for p in parameters):
                return names, False
        return names, True
    signature = inspect.signature(obj)
    names = {p.name for p in signature.parameters.values() if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name != "self"}
    return names, any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values())


def read_from_kwargs(obj: Any, name: str) -> bool:
    """Whether the real source pops or reads ``name`` from its ``**kwargs`` (from_pretrained and kin)."""
    try:
        source = inspect.getsource(obj)
    except (OSError, TypeError):
        return False
    return re.search(rf"kwargs\.(pop|get)\(\s*[\"']{re.escape(name)}[\"']", source) is not None


def inspect_pair(kind: str, target: str, name: str) -> dict[str, Any]:
    """The real answer for one pair, in this interpreter (the child of :func:`check`)."""
    try:
        if kind == "export":
            module = importlib.import_module(target)
            try:
                getattr(module, name)
                return {"real": True}
            except AttributeError:
                pass
            except Exception as exc:  # noqa: BLE001 - exported, but its lazy import needs something absent
                return {"real": True, "note": f"exported; importing it raised {type(exc).__name__}: {str(exc)[:160]}"}
            try:  # `from pkg import sub` also imports a submodule that is not yet an attribute
                importlib.import_module(f"{target}.{name}")
                return {"real": True, "note": "a submodule"}
            except ModuleNotFoundError as exc:
                if exc.name != f"{target}.{name}":
                    return {"real": True, "note": f"a submodule; importing it raised {exc}"}
                if optional_dependency(module, name):
                    return {"real": None, "undecidable": True,
                            "note": f"optional dependency: the module binds `{name}` only where the package `{name}` "
                                    "is installed, and it is not installed here"}
                branch = conditional_import(source_of(module), name)
                if branch:
                    return {"real": None, "undecidable": True,
                            "note": f"bound only in a branch not taken here: `{branch}` (under an if/try); "
                                    "the history records every branch's bindings"}
                return {"real": False}
            except Exception as exc:  # noqa: BLE001
                return {"real": True, "note": f"a submodule; importing it raised {type(exc).__name__}: {str(exc)[:160]}"}
        if kind == "param":
            obj = resolve_object(target)
            names, open_kwargs = accepted_parameters(obj)
            if name in names or not open_kwargs:
                return {"real": name in names}
            if read_from_kwargs(obj, name):
                return {"real": True, "note": "read from **kwargs in the source"}
            return {"real": False, "note": "the callable also takes **kwargs"}
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

        return {"real": name in CONFIG_MAPPING_NAMES}
    except Exception as exc:  # noqa: BLE001 - reported as "could not inspect", never as agreement
        return {"real": None, "note": f"could not inspect: {type(exc).__name__}: {str(exc)[:200]}"}


def source_of(module: Any) -> str:
    try:
        return inspect.getsource(module)
    except (OSError, TypeError):
        return ""


def conditional_import(source: str, name: str) -> str | None:
    """The import statement that binds ``name`` only inside an ``if``/``try`` at module level
    (``if is_triton_available(): from triton.ops... import early_config_prune``), or None where
    ``name`` is bound unconditionally or not by an import at all."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    found: str | None = None

    def visit(nodes: list[ast.stmt], nested: bool) -> bool:
        nonlocal found
        for node in nodes:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                bound = {(a.asname or a.name.split(".")[0]) for a in node.names}
                if name in bound:
                    if not nested:
                        return True
                    found = found or ast.unparse(node)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                targets = [node.name] if hasattr(node, "name") else [
                    t.id for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)]
                if name in targets and not nested:
                    return True
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                bodies = [node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])]
                bodies += [h.body for h in getattr(node, "handlers", [])]
                if any(visit(body, True) for body in bodies):
                    return True
        return False

    return None if visit(tree.body, False) else found


def optional_dependency(module: Any, name: str) -> bool:
    """Whether ``module``'s source imports the top-level package ``name`` (``import boto3`` under
    ``if is_boto3_available():``) and that package is absent from this interpreter."""
    import importlib.util

    try:
        if importlib.util.find_spec(name) is not None:
            return False
        source = inspect.getsource(module)
    except (ImportError, OSError, TypeError, ValueError):
        return False
    return re.search(rf"^\s*import {re.escape(name)}\b|^\s*from {re.escape(name)}\b", source, re.MULTILINE) is not None


def inspect_main(specs_json: str) -> int:
    specs = json.loads(specs_json)
    answers = [inspect_pair(s["kind"], s["target"], s["name"]) for s in specs]
    versions = {lib: installed_version(lib) for lib in {s["library"] for s in specs}}
    print("KB-AGREEMENT " + json.dumps({"answers": answers, "versions": versions}))
    return 0


# ---- running the check ------------------------------------------------------------------


def inspect_in(target: Path, lib: str, version: str, group: list[Pair], root: Path) -> str | None:
    """Answer ``group`` in a child whose PYTHONPATH starts with ``target``; returns why not, or None."""
    specs = [{"library": p.library, "kind": p.kind, "target": p.target, "name": p.name} for p in group]
    env = os.environ.copy()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(target), str(REPO_ROOT), env.get("PYTHONPATH")]))
    env.setdefault("HF_HUB_OFFLINE", "1")
    command = [sys.executable, "-m", "kb.apidrift.agreement", "--inspect", json.dumps(specs)]
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, cwd=root, check=False)
    line = next((out for out in proc.stdout.splitlines() if out.startswith("KB-AGREEMENT ")), None)
    if line is None:
        return f"inspection failed: {(proc.stderr or proc.stdout)[-300:]}"
    result = json.loads(line.removeprefix("KB-AGREEMENT "))
    ran = result["versions"].get(lib)
    if ran != version:
        return f"the child imported {lib} {ran}, not {version}"
    for pair, answer in zip(group, result["answers"], strict=True):
        pair.real = answer["real"]
        pair.note = answer.get("note", "")
        pair.undecidable = answer.get("undecidable", False)
    return None


def release_undecidable(lib: str, version: str) -> str | None:
    """:func:`undecidable_reason` for a release, from PyPI's index (cached by the history build)."""
    from kb.apidrift.releases import index_files

    try:
        files = index_files(lib, refresh=False).get(version, [])
    except OSError:
        files = []
    return undecidable_reason(lib, version, files, installed_version("torch"))


def check(pairs: list[Pair], keep: Path | None = None) -> None:
    """Fill in ``real`` and ``note`` of every pair, in throwaway environments per (library, version).

    Pairs the first environment cannot answer (the release does not import over this interpreter's
    packages) go on to the next way of building one (ATTEMPTS); the note says which answered.
    """
    groups: dict[tuple[str, str], list[Pair]] = defaultdict(list)
    for pair in pairs:
        groups[(pair.library, pair.version)].append(pair)
    root = Path(tempfile.mkdtemp(prefix="kb-agreement-", dir=keep))
    try:
        for (lib, version), group in sorted(groups.items()):
            why = release_undecidable(lib, version)
            if why:
                for pair in group:
                    pair.undecidable, pair.note = True, why
                continue
            for label, constraints in ATTEMPTS:
                pending = [p for p in group if p.real is None and not p.undecidable]
                if not pending:
                    break
                print(f"{lib} {version}: {len(pending)} pairs ({label})", flush=True)
                try:
                    target, _pins = build_environment(lib, version, root, constraints)
                except RuntimeError as exc:
                    for pair in pending:
                        pair.note = f"could not install ({label}): {str(exc)[:200]}"
                    continue
                failure = inspect_in(target, lib, version, pending, root)
                for pair in pending:
                    if failure:
                        pair.note = failure
                    pair.note = f"[{label}] {pair.note}".strip()
                shutil.rmtree(target, ignore_errors=True)
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)


def report(pairs: list[Pair], seed: int, source: str) -> str:
    agreed = sum(p.agrees for p in pairs)
    undecidable = [p for p in pairs if p.undecidable]
    decided = len(pairs) - len(undecidable)
    lines = [
        "# API history agreement check",
        "",
        (f"`python -m kb.apidrift.agreement --pairs {len(pairs)} --seed {seed}` "
         f"({datetime.now(UTC).replace(microsecond=0).isoformat()}, history: {source})."),
        "",
        f"**Agreement: {agreed}/{len(pairs)} pairs ({100 * agreed / max(1, len(pairs)):.0f}%); "
        f"{agreed}/{decided} of the pairs this machine can decide ({100 * agreed / max(1, decided):.0f}%).**",
        "",
        f"Undecidable here ({len(undecidable)}), outside the denominator and never counted as agreement: names a "
        "module binds only when an optional package is installed or in a branch not taken here (the history records "
        "every branch's bindings; docs/apidrift.md, What it cannot tell); releases with no file that installs on this "
        "Python; a torch other than this interpreter's (each pair's note says which).",
        "",
        "| # | library | version | kind | target | name | history | real | agrees | note |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for i, p in enumerate(pairs, 1):
        real = "undecidable" if p.undecidable else "?" if p.real is None else ("yes" if p.real else "no")
        lines.append(
            f"| {i} | {p.library} | {p.version} | {p.kind} | `{p.target}` | `{p.name}` | {'yes' if p.claim else 'no'} | {real} | "
            f"{'yes' if p.agrees else '-' if p.undecidable else '**NO**'} | {p.note.replace('|', '/')} |"
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
    parser.add_argument("--pairs", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--versions-per-library", type=int, default=3)
    parser.add_argument("--history-file", type=Path, help="a JSON history (JsonHistory format) instead of the shipped one")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the Markdown report (default: %(default)s)")
    parser.add_argument("--json", type=Path, help="also write the pairs as JSON")
    parser.add_argument("--inspect", help=argparse.SUPPRESS)  # child mode: answer for a JSON list of pairs
    ns = parser.parse_args(argv)
    if ns.inspect:
        return inspect_main(ns.inspect)
    history, source = load(ns.history_file)
    pairs = sample_pairs(history, ns.pairs, ns.seed, ns.versions_per_library)
    check(pairs)
    text = report(pairs, ns.seed, source)
    ns.out.parent.mkdir(parents=True, exist_ok=True)
    ns.out.write_text(text)
    if ns.json:
        ns.json.write_text(json.dumps([asdict(p) | {"agrees": p.agrees} for p in pairs], indent=2) + "\n")
    agreed = sum(p.agrees for p in pairs)
    decided = sum(not p.undecidable for p in pairs)
    print(f"agreement {agreed}/{len(pairs)} ({agreed}/{decided} decidable here); report in {ns.out}")
    return 0 if agreed == decided else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""The runtime of the ``paste/`` page: Pyodide and kb's wheel, put into the site at build time.

The page (``docs/paste/index.md`` and ``docs/paste/paste.js``) diagnoses a pasted error with kb's own
engine, in the browser: Pyodide (CPython compiled to WebAssembly) runs the wheel built from this checkout,
which carries the knowledge (pyproject.toml's force-include puts it under ``kb/_knowledge/``). Every file
the page loads is served by the site itself, under ``paste/runtime/``; nothing comes from a CDN.

- Pyodide is the npm package ``pyodide`` at the version package-lock.json pins. When ``node_modules/``
  does not hold that version the build runs ``npm ci`` (a clean checkout, CI). Without npm the site is
  built without the runtime: the page says so, and the browser tests skip (or fail where
  ``KB_REQUIRE_BROWSER`` is set).
- The wheel is ``pip wheel --no-deps`` of the checkout, as scripts/check_install.py builds it, kept in
  ``build/paste-wheel/`` under a key of every input file's path, size and modification time, so the
  several site builds of one test run build it once.
- ``runtime.json`` names the wheel and the Pyodide version, and lists each file with its size.

Both builders use :func:`runtime_files`: the mkdocs hook (docs/hooks/kb_pages.py) adds the files to the
build, ``python -m kb.site.build stage`` copies them into the staged tree (Zensical). Builds of one
checkout that run at the same time (pytest-xdist) take a lock around ``npm ci`` and the wheel build.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

RUNTIME_DIR = "paste/runtime"
MANIFEST = "runtime.json"
# What loadPyodide fetches for the standard library alone (no packages are loaded).
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
# What goes into kb's wheel (pyproject.toml: the kb package and the knowledge folders it force-includes).
WHEEL_INPUTS = ("kb", "cases", "families", "examples", "incidents", "drift", "tables", "pyproject.toml", "README.md")
_SKIP_PARTS = {"__pycache__", "_knowledge"}


class RuntimeUnavailable(Exception):
    """The page's runtime cannot be put into the site on this machine (no npm): the message says why."""


def locked_pyodide(repo: Path) -> str:
    """The Pyodide version package-lock.json pins."""
    lock = json.loads((repo / "package-lock.json").read_text(encoding="utf-8"))
    return lock["packages"]["node_modules/pyodide"]["version"]


def _installed_pyodide(repo: Path) -> str | None:
    package = repo / "node_modules" / "pyodide" / "package.json"
    try:
        version = json.loads(package.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None
    if not all((package.parent / name).is_file() for name in PYODIDE_FILES):
        return None
    return version


@contextlib.contextmanager
def _locked(repo: Path) -> Iterator[None]:
    """One builder at a time installs Pyodide or builds the wheel in this checkout."""
    lock_dir = repo / "build"
    lock_dir.mkdir(exist_ok=True)
    with open(lock_dir / "paste-runtime.lock", "w") as handle:
        try:
            import fcntl
        except ImportError:  # no flock (Windows): builds there run one at a time anyway
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes
        yield


def pyodide_dir(repo: Path) -> Path:
    """``node_modules/pyodide`` at the locked version, installed with ``npm ci`` when it is not there.

    Raises :class:`RuntimeUnavailable` when npm is missing, RuntimeError when ``npm ci`` fails."""
    want = locked_pyodide(repo)
    if _installed_pyodide(repo) != want:
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeUnavailable(f"npm is not installed, so Pyodide {want} (package-lock.json) cannot be "
                                     "installed: the paste/ page is built without its runtime")
        proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=repo,
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0 or _installed_pyodide(repo) != want:
            raise RuntimeError(f"npm ci did not install pyodide {want}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return repo / "node_modules" / "pyodide"


def wheel_key(repo: Path) -> str:
    """A digest of every file the wheel is built from: its path, size and modification time."""
    digest = hashlib.sha256()
    for name in WHEEL_INPUTS:
        top = repo / name
        paths = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file() and not _SKIP_PARTS & set(p.parts))
        for path in paths:
            st = path.stat()
            digest.update(f"{path.relative_to(repo).as_posix()}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def kb_wheel(repo: Path) -> Path:
    """The wheel of this checkout (``pip wheel --no-deps``), built once per state of its input files."""
    folder = repo / "build" / "paste-wheel" / wheel_key(repo)
    found = sorted(folder.glob("kb_finetune-*.whl"))
    if found:
        return found[0]
    with tempfile.TemporaryDirectory(prefix="kb-paste-wheel-") as tmp:
        proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp, str(repo)],
                              cwd=tmp, capture_output=True, text=True, timeout=600)
        built = sorted(Path(tmp).glob("kb_finetune-*.whl"))
        if proc.returncode != 0 or len(built) != 1:
            raise RuntimeError(f"pip wheel of {repo} failed:\n{proc.stderr[-3000:]}")
        shutil.rmtree(folder.parent, ignore_errors=True)  # one wheel kept: the current one
        folder.mkdir(parents=True)
        return Path(shutil.copy2(built[0], folder / built[0].name))


def runtime_files(repo: Path) -> dict[str, Path]:
    """``{path inside the site: file}`` for everything the page loads besides itself, ``runtime.json`` included.

    Raises :class:`RuntimeUnavailable` where npm is missing (see the module docstring)."""
    with _locked(repo):
        pyodide = pyodide_dir(repo)
        wheel = kb_wheel(repo)
        files = {f"{RUNTIME_DIR}/{name}": pyodide / name for name in PYODIDE_FILES}
        files[f"{RUNTIME_DIR}/{wheel.name}"] = wheel
        manifest = {
            "pyodide": locked_pyodide(repo),
            "wheel": wheel.name,
            "files": {site_path.rsplit("/", 1)[1]: path.stat().st_size for site_path, path in files.items()},
        }
        out = wheel.parent / MANIFEST
        text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
        if not out.is_file() or out.read_text(encoding="utf-8") != text:
            out.write_text(text, encoding="utf-8")
        files[f"{RUNTIME_DIR}/{MANIFEST}"] = out
    return files


def runtime_or_none(repo: Path) -> dict[str, Path]:
    """:func:`runtime_files`, or ``{}`` (and why, on standard error) where npm is missing."""
    try:
        return runtime_files(repo)
    except RuntimeUnavailable as exc:
        print(f"kb.site: {exc}", file=sys.stderr)
        return {}


def copy_runtime(repo: Path, docs: Path) -> list[str]:
    """Copy the runtime into a docs tree (the staged tree of ``python -m kb.site.build stage``); the paths
    written (none where npm is missing)."""
    files = runtime_or_none(repo)
    for rel, path in files.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, docs / rel)
    return sorted(files)

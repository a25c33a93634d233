"""Version-pinned reproductions: install a reproduction's exact library versions offline.

A reproduction may name ``pins = ["transformers==4.51.3", "trl==0.15.2", ...]``. The
GPU machines have no package registry, so the wheels come from a local wheelhouse
(``.whl-pinned/`` in the repo root, or ``$KB_WHEELHOUSE``; built by
``scripts/build-wheelhouse.sh``). :func:`prepare` installs exactly the pinned wheels
with ``pip install --no-index --no-deps --target`` into a cache directory keyed by
the pins and the interpreter, and the runner prepends that directory to the child's
``PYTHONPATH``, so the pinned versions shadow whatever the machine has installed.

``--no-deps`` is deliberate: the pins must list every package whose installed
version does not fit the pinned stack (for transformers 4.51: tokenizers < 0.22,
huggingface-hub < 1.0). What the child actually imported is recorded by
:mod:`kb.reproduce.harness` and checked against the pins by the runner.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import kb
from kb.knowledge.pins import Pin, PinError, canonical_name, parse_pin, parse_pins  # noqa: F401 - the pin syntax is the knowledge's

REPO_ROOT = Path(kb.REPO_ROOT)
WHEELHOUSE_ENV = "KB_WHEELHOUSE"
CACHE_ENV = "KB_PINNED_CACHE"
PINS_ENV = "KB_PINS"  # passed to the child so the harness can report pinned vs imported
DEFAULT_WHEELHOUSE = REPO_ROOT / ".whl-pinned"
COMPLETE_MARKER = ".kb-pinned.json"
# A wheel file name: {distribution}-{version}(-{build})?-{python}-{abi}-{platform}.whl
WHEEL_PATTERN = re.compile(
    r"^(?P<name>[^-]+)-(?P<version>[^-]+)(?:-\d[^-]*)?-(?P<python>[^-]+)-(?P<abi>[^-]+)-(?P<platform>[^-]+)\.whl$")


def wheelhouse() -> Path:
    override = os.environ.get(WHEELHOUSE_ENV)
    return Path(override) if override else DEFAULT_WHEELHOUSE


def cache_root() -> Path | None:
    """Where the pinned environments are kept: ``$KB_PINNED_CACHE``, else ``pinned`` in kb's cache folder
    (kb/knowledge/index.py's rules: an absolute ``$XDG_CACHE_HOME``, never a relative one, no cache for an
    empty ``HOME``); None for no cache."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    from kb.knowledge.index import _cache_dir

    where = _cache_dir()
    return Path(where) / "pinned" if where else None


def _trusted(root: Path) -> bool:
    """Whether ``root`` (and kb's cache folder above it) is a folder of this user's that no one else can
    write to, made 0700 where missing: an environment there is code put first on the program's path, and its
    name is computable from the pins, so one that another user could plant must never be used."""
    from kb.knowledge.index import _cache_dir, _safe_dir

    parent = _cache_dir()
    if parent is not None and root == Path(parent) / "pinned" and not _safe_dir(parent):
        return False
    return _safe_dir(str(root))


def runs_here(python_tags: str, abi_tags: str, platform_tags: str) -> bool:
    """Whether a wheel with these (dot-separated) tags installs on this interpreter and machine.

    A wheelhouse built on the GPU machines holds cp312 wheels; on another Python the pinned items must skip
    with a reason instead of failing in pip. The check is the wheel-tag rule in small: a pure ``py3``/``pyXY``
    wheel, or a ``cpXY`` wheel of this interpreter (``abi3`` from an older one), for ``any`` platform or this
    machine's architecture."""
    here = f"{sys.version_info.major}{sys.version_info.minor}"
    pythons, abis = python_tags.split("."), abi_tags.split(".")
    pure = any(t in ("py3", f"py{here}") for t in pythons) and "none" in abis
    older_abi3 = [t for t in pythons if t.startswith("cp3") and t[3:].isdigit() and int(t[3:]) <= sys.version_info.minor]
    compiled = f"cp{here}" in pythons or ("abi3" in abis and bool(older_abi3))
    machine = platform.machine()
    platform_ok = any(t == "any" or t.endswith(machine) for t in platform_tags.split("."))
    return (pure or compiled) and platform_ok


def wheels_for(pin: Pin, house: Path) -> list[Path]:
    """Wheels in ``house`` whose file name is this distribution at exactly this version, for this interpreter."""
    found = []
    for path in sorted(house.glob("*.whl")):
        m = WHEEL_PATTERN.match(path.name)
        if (m and canonical_name(m["name"]) == pin.name and m["version"] == pin.version
                and runs_here(m["python"], m["abi"], m["platform"])):
            found.append(path)
    return found


def missing_wheels(pins: tuple[Pin, ...], house: Path | None = None) -> list[Pin]:
    house = house or wheelhouse()
    return [pin for pin in pins if not wheels_for(pin, house)]


def skip_reason(pin_texts: tuple[str, ...], house: Path | None = None) -> str | None:
    """Why this machine cannot prepare the pinned environment, or None when it can."""
    if not pin_texts:
        return None
    house = house or wheelhouse()
    missing = missing_wheels(parse_pins(pin_texts), house)
    if not house.is_dir():
        return f"pinned reproduction needs the wheelhouse {house} (build it with scripts/build-wheelhouse.sh)"
    if missing:
        names = ", ".join(str(p) for p in missing)
        return (f"pinned reproduction: the wheelhouse {house} has no wheel of {names} for "
                f"Python {sys.version_info.major}.{sys.version_info.minor} on {platform.machine()} "
                f"(run scripts/build-wheelhouse.sh with this Python)")
    return None


def unpinned(requires: tuple[str, ...], pin_texts: tuple[str, ...]) -> tuple[str, ...]:
    """The import names in ``requires`` that no pin provides (those must be installed on the machine)."""
    pinned = {parse_pin(p).name for p in pin_texts}
    return tuple(r for r in requires if canonical_name(r) not in pinned)


def environment_key(pins: tuple[Pin, ...]) -> str:
    """A directory name for this set of pins on this interpreter (order of pins does not matter)."""
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    digest = hashlib.sha256("\n".join(sorted(str(p) for p in pins)).encode()).hexdigest()[:16]
    return f"{tag}-{digest}"


def prepare(pin_texts: tuple[str, ...], house: Path | None = None, root: Path | None = None) -> Path:
    """Install the pinned wheels (once per pin set) and return the directory to put on PYTHONPATH.

    Installs into a temporary sibling and renames it into place, so a crashed or
    concurrent install never leaves a half-filled directory that looks complete.
    """
    pins = parse_pins(pin_texts)
    house = house or wheelhouse()
    root = root or cache_root()
    if root is None or not _trusted(root):
        # no cache kb can trust (a relative XDG_CACHE_HOME, an empty HOME, a folder others can write to or
        # that is a link): this run's own private folder
        root = Path(tempfile.mkdtemp(prefix="kb-pinned-"))
    target = root / environment_key(pins)
    if (target / COMPLETE_MARKER).is_file():
        return target
    reason = skip_reason(pin_texts, house)
    if reason:
        raise PinError(reason)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f"{target.name}.tmp-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    command = [
        sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--no-compile",
        "--no-cache-dir", "--disable-pip-version-check", "--find-links", str(house), "--target", str(staging),
        *(str(p) for p in pins),
    ]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise PinError(f"pip could not install {', '.join(map(str, pins))} from {house}:\n{proc.stderr[-3000:]}")
    (staging / COMPLETE_MARKER).write_text(json.dumps({"pins": [str(p) for p in pins], "wheelhouse": str(house)}, indent=2))
    try:
        staging.rename(target)
    except OSError:  # another process finished first: use its directory
        shutil.rmtree(staging, ignore_errors=True)
        if not (target / COMPLETE_MARKER).is_file():
            raise
    return target


def compare(pin_texts: tuple[str, ...], imported: dict[str, str]) -> list[str]:
    """Problems where the child's recorded versions differ from the pins (a pin shadowed or not applied)."""
    seen = {canonical_name(k): v for k, v in imported.items()}
    problems = []
    for pin in parse_pins(pin_texts):
        got = seen.get(pin.name)
        if got is not None and got != pin.version:
            problems.append(f"pinned {pin} but the program ran {pin.name} {got}")
    return problems

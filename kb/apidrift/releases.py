"""Which releases the history covers, and fetching their wheels (pip download, never install).

The history covers, for each library, the latest patch of every minor release from the first minor
released in or after May 2024 (FIRST_MINOR, data below). Versions are listed with
`python -m pip index versions`, wheels fetched with `pip download --no-deps --only-binary=:all:` into
a cache outside the repository.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from kb.knowledge.tables import history_since, libraries

# The libraries the history reads (tables/libraries.toml, role ``api_history``), and for each the first minor
# released on or after 2024-05-01 (its ``history_since``; PyPI upload dates: transformers 4.41.0 2024-05-17,
# peft 0.11.0 2024-05-16, trl 0.9.2 2024-06-05, accelerate 0.30.0 2024-05-03, bitsandbytes 0.43 (its last
# patch 0.43.3 2024-08), datasets 2.19 (2.19.1 2024-05-06)).
LIBRARIES = tuple(sorted(libraries("api_history")))
FIRST_MINOR = history_since()

CACHE = Path(os.environ.get("KB_APIDRIFT_CACHE", Path.home() / ".cache" / "kb" / "apidrift"))
_RELEASE = re.compile(r"^(\d+)\.(\d+)\.(\d+)(\.post\d+)?$")


def version_key(version: str) -> tuple[int, ...]:
    """Sort key for plain release versions (4.41.2, 0.41.3.post2)."""
    parts = re.findall(r"\d+", version)
    return tuple(int(p) for p in parts)


def available_versions(lib: str) -> list[str]:
    """All released versions of `lib`, as `pip index versions` lists them."""
    out = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", lib],
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout
    for line in out.splitlines():
        if line.startswith("Available versions:"):
            return [v.strip() for v in line.split(":", 1)[1].split(",") if v.strip()]
    raise RuntimeError(f"pip index versions {lib}: no version list")


def latest_patches(lib: str, versions: list[str]) -> list[str]:
    """The latest final patch of each minor from FIRST_MINOR[lib] on, ascending."""
    best: dict[tuple[int, int], str] = {}
    for v in versions:
        m = _RELEASE.match(v)
        if not m:
            continue  # pre-releases, rc, dev
        minor = (int(m.group(1)), int(m.group(2)))
        if minor < FIRST_MINOR[lib]:
            continue
        if minor not in best or version_key(v) > version_key(best[minor]):
            best[minor] = v
    return [best[k] for k in sorted(best)]


def find_wheel(lib: str, version: str, wheels: Path) -> Path | None:
    """A wheel of lib==version already in `wheels`, if any."""
    stem = lib.replace("-", "_")
    for path in sorted(wheels.glob(f"{stem}-{version}-*.whl")):
        return path
    return None


def fetch_wheel(lib: str, version: str, wheels: Path) -> Path:
    """The wheel of lib==version, downloaded into `wheels` unless already there."""
    found = find_wheel(lib, version, wheels)
    if found:
        return found
    wheels.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--dest", str(wheels), "--quiet", f"{lib}=={version}"]
    if lib == "bitsandbytes":
        # Only the Python sources matter; the Linux wheel also holds ~100 MB of CUDA kernels.
        # Any platform's wheel has the same .py files; try the small ones first.
        for platform in ("macosx_14_0_arm64", "win_amd64", None):
            extra = ["--platform", platform, "--python-version", "3.11"] if platform else []
            if subprocess.run(cmd + extra, capture_output=True, timeout=1800).returncode == 0:
                break
    else:
        subprocess.run(cmd, capture_output=True, timeout=1800, check=True)
    found = find_wheel(lib, version, wheels)
    if not found:
        raise RuntimeError(f"pip download {lib}=={version}: no wheel")
    return found

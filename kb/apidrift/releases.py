"""Which releases the history covers, and fetching their wheels (pip download, never install).

The history covers, for each library of tables/libraries.toml with the ``api_history`` role, every final
release from its ``history_since`` minor on (the first minor released in or after January 2020, torch from
1.0; the first on PyPI where that is later). The latest patch of each minor is read in full
(kb/apidrift/extract.py); the other patches of a minor are probed only for the facts that changed
between the previous minor's last patch and this one's (kb/apidrift/bisect.py), so that a change is
attributed to the release that made it, not to the latest patch of its minor.

Yanked releases are covered too, and listed by ``yanked_versions``: a user may have installed one before it
was yanked, and a change first shipped in one (transformers 4.46.0 removed ``transformers.deepspeed``; 4.46.0
was yanked, 4.46.1 is the first regular release without it) is dated to it, the answer naming both.

Versions and files are listed from PyPI's simple index (JSON form, the endpoint pip reads); the file
read per release is the smallest one that holds the package's .py files: the pure wheel, the smallest
platform wheel for torch and bitsandbytes (torch's macOS arm64 wheel, ~45-90 MB, against ~800 MB for
Linux; for torch 1.0-1.10 a cp35-cp39 wheel, fetched for its own Python and platform), the sdist for
deepspeed (no wheels). Wheels are fetched with `pip download --no-deps`, an sdist from the index's URL
(sha256 checked; pip would run its setup.py), into a cache outside the repository
(``$KB_APIDRIFT_CACHE``, default ~/.cache/kb/apidrift).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from kb.knowledge.tables import history_since, libraries

LIBRARIES = tuple(sorted(libraries("api_history")))
FIRST_MINOR = history_since()

CACHE = Path(os.environ.get("KB_APIDRIFT_CACHE", Path.home() / ".cache" / "kb" / "apidrift"))
INDEX = "https://pypi.org/simple/{name}/"
_RELEASE = re.compile(r"^(\d+)\.(\d+)\.(\d+)(\.post\d+)?$")
_WHEEL = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)(?:-\d[^-]*)?-(?P<py>[^-]+)-(?P<abi>[^-]+)-(?P<plat>[^-]+)\.whl$")


# a macOS 11+ tag with a minor (torch 1.8.0's cp38-none-macosx_11_1_arm64): pip's --platform expands a macOS
# 11+ platform only to X_0 tags, so it never fetches such a file; the next smallest one is taken instead
_PIP_UNMATCHED = re.compile(r"-macosx_(?:1[1-9]|[2-9]\d)_(?:[1-9]\d*)_[a-z0-9_]+\.whl$")


def version_key(version: str) -> tuple[int, ...]:
    """Sort key for plain release versions (4.41.2, 0.41.3.post2)."""
    parts = re.findall(r"\d+", version)
    return tuple(int(p) for p in parts)


def minor_of(version: str) -> tuple[int, int]:
    key = version_key(version)
    return key[0], key[1]


def index_files(lib: str, refresh: bool = True) -> dict[str, list[dict]]:
    """{version: [file, ...]} of PyPI's simple index (JSON), yanked files kept (their "yanked" is set); cached per build."""
    path = CACHE / "index" / f"{lib}.json"
    if refresh or not path.exists():
        request = urllib.request.Request(INDEX.format(name=lib), headers={"Accept": "application/vnd.pypi.simple.v1+json"})
        for attempt in range(3):
            try:
                with urllib.request.urlopen(request, timeout=120) as response:
                    data = json.load(response)
                break
            except OSError:
                if attempt == 2:
                    raise
                time.sleep(5)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data))
    data = json.loads(path.read_text())
    out: dict[str, list[dict]] = {}
    stem = lib.replace("-", "_").lower()
    for f in data["files"]:
        name = f["filename"]
        m = _WHEEL.match(name)
        if m:
            version = m.group("version")
        elif name.lower().startswith((stem + "-", lib.lower() + "-")) and name.endswith(".tar.gz"):
            version = name[len(stem) + 1: -len(".tar.gz")]
        else:
            continue
        out.setdefault(version, []).append(f)
    return out


def available_versions(lib: str, refresh: bool = True) -> list[str]:
    """Final releases of `lib` from FIRST_MINOR on that have a readable file, ascending."""
    files = index_files(lib, refresh)
    found = [v for v in files if _RELEASE.match(v) and minor_of(v) >= FIRST_MINOR[lib] and choose_file(lib, files[v])]
    return sorted(found, key=version_key)


def yanked_versions(lib: str, refresh: bool = False) -> list[str]:
    """Final releases of `lib` covered by the history whose every file is yanked on PyPI, ascending."""
    files = index_files(lib, refresh)
    return [v for v in available_versions(lib, refresh=False) if files.get(v) and all(f.get("yanked") for f in files[v])]


def latest_patches(lib: str, versions: list[str]) -> list[str]:
    """The latest final patch of each minor from FIRST_MINOR[lib] on, ascending."""
    best: dict[tuple[int, int], str] = {}
    for v in versions:
        if not _RELEASE.match(v) or minor_of(v) < FIRST_MINOR[lib]:
            continue  # pre-releases, rc, dev
        minor = minor_of(v)
        if minor not in best or version_key(v) > version_key(best[minor]):
            best[minor] = v
    return [best[k] for k in sorted(best)]


def patches_by_minor(lib: str, versions: list[str]) -> dict[str, list[str]]:
    """{latest patch of a minor: the other final patches of that minor, ascending}."""
    latest = latest_patches(lib, versions)
    out: dict[str, list[str]] = {v: [] for v in latest}
    by_minor = {minor_of(v): v for v in latest}
    for v in sorted(versions, key=version_key):
        last = by_minor.get(minor_of(v))
        if last is not None and v != last and _RELEASE.match(v):
            out[last].append(v)
    return out


def choose_file(lib: str, files: list[dict]) -> dict | None:
    """The smallest file of a release that holds the .py sources: a wheel, else (deepspeed) the sdist; a file
    not yanked when the release has one (a yanked release's own files otherwise: pip fetches them when pinned)."""
    files = [f for f in files if not f.get("yanked")] or files
    wheels = [f for f in files if f["filename"].endswith(".whl") and not _PIP_UNMATCHED.search(f["filename"])]
    if wheels:
        return min(wheels, key=lambda f: (f.get("size") or 1 << 40, f["filename"]))
    sdists = [f for f in files if f["filename"].endswith(".tar.gz")]
    return min(sdists, key=lambda f: f.get("size") or 1 << 40) if sdists else None


def find_wheel(lib: str, version: str, wheels: Path) -> Path | None:
    """A wheel (or sdist) of lib==version already in `wheels`, if any."""
    stem = lib.replace("-", "_")
    for pattern in (f"{stem}-{version}-*.whl", f"{stem}-{version}.tar.gz", f"{lib}-{version}.tar.gz"):
        for path in sorted(wheels.glob(pattern)):
            return path
    return None


def fetch_wheel(lib: str, version: str, wheels: Path) -> Path:
    """The file of lib==version that choose_file picks, downloaded with pip into `wheels` unless already there."""
    found = find_wheel(lib, version, wheels)
    if found:
        return found
    wheels.mkdir(parents=True, exist_ok=True)
    chosen = choose_file(lib, index_files(lib, refresh=False).get(version, []))
    if chosen is None:
        raise RuntimeError(f"{lib}=={version}: no wheel or sdist on the index")
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--dest", str(wheels), "--quiet", f"{lib}=={version}"]
    m = _WHEEL.match(chosen["filename"])
    if m is None:
        cmd += ["--no-binary=:all:", "--no-build-isolation"]
        try:
            return _fetch_sdist(chosen, wheels)
        except (OSError, ValueError) as error:  # then let pip try, and say why both failed
            print(f"{lib}=={version}: {error}", file=sys.stderr)
    else:
        # an old release's smallest wheel may be for a Python older than this one (torch 1.6: cp36); its
        # Requires-Python (">=3.6.1") is about running it, not about reading its source
        cmd += ["--only-binary=:all:", "--ignore-requires-python"]
        py, plat = m.group("py").split(".")[0], m.group("plat").split(".")[0]
        if plat != "any":
            digits = py[2:] if py.startswith("cp") else "311"
            cmd += ["--platform", plat, "--python-version", f"{digits[0]}.{digits[1:]}"]
    # a machine-wide cap on torch must not hide old/new releases: an empty PIP_CONSTRAINT leaves the config
    # file's constraint in force (torch 2.15.0 was missed so), an empty constraints file replaces it
    env = {**os.environ, "PIP_CONSTRAINT": os.devnull}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=env)
    found = find_wheel(lib, version, wheels)
    if not found:
        raise RuntimeError(f"pip download {lib}=={version}: {done.stderr.strip()[-300:]}")
    return found


def _fetch_sdist(chosen: dict, wheels: Path) -> Path:
    """The sdist `chosen` (an entry of the simple index) saved into `wheels`, its sha256 checked. pip download
    cannot fetch an sdist without running its setup.py to read its metadata, which fails for old releases
    (deepspeed 0.3.1's setup.py needs a git checkout and a CUDA torch) and would run their code; the file is
    the one pip would fetch, from the URL the index gives, and nothing in it is run."""
    import hashlib

    url, expected = chosen["url"], chosen.get("hashes", {}).get("sha256")
    target = wheels / chosen["filename"]
    partial = target.with_name(target.name + ".part")
    digest = hashlib.sha256()
    with urllib.request.urlopen(url, timeout=300) as response, partial.open("wb") as out:
        while block := response.read(1 << 20):
            digest.update(block)
            out.write(block)
    if expected and digest.hexdigest() != expected:
        partial.unlink()
        raise ValueError(f"{chosen['filename']}: sha256 {digest.hexdigest()} is not the index's {expected}")
    partial.replace(target)
    return target

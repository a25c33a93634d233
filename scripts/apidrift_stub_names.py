"""Apply the stub rule of kb/apidrift/exports.py (turn 50) to the shipped history's torch exports without a rebuild.

A compiled module's .pyi stub declares two kinds of names the compiled module does not bind: assignments only a type
checker sees (`T = TypeVar("T")`, `Stack: TypeAlias = ...`) and a package stub's repeats of a submodule stub's section
(torch 2.12's `torch._C.Def`, bound on torch._C._jit_tree_views). exports.py leaves both out of a stub's exports and of
what star-imports it; a full rebuild of torch would need every torch wheel (45-900 MB each). This script reads only what
the rule needs from each covered torch release's wheel on PyPI - torch/_C/*.pyi and torch/__init__.py, fetched with
HTTP range requests (a zip's central directory, then the few members) - runs the same ModuleIndex on them, and removes
the names the rule hides from the shipped exports of `torch._C` and `torch` at that release.

    python scripts/apidrift_stub_names.py                 # print what would change per release
    python scripts/apidrift_stub_names.py --apply         # rewrite tables/api-history.json.gz
"""

from __future__ import annotations

import argparse
import base64
import functools
import gzip
import io
import json
import sys
import tempfile
import urllib.request
import zipfile
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kb.apidrift.exports import ModuleIndex  # noqa: E402
from kb.apidrift.history import _PACKED, _SMALL, targets, unpack  # noqa: E402
from kb.apidrift.merge import _group  # noqa: E402
from kb.apidrift.ranges import decode  # noqa: E402
from kb.apidrift.wheel import Wheel  # noqa: E402

HISTORY = REPO / "tables" / "api-history.json.gz"
MODULES = ("torch._C", "torch")  # the stub, and the top level that star-imports it (torch/__init__.py's `from torch._C import *`)
BLOCK = 1 << 20  # bytes per range request: a central directory and a stub each take one or two


class RemoteFile(io.RawIOBase):
    """A file on an HTTP server read with Range requests, seekable, so that zipfile reads a wheel's members only."""

    def __init__(self, url: str) -> None:
        self.url = url
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=60) as response:
            self.size = int(response.headers["Content-Length"])
        self.position = 0
        self._cache: dict[int, bytes] = {}  # block number -> its bytes
        self.fetched = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        self.position = {io.SEEK_SET: offset, io.SEEK_CUR: self.position + offset, io.SEEK_END: self.size + offset}[whence]
        return self.position

    def _block(self, number: int) -> bytes:
        if number not in self._cache:
            start = number * BLOCK
            end = min(start + BLOCK, self.size) - 1
            request = urllib.request.Request(self.url, headers={"Range": f"bytes={start}-{end}"})
            with urllib.request.urlopen(request, timeout=120) as response:
                self._cache[number] = response.read()
            self.fetched += len(self._cache[number])
        return self._cache[number]

    def read(self, size: int = -1) -> bytes:
        end = self.size if size is None or size < 0 else min(self.size, self.position + size)
        out = bytearray()
        while self.position < end:
            block = self._block(self.position // BLOCK)
            offset = self.position % BLOCK
            piece = block[offset:offset + end - self.position]
            out += piece
            self.position += len(piece)
        return bytes(out)

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


@functools.cache
def _torch_files() -> list[dict]:
    """torch's files on PyPI (the simple index, JSON form)."""
    request = urllib.request.Request("https://pypi.org/simple/torch/",
                                     headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.load(response)["files"]


def wheel_url(version: str) -> str:
    """The URL of one of torch ``version``'s wheels on PyPI (the smallest: the stubs are the same in each)."""
    files = [f for f in _torch_files() if f["filename"].startswith(f"torch-{version}-") and f["filename"].endswith(".whl")]
    return min(files, key=lambda f: f["size"])["url"]


def stub_members(version: str) -> tuple[dict[str, bytes], int]:
    """torch/_C/*.pyi and torch/__init__.py of the release's wheel, and the bytes fetched to read them."""
    remote = RemoteFile(wheel_url(version))
    with zipfile.ZipFile(remote) as archive:
        names = [n for n in archive.namelist()
                 if n == "torch/__init__.py" or (n.startswith("torch/_C/") and n.endswith(".pyi") and n.count("/") == 2)]
        members = {n: archive.read(n) for n in names}
    return members, remote.fetched


def hidden_names(members: dict[str, bytes]) -> dict[str, set[str]]:
    """Per module of MODULES, the public names the stub rule hides: those the rule-free reading exports, less those the
    rule's reading exports (the rule is exports.py's: only stubs are touched)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "torch-0-py3-none-any.whl"
        with zipfile.ZipFile(path, "w") as z:
            for name, data in members.items():
                z.writestr(name, data)
        index = ModuleIndex.for_spec(Wheel(path, "torch"), targets()["torch"])
        ruled = {m: index.exports(m) for m in MODULES}
        declared = {m: _declared(index, m) for m in MODULES}
    # what the stub rule hides: declared by the stub (a class, def or assignment), not exported under the rule; for the
    # top level only those the rule hides in the stub (torch 1.x's `del ByteStorageBase` hides others already)
    stub = declared["torch._C"] - ruled["torch._C"]
    return {"torch._C": stub, "torch": (declared["torch"] - ruled["torch"]) & stub}


def _declared(index: ModuleIndex, module: str) -> set[str]:
    """Public names the stub torch/_C/__init__.pyi binds with a class, def or assignment, as seen from ``module`` (the
    stub itself, or the top level through its star import when the top level does not bind the name itself)."""
    stub = index.bindings("torch._C")
    names = {n for n, b in stub.items() if b[0] in ("def", "value") and b[1] == "torch._C" and not n.startswith("_")}
    if module == "torch._C":
        return names
    own = {n for n, b in index.bindings("torch").items() if not (b[0] in ("def", "value") and b[1] == "torch._C")}
    return names - own


def rewrite(data: dict, drops: dict[str, dict[str, set[str]]]) -> dict[str, int]:
    """Remove each release's hidden names from the shipped torch exports (``data``: the loaded file); the count per module."""
    table = unpack(data["libraries"]["torch"])
    index = {v: i for i, v in enumerate(data["index"]["torch"])}
    removed = {m: 0 for m in MODULES}
    for module in MODULES:
        presence: dict[str, set[int]] = {}
        for r, names in table["exports"].get(module, {}).items():
            for name in names.split():
                presence.setdefault(name, set()).update(decode(r))
        for version, per_module in drops.items():
            i = index[version]
            for name in per_module.get(module, ()):
                if i in presence.get(name, ()):
                    presence[name].discard(i)
                    removed[module] += 1
        table["exports"][module] = _group({n: s for n, s in presence.items() if s})
    text = json.dumps(table["exports"], separators=(",", ":"), sort_keys=True)
    packed = _PACKED + base64.b64encode(zlib.compress(text.encode(), 9)).decode() if len(text) >= _SMALL else table["exports"]
    data["libraries"]["torch"]["exports"] = packed
    return removed


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apply", action="store_true", help="rewrite tables/api-history.json.gz")
    parser.add_argument("--versions", nargs="*", help="only these torch releases (default: every covered one)")
    args = parser.parse_args(argv)
    with gzip.open(HISTORY, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    versions = args.versions or data["index"]["torch"]
    drops: dict[str, dict[str, set[str]]] = {}
    total = 0
    for version in versions:
        members, fetched = stub_members(version)
        total += fetched
        drops[version] = hidden_names(members)
        shown = {m: sorted(n) for m, n in drops[version].items()}
        print(f"torch {version}: {len(members)} members read ({fetched / 2**20:.1f} MB fetched); hidden {json.dumps(shown)}",
              flush=True)
    print(f"{len(versions)} releases, {total / 2**20:.0f} MB fetched", flush=True)
    if args.apply:
        removed = rewrite(data, drops)
        text = json.dumps(data, separators=(",", ":"), sort_keys=True)
        with HISTORY.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as f:
            f.write(text.encode("utf-8"))
        print(f"removed (release, name) pairs: {removed}; wrote {HISTORY}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Host-memory limits for one run: a memory cgroup that the program and all its children join.

A profile with ``host_memory_cap_gib`` (say ``cpu-ram1g``) stands in for a container's RAM limit.
The runner creates a child cgroup under its own memory cgroup, sets the limit (swap included, so
nothing is paged out instead), starts the program inside it, and afterwards reads how many
processes the kernel's OOM killer ended there. When the limit is exceeded the kernel, not the
program, picks the largest process in the cgroup and sends it SIGKILL: the real mechanism behind
``DataLoader worker (pid N) is killed by signal: Killed`` in a memory-limited container.

cgroup v1 (``/sys/fs/cgroup/memory``) and v2 (unified) are supported; both need write access
(root, or a delegated subtree). Where neither works, :func:`unavailable` says why and the case
skips rather than running without the limit.
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

GIB = 1024**3
V1_ROOT = Path("/sys/fs/cgroup/memory")
V2_ROOTS = (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified"))
_counter = itertools.count()
# The measures a limited run records (the runner judges them like printed ones; cases name them).
LIMIT_MEASURE = "host_memory_limit_mib"
PEAK_MEASURE = "host_memory_peak_mib"
OOM_KILLS_MEASURE = "host_oom_kills"


class CgroupError(OSError):
    pass


@dataclass(frozen=True)
class MemoryCgroup:
    path: Path
    version: int  # 1 or 2
    limit_bytes: int

    def join(self) -> None:
        """Move the calling process into the cgroup (called in the child before exec)."""
        (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def oom_kills(self) -> int | None:
        """Processes the kernel's OOM killer ended in this cgroup (None where the kernel does not say)."""
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        try:
            for line in (self.path / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except OSError:
            pass
        return None

    def peak_bytes(self) -> int | None:
        name = "memory.max_usage_in_bytes" if self.version == 1 else "memory.peak"
        try:
            return int((self.path / name).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def measures(self) -> dict[str, float]:
        """What the runner records for the run: the limit, the peak usage, the OOM kills."""
        out = {LIMIT_MEASURE: self.limit_bytes / 2**20}
        peak, kills = self.peak_bytes(), self.oom_kills()
        if peak is not None:
            out[PEAK_MEASURE] = round(peak / 2**20, 1)
        if kills is not None:
            out[OOM_KILLS_MEASURE] = float(kills)
        return out

    def remove(self) -> None:
        """Remove the cgroup: end what the run left in it (its own processes, by pid), then rmdir."""
        try:
            leftover = [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            leftover = []
        for pid in leftover:  # e.g. DataLoader workers orphaned by a killed main process
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.1)


def _own_cgroup(controller_line: str) -> str | None:
    """This process's cgroup path from /proc/self/cgroup for a v1 controller ('memory') or v2 ('')."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller_line == "" and controllers == "" or controller_line in controllers.split(","):
            return path
    return None


def _v2_root() -> Path | None:
    for root in V2_ROOTS:
        if (root / "cgroup.controllers").is_file():
            return root
    return None


def create(limit_gib: float) -> MemoryCgroup:
    """Create a memory cgroup limited to ``limit_gib`` GiB (swap included); raises CgroupError."""
    limit = int(limit_gib * GIB)
    name = f"kb-run-{os.getpid()}-{next(_counter)}"
    errors = []
    own_v1 = _own_cgroup("memory") if V1_ROOT.is_dir() else None
    if own_v1 is not None:
        path = V1_ROOT / own_v1.lstrip("/") / name
        try:
            path.mkdir()
            (path / "memory.limit_in_bytes").write_text(str(limit))
            if (path / "memory.memsw.limit_in_bytes").exists():
                (path / "memory.memsw.limit_in_bytes").write_text(str(limit))
            return MemoryCgroup(path, 1, limit)
        except OSError as exc:
            errors.append(f"cgroup v1 {path}: {exc.strerror or exc}")
            _rmdir_quietly(path)
    root, own_v2 = _v2_root(), _own_cgroup("")
    if root is not None and own_v2 is not None:
        parent = root / own_v2.lstrip("/")
        path = parent / name
        try:
            if "memory" not in (parent / "cgroup.subtree_control").read_text().split():
                (parent / "cgroup.subtree_control").write_text("+memory")
            path.mkdir()
            (path / "memory.max").write_text(str(limit))
            if (path / "memory.swap.max").exists():
                (path / "memory.swap.max").write_text("0")
            return MemoryCgroup(path, 2, limit)
        except OSError as exc:
            errors.append(f"cgroup v2 {path}: {exc.strerror or exc}")
            _rmdir_quietly(path)
    raise CgroupError("; ".join(errors) or "no memory cgroup hierarchy found under /sys/fs/cgroup")


def _rmdir_quietly(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass


@lru_cache(maxsize=1)
def unavailable() -> str | None:
    """Why this machine cannot limit a run's host memory, or None when it can (tries it once)."""
    try:
        create(0.25).remove()
        return None
    except (CgroupError, OSError) as exc:
        return f"needs a writable memory cgroup to limit host RAM ({exc})"

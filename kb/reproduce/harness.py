"""Runs one case program inside the child process and writes what happened as JSON.

Invoked by the runner as ``python -m kb.reproduce.harness --profile P --result-dir D script.py``
(or under torchrun, once per rank). It applies the hardware profile's memory cap,
runs the script as ``__main__``, and on an exception prints the real traceback
(minus the harness's own frames) and records type, message and frames. It never
changes what the library raises.

Before the program starts, the rank's result file says ``"status": "running"`` with the process id;
when it ends, the file is replaced (atomically) by what happened. A file still saying "running" is a
process that died before it could report (killed by a signal, or an exit that skipped the harness);
no file at all, a harness that never started the program. The runner tells the two apart from a
program that ran and failed (kb/reproduce/runner.py). A failure of the harness itself while it
reports is recorded as ``harness_error``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import runpy
import sys
import traceback
from pathlib import Path
from types import TracebackType
from typing import Any

from kb.reproduce.result import RUNNING


def recorded_libraries() -> tuple[str, ...]:
    """The libraries whose imported version a run records (tables/libraries.toml, role ``recorded``)."""
    from kb.knowledge.tables import libraries

    return libraries("recorded")


GIB = 1024**3


def apply_memory_cap(cap_gib: float) -> list[dict[str, Any]]:
    """Cap every visible CUDA device at ``cap_gib`` (the emulated card's usable memory)."""
    import torch

    applied = []
    for index in range(torch.cuda.device_count()):
        total = torch.cuda.get_device_properties(index).total_memory
        fraction = min(1.0, cap_gib * GIB / total)
        torch.cuda.set_per_process_memory_fraction(fraction, index)
        applied.append({"device": index, "total_gib": round(total / GIB, 2), "fraction": fraction})
    return applied


def pinned_names() -> list[str]:
    """Distribution names the runner pinned for this run (``KB_PINS``, set by kb.reproduce.runner)."""
    return [p.split("==", 1)[0].strip().lower() for p in os.environ.get("KB_PINS", "").split() if "==" in p]


def pinned_sources() -> dict[str, str]:
    """Where each pinned package was imported from: proves the pinned copy, not the machine's, ran."""
    sources = {}
    for pin in pinned_names():
        module = sys.modules.get(pin.replace("-", "_"))
        if module is not None and getattr(module, "__file__", None):
            sources[pin] = str(Path(module.__file__).parent)
    return sources


def installed_version(name: str) -> str | None:
    """The imported module's ``__version__`` if it was imported, else the distribution's metadata."""
    module = sys.modules.get(name.replace("-", "_"))
    version = getattr(module, "__version__", None) if module else None
    if version is None:
        try:
            version = importlib.metadata.version(name)
        except (importlib.metadata.PackageNotFoundError, OSError, ValueError):  # not installed, METADATA not UTF-8
            return None
    return str(version)


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    # the tracked packages, then every pinned distribution of a pinned reproduction
    for name in (*recorded_libraries(), *pinned_names()):
        if name not in versions and (version := installed_version(name)) is not None:
            versions[name] = version
    torch = sys.modules.get("torch")
    if torch is not None:
        cuda = getattr(getattr(torch, "version", None), "cuda", None)
        if cuda:
            versions["cuda"] = str(cuda)
    return versions


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpu_info() -> list[dict[str, Any]]:
    torch = sys.modules.get("torch")
    if torch is None:
        return []
    try:
        if not torch.cuda.is_available():
            return []
        gpus = []
        for i in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(i)
            gpus.append(
                {
                    "index": i,
                    "name": props.name,
                    "total_gib": round(props.total_memory / GIB, 2),
                    "capability": f"{props.major}.{props.minor}",
                    "peak_allocated_gib": round(torch.cuda.max_memory_allocated(i) / GIB, 3),
                }
            )
        return gpus
    except Exception as exc:  # a broken CUDA state after a device-side assert, say
        return [{"error": f"{type(exc).__name__}: {exc}"}]


def _qualified_type(exc: BaseException) -> str:
    cls = type(exc)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def _frames(tb: TracebackType | None) -> list[dict[str, Any]]:
    return [
        {"file": f.filename, "line": f.lineno, "function": f.name, "code": f.line or ""}
        for f in traceback.extract_tb(tb)
    ]


def describe_exception(exc: BaseException) -> dict[str, Any]:
    chain = []
    cause = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    while cause is not None and len(chain) < 8:
        chain.append({"type": _qualified_type(cause), "message": str(cause), "frames": _frames(cause.__traceback__)})
        cause = cause.__cause__ or (None if cause.__suppress_context__ else cause.__context__)
    return {
        "type": _qualified_type(exc),
        "message": str(exc),
        "frames": _frames(exc.__traceback__),
        "causes": chain,
    }


def _strip_harness_frames(tb: TracebackType | None, script: Path) -> TracebackType | None:
    """Drop the runpy/harness frames above the script's own first frame."""
    cursor = tb
    while cursor is not None:
        if Path(cursor.tb_frame.f_code.co_filename).resolve() == script:
            return cursor
        cursor = cursor.tb_next
    return tb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kb.reproduce.harness")
    parser.add_argument("--memory-cap-gib", type=float, default=None)
    parser.add_argument("--result-dir", type=Path, required=True)
    parser.add_argument("script", type=Path)
    parser.add_argument("args", nargs=argparse.REMAINDER)
    ns = parser.parse_args(argv)

    script = ns.script.resolve()
    rank = os.environ.get("RANK", "0")
    result: dict[str, Any] = {"rank": int(rank), "script": script.name}
    if ns.memory_cap_gib:
        result["memory_cap"] = {"gib": ns.memory_cap_gib, "devices": apply_memory_cap(ns.memory_cap_gib)}
    path = ns.result_dir / f"result-rank{rank}.json"
    ns.result_dir.mkdir(parents=True, exist_ok=True)
    started = {**result, "status": RUNNING, "pid": os.getpid()}
    if "TORCHELASTIC_RUN_ID" in os.environ:  # the runner sees torchrun's exit status, not this process's
        started["launcher"] = "torchrun"
    write_result(path, started)

    sys.argv = [str(script), *ns.args]
    sys.path.insert(0, str(script.parent))
    exit_code = 0
    try:
        runpy.run_path(str(script), run_name="__main__")
        result["status"] = "ok"
    except SystemExit as exc:
        code = exc.code
        exit_code = code if isinstance(code, int) else (0 if code is None else 1)
        result["status"] = "ok" if exit_code == 0 else "exit"
    except BaseException as exc:  # noqa: BLE001 - we record whatever the program raised
        exc.__traceback__ = _strip_harness_frames(exc.__traceback__, script)
        sys.stdout.flush()
        traceback.print_exception(exc)
        sys.stderr.flush()
        result["status"] = "exception"
        result["exception"] = describe_exception(exc)
        exit_code = 1
    result["exit_code"] = exit_code
    try:
        result["environment"] = environment()
    except Exception as exc:  # noqa: BLE001 - the harness's own failure: recorded, not mistaken for a dead program
        result["harness_error"] = f"recording the environment: {type(exc).__name__}: {exc}"
    write_result(path, result)
    return exit_code


def environment() -> dict[str, Any]:
    """Versions, devices and machine of the run (after the program, so its imports are what ran)."""
    env: dict[str, Any] = {
        "versions": package_versions(),
        "gpus": gpu_info(),
        "cpu": cpu_name(),
        "platform": platform.platform(),
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
    }
    if os.environ.get("KB_PINS"):
        env["pins"] = os.environ["KB_PINS"].split()
        env["pinned_imported_from"] = pinned_sources()
    return env


def write_result(path: Path, result: dict[str, Any]) -> None:
    """Write ``result`` whole or not at all: a process killed mid-write leaves the previous file."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(result, indent=2))
    os.replace(partial, path)


if __name__ == "__main__":
    raise SystemExit(main())

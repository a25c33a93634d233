"""`kb env`: what this machine and this launch look like to a fine-tuning run.

Everything here is read without importing torch or any other heavy library:
package versions from installed metadata (torch's CUDA from ``torch/version.py``
read as text), GPUs through NVML (the ``pynvml`` module of ``nvidia-ml-py``), the
launch from environment variables. Whatever cannot be read is said in
``unreadable``; it never stops the report.

NVML does not apply ``CUDA_VISIBLE_DEVICES``: it always lists every GPU. This
module applies it the way the CUDA runtime does (see :func:`resolve_visible`) to
say which GPUs a process started here would see.

The report is a plain dict (JSON schema ``kb-env/1``, documented in docs/env.md);
kb/env/risks.py turns it into risks that point at cases.
"""

from __future__ import annotations

import ast
import os
import platform
import re
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Mapping

from kb.env.config import read_config
from kb.env.facts import dist_version as _dist_version
from kb.diagnose.redact import redact, redact_tree
from kb.knowledge.tables import libraries

SCHEMA = "kb-env/1"
MIB = 1024 * 1024

# Reported by name (tables/libraries.toml, role ``env_report``); "nccl" is looked up from the nvidia-nccl-cu* wheels.
PACKAGES = libraries("env_report")

# Variables that torchrun, accelerate launch, deepspeed and MPI set in each worker.
DISTRIBUTED_VARS = (
    "RANK",
    "WORLD_SIZE",
    "LOCAL_RANK",
    "LOCAL_WORLD_SIZE",
    "GROUP_RANK",
    "MASTER_ADDR",
    "MASTER_PORT",
    "TORCHELASTIC_RUN_ID",
    "OMPI_COMM_WORLD_SIZE",
    "OMPI_COMM_WORLD_LOCAL_SIZE",
)
# Values not worth sharing (a host name or address); the report only says they are set.
_HIDDEN_VALUES = {"MASTER_ADDR"}
_SECRET_NAME = re.compile(r"(?i)TOKEN|SECRET|PASSW|API_?KEY|AUTH|CREDENTIAL")



# --------------------------------------------------------------------------- versions


def _cuda_from_tag(version: str) -> str | None:
    """``2.5.1+cu121`` -> ``12.1`` (the wheel's local version tag)."""
    m = re.search(r"\+cu(\d+)(\d)$", version)
    return f"{int(m.group(1))}.{m.group(2)}" if m else None


def torch_cuda_version(torch_version: str | None) -> tuple[str | None, str]:
    """(CUDA version torch was built with, where that was read), without importing torch.

    ``torch/version.py`` is parsed as text; the wheel's ``+cuXYZ`` tag is the fallback.
    """
    if torch_version is None:
        return None, "torch is not installed"
    try:
        path = Path(str(metadata.distribution("torch").locate_file("torch/version.py")))
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, metadata.PackageNotFoundError):
        tree = None
    if tree is not None:
        for node in ast.walk(tree):
            target: ast.expr | None = None
            assigned: ast.expr | None = None
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, assigned = node.targets[0], node.value
            elif isinstance(node, ast.AnnAssign):  # cuda: Optional[str] = '12.8'
                target, assigned = node.target, node.value
            if isinstance(target, ast.Name) and target.id == "cuda" and isinstance(assigned, ast.Constant):
                value = assigned.value
                if value is None:
                    return None, "torch/version.py: cuda = None, a build without CUDA"
                return str(value), "torch/version.py"
    tagged = _cuda_from_tag(torch_version)
    if tagged:
        return tagged, "the wheel's version tag"
    return None, "unknown (torch/version.py unreadable, no +cu tag)"


def nccl_version() -> tuple[str | None, str | None]:
    """(version, distribution) of the NCCL wheel (``nvidia-nccl-cu12`` and kin), if any."""
    found = []
    for dist in metadata.distributions():
        name = (dist.metadata["Name"] or "").lower().replace("_", "-")
        if name.startswith("nvidia-nccl"):
            found.append((name, dist.version))
    if not found:
        return None, None
    name, version = sorted(found)[-1]
    return version, name


def read_versions() -> tuple[dict[str, str | None], dict[str, str]]:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    sources: dict[str, str] = {"python": "platform"}
    for name in PACKAGES:
        versions[name] = _dist_version(name)
        sources[name] = "package metadata"
    cuda, source = torch_cuda_version(versions["torch"])
    versions["torch_cuda"] = cuda
    sources["torch_cuda"] = source
    nccl, dist = nccl_version()
    versions["nccl"] = nccl
    sources["nccl"] = f"{dist} package metadata" if dist else "no nvidia-nccl-* package installed"
    return versions, sources


# --------------------------------------------------------------------------- GPUs


def _import_pynvml() -> ModuleType:
    import pynvml  # nvidia-ml-py; tests replace this function to simulate machines

    return pynvml


MAX_GPUS = 1024  # a GPU count past this is not a reading


def _why(exc: BaseException) -> str:
    """An exception in one short line: its type and the start of its message."""
    text = str(exc).replace("\n", " ")
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


@dataclass
class NvmlReading:
    available: bool
    error: str | None = None
    driver_version: str | None = None
    cuda_driver_version: str | None = None
    gpus: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def read_nvml() -> NvmlReading:
    """Every GPU NVML lists (it ignores CUDA_VISIBLE_DEVICES), or why none could be read."""
    # Any exception from NVML or its binding is a "could not read" line, never a traceback: a driver's
    # name that is not UTF-8 raises UnicodeDecodeError in nvmlDeviceGetName, an old binding TypeError.
    try:
        nvml = _import_pynvml()
    except ImportError:
        return NvmlReading(False, "nvidia-ml-py is not installed (pip install nvidia-ml-py)")
    except Exception as exc:  # noqa: BLE001 - a broken binding: say so, report the rest
        return NvmlReading(False, f"nvidia-ml-py could not be imported: {_why(exc)}")
    try:
        nvml.nvmlInit()
    except Exception as exc:  # noqa: BLE001 - NVMLError, OSError (no libnvidia-ml), anything else
        return NvmlReading(False, f"NVML could not start: {_why(exc)} (no NVIDIA driver on this machine?)")
    reading = NvmlReading(True)
    expected: tuple[type[BaseException], ...] = (getattr(nvml, "NVMLError", OSError), OSError, AttributeError)

    def attempt(what: str, function: str, *args: Any, quiet: bool = False) -> Any:
        """Call ``nvml.<function>``; on failure record why (unless ``quiet``: failures that are
        normal) and return None. By name, so an older pynvml that lacks a function costs one field."""
        try:
            return getattr(nvml, function)(*args)
        except Exception as exc:  # noqa: BLE001 - see above
            if not quiet:  # NVML's own refusals read as they are; anything else says what it was
                said = str(exc)[:200] if isinstance(exc, expected) else f"could not read ({_why(exc)})"
                reading.problems.append(f"{what}: {said}")
            return None

    try:
        driver = attempt("driver version", "nvmlSystemGetDriverVersion")
        reading.driver_version = _text(driver) if driver is not None else None
        cuda = attempt("CUDA driver version", "nvmlSystemGetCudaDriverVersion")
        if isinstance(cuda, int) and cuda > 0:
            reading.cuda_driver_version = f"{cuda // 1000}.{cuda % 1000 // 10}"
        count = attempt("GPU count", "nvmlDeviceGetCount") or 0
        for index in range(count if isinstance(count, int) and 0 < count <= MAX_GPUS else 0):
            handle = attempt(f"GPU {index}", "nvmlDeviceGetHandleByIndex", index)
            if handle is not None:
                try:
                    reading.gpus.append(_read_gpu(nvml, index, handle, attempt))
                except Exception as exc:  # noqa: BLE001 - a value of an unexpected shape (memory.total None, ...)
                    reading.problems.append(f"GPU {index}: could not read ({_why(exc)})")
    finally:
        attempt("NVML shutdown", "nvmlShutdown")
    return reading


def _read_gpu(nvml: ModuleType, index: int, handle: Any, attempt: Callable[..., Any]) -> dict[str, Any]:
    name = attempt(f"GPU {index} name", "nvmlDeviceGetName", handle)
    uuid = attempt(f"GPU {index} UUID", "nvmlDeviceGetUUID", handle)
    memory = attempt(f"GPU {index} memory", "nvmlDeviceGetMemoryInfo", handle)
    cc = attempt(f"GPU {index} compute capability", "nvmlDeviceGetCudaComputeCapability", handle)
    gpu: dict[str, Any] = {
        "index": index,
        "name": _text(name) if name is not None else None,
        "uuid": _text(uuid) if uuid is not None else None,
        "memory_total_mib": memory.total // MIB if memory is not None else None,
        "memory_free_mib": memory.free // MIB if memory is not None else None,
        "memory_used_mib": memory.used // MIB if memory is not None else None,
        "compute_capability": f"{cc[0]}.{cc[1]}" if cc is not None else None,
        "bf16": (tuple(cc) >= (8, 0)) if cc is not None else None,
        "processes": None,
        "mig_devices": [],
        "visible": None,
        "cuda_index": None,
    }
    procs = attempt(f"GPU {index} processes", "nvmlDeviceGetComputeRunningProcesses", handle)
    if procs is not None:
        gpu["processes"] = []
        for p in procs:
            used = getattr(p, "usedGpuMemory", None)
            # quiet: a process of another container has no name here
            pname = attempt(f"process {p.pid} name", "nvmlSystemGetProcessName", p.pid, quiet=True)
            gpu["processes"].append(
                {
                    "pid": int(p.pid),
                    # the executable's name only: a full path can name the user's home
                    "name": redact(Path(_text(pname)).name) if pname else None,
                    "used_memory_mib": int(used) // MIB if isinstance(used, int) else None,
                }
            )
    # quiet: GPUs without MIG (T4, RTX) answer "Not Supported"
    mig = attempt(f"GPU {index} MIG mode", "nvmlDeviceGetMigMode", handle, quiet=True)
    if mig is not None and mig[0] == 1:
        slots = attempt(f"GPU {index} MIG slots", "nvmlDeviceGetMaxMigDeviceCount", handle) or 0
        for slot in range(slots):
            mh = attempt("MIG slot", "nvmlDeviceGetMigDeviceHandleByIndex", handle, slot, quiet=True)
            if mh is None:  # an empty slot
                continue
            muuid = attempt(f"GPU {index} MIG {slot} UUID", "nvmlDeviceGetUUID", mh)
            mmem = attempt(f"GPU {index} MIG {slot} memory", "nvmlDeviceGetMemoryInfo", mh)
            gpu["mig_devices"].append(
                {"uuid": _text(muuid) if muuid else None, "memory_total_mib": mmem.total // MIB if mmem else None}
            )
    return gpu


# --------------------------------------------------------------------------- CUDA_VISIBLE_DEVICES


def _leading_int(text: str) -> int | None:
    """CUDA reads an index like strtoul: ``1gpu`` is 1, ``-1`` and ``x`` are not indices."""
    m = re.match(r"\+?(\d+)", text)
    if m is None:
        return None
    digits = m.group(1).lstrip("0") or "0"
    return int(digits) if len(digits) <= 18 else 2**63  # past any GPU (int() of 5,000 digits raises)


def resolve_visible(value: str | None, gpus: list[dict[str, Any]] | None) -> dict[str, Any]:
    """Apply ``CUDA_VISIBLE_DEVICES`` to NVML's GPU list the way the CUDA runtime does.

    Unset: every GPU. Empty: none. Otherwise a comma list of indices, ``GPU-<uuid>``
    (a unique prefix is enough) or ``MIG-<uuid>`` entries; CUDA stops at the first
    entry it cannot use (``-1``, an index past the last GPU, an unknown UUID, or an
    entry whose form, index or UUID, differs from the first entry's: seen on 2x H200
    with CUDA 13, ``GPU-<uuid1>,0`` and ``0,GPU-<uuid0>`` both leave one GPU) and
    ignores the rest, and a repeated device leaves no GPU visible (as
    ``torch.cuda.device_count()`` reports it). With ``gpus=None`` (NVML unreadable)
    only the syntax is checked and the count stays unknown unless it must be 0.
    """
    out: dict[str, Any] = {"set": value is not None, "value": value, "entries": [], "visible": None, "visible_count": None, "notes": []}
    if value is None:
        if gpus is not None:
            out["visible"] = [g["index"] for g in gpus]
            out["visible_count"] = len(gpus)
        return out
    if not value.strip():
        out["visible"], out["visible_count"] = [], 0
        out["notes"].append("CUDA_VISIBLE_DEVICES is empty: no GPU is visible (a CPU-only run)")
        return out
    visible: list[int | None] = []
    seen: set[Any] = set()
    stopped = False
    repeated = False
    first_form: str | None = None
    for raw in value.split(","):
        entry = raw.strip()
        item: dict[str, Any] = {"entry": entry, "kind": None, "gpu": None, "status": "ignored"}
        out["entries"].append(item)
        if stopped:
            continue
        form = "uuid" if entry.startswith(("GPU-", "MIG-")) else "index"
        first_form = first_form or form
        if form != first_form:
            item["status"] = "mixed-form"
            stopped = True
            out["notes"].append(f"CUDA stops at entry {entry!r} (an {form} after {first_form} entries); it and any later entries are ignored")
            continue
        if entry.startswith("GPU-") or entry.startswith("MIG-"):
            item["kind"] = "uuid" if entry.startswith("GPU-") else "mig"
            status, gpu = _match_uuid(entry, gpus)
        else:
            item["kind"] = "index"
            number = _leading_int(entry)
            if number is None:
                status, gpu = "not-a-device", None
            elif gpus is not None and number >= len(gpus):
                status, gpu = "out-of-range", None
            else:
                status, gpu = "ok", number
        item["status"], item["gpu"] = status, gpu
        if status not in ("ok", "unresolved"):
            stopped = True
            out["notes"].append(f"CUDA stops at entry {entry!r} ({status}); it and any later entries are ignored")
            continue
        # the same physical GPU twice (by index or UUID) counts as a repeat; MIG slices by their UUID
        ident: Any = gpu if item["kind"] in ("index", "uuid") and gpu is not None else entry
        if ident in seen:
            repeated = True
        seen.add(ident)
        visible.append(gpu)
    if repeated:
        out["visible"], out["visible_count"] = [], 0
        out["notes"].append("a GPU is listed twice: CUDA then makes no GPU visible (torch.cuda.device_count() == 0)")
        return out
    if gpus is not None or not visible:
        out["visible_count"] = len(visible)
    if gpus is not None:
        out["visible"] = [g for g in visible if g is not None]
    return out


def _match_uuid(entry: str, gpus: list[dict[str, Any]] | None) -> tuple[str, int | None]:
    if gpus is None:
        return "unresolved", None
    if entry.startswith("MIG-GPU-"):  # old MIG form: MIG-GPU-<gpu uuid>/<gi>/<ci>
        parent = entry[len("MIG-") :].split("/", 1)[0]
        hits = [g["index"] for g in gpus if (g.get("uuid") or "").startswith(parent)]
    elif entry.startswith("MIG-"):
        hits = [g["index"] for g in gpus for m in g.get("mig_devices", []) if (m.get("uuid") or "").startswith(entry)]
    else:
        hits = [g["index"] for g in gpus if (g.get("uuid") or "").startswith(entry)]
    if len(hits) == 1:
        return "ok", hits[0]
    return ("ambiguous" if hits else "unknown-uuid"), None


# --------------------------------------------------------------------------- launch


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _shareable(name: str, value: str) -> str:
    if name in _HIDDEN_VALUES:
        return "(set)"
    if _SECRET_NAME.search(name):
        return "***"
    return redact(value)


def read_distributed(environ: Mapping[str, str]) -> dict[str, Any]:
    """Whether this process was started by a distributed launcher, from its variables.

    transformers' Trainer counts as distributed when LOCAL_RANK/RANK/WORLD_SIZE are
    set (torch.distributed's env:// rendezvous); otherwise it uses every visible GPU
    through DataParallel and multiplies the per-device batch by their number.
    """
    names = [n for n in DISTRIBUTED_VARS if n in environ]
    names += sorted(n for n in environ if n.startswith("ACCELERATE_"))
    variables = {n: _shareable(n, environ[n]) for n in names}
    launched = any(n in environ for n in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"))
    if "TORCHELASTIC_RUN_ID" in environ:
        launcher = "torchrun"
    elif any(n.startswith("ACCELERATE_") for n in environ) and launched:
        launcher = "accelerate"
    elif "OMPI_COMM_WORLD_SIZE" in environ:
        launcher = "mpirun"
    elif launched:
        launcher = "unknown (env:// variables set)"
    else:
        launcher = None
    return {
        "launched": launched,
        "launcher": launcher,
        "rank": _int_or_none(environ.get("RANK")),
        "local_rank": _int_or_none(environ.get("LOCAL_RANK")),
        "world_size": _int_or_none(environ.get("WORLD_SIZE") or environ.get("OMPI_COMM_WORLD_SIZE")),
        "local_world_size": _int_or_none(environ.get("LOCAL_WORLD_SIZE") or environ.get("OMPI_COMM_WORLD_LOCAL_SIZE")),
        "variables": variables,
    }


# --------------------------------------------------------------------------- the report


def collect(
    environ: Mapping[str, str] | None = None,
    config_path: str | None = None,
    nproc: int | None = None,
    cases: Any = None,
) -> dict[str, Any]:
    """The whole report, risks included. Raises :class:`kb.env.config.ConfigError` for a bad --config."""
    from kb.env.risks import run_checks

    environ = os.environ if environ is None else environ
    config = read_config(config_path) if config_path else None
    if config is not None:
        config["path"] = str(config_path)  # kb/env/plan_risk.py reads the whole file for `kb plan`; popped below
    unreadable: list[str] = []
    versions, sources = read_versions()
    for name in ("torch", "transformers"):
        if versions[name] is None:
            unreadable.append(f"{name}: not installed")
    if versions["torch"] is not None and versions["torch_cuda"] is None and "without CUDA" not in sources["torch_cuda"]:
        unreadable.append(f"torch's CUDA version: {sources['torch_cuda']}")
    nvml = read_nvml()
    if not nvml.available:
        unreadable.append(f"GPUs: {nvml.error}")
    unreadable.extend(f"NVML: {p}" for p in nvml.problems)
    gpus = nvml.gpus if nvml.available else None
    cvd = resolve_visible(environ.get("CUDA_VISIBLE_DEVICES"), gpus)
    if gpus is not None:
        order = cvd["visible"] or []
        for gpu in gpus:
            gpu["visible"] = gpu["index"] in order
            gpu["cuda_index"] = order.index(gpu["index"]) if gpu["visible"] else None
        names = {g["name"] for g in gpus}
        if len(names) > 1 and environ.get("CUDA_DEVICE_ORDER") != "PCI_BUS_ID":
            cvd["notes"].append(
                "GPUs of different models: CUDA numbers them fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID, "
                "NVML (and this report) in PCI bus order, so index N here may not be cuda:N"
            )
    report: dict[str, Any] = {
        "schema": SCHEMA,
        "platform": {
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "system": platform.system(),
            "machine": platform.machine(),
        },
        "versions": versions,
        "version_sources": sources,
        "nvml": {
            "available": nvml.available,
            "error": nvml.error,
            "driver_version": nvml.driver_version,
            "cuda_driver_version": nvml.cuda_driver_version,
        },
        "gpus": gpus,
        "cuda_visible_devices": cvd,
        "distributed": read_distributed(environ),
        "intended_processes": nproc,
        "config": config,
        "checks": [],
        "risks": [],
        "unreadable": unreadable,
    }
    checks = run_checks(report, cases=cases)
    if config is not None:
        config.pop("path", None)  # read by the memory plan only; a path is not echoed (it may name the user)
    report["checks"] = checks
    report["risks"] = [c for c in checks if c["status"] == "risk"]
    return redact_tree(report)  # safe to share: config values and the checks that quote them included

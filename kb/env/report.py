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

from kb.env.config import config_of, read_mapping
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
        try:
            name = (dist.metadata["Name"] or "").lower().replace("_", "-")
            if name.startswith("nvidia-nccl"):
                found.append((name, dist.version))
        except (OSError, ValueError):  # another package's METADATA unreadable or not UTF-8: not NCCL's to report
            continue
    if not found:
        return None, None
    name, version = sorted(found)[-1]
    return version, name


def read_versions() -> tuple[dict[str, str | None], dict[str, str]]:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    sources: dict[str, str] = {"python": "platform"}
    for name in PACKAGES:
        try:
            versions[name] = _dist_version(name)
            sources[name] = "package metadata"
        except (OSError, ValueError) as exc:  # a METADATA file not in UTF-8 (UnicodeDecodeError), or unreadable
            versions[name] = None
            sources[name] = f"its package metadata could not be read ({type(exc).__name__})"
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


def _message(exc: BaseException) -> str:
    """``str(exc)`` in one line of at most 200 characters, or "" when it cannot be had: pynvml's NVMLError
    builds its message by calling NVML again (nvmlErrorString), which can itself fail, and a binding's
    ``__str__`` may raise or return a non-string."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - any failure of the message is a message we do not have
        return ""
    return " ".join(text.split())[:200]


def _why(exc: BaseException) -> str:
    """An exception in one short line: its type and the start of its message."""
    text = _message(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


MAX_TEXT = 256  # a GPU name, UUID, driver version or process name longer than this is cut


def _text(value: Any) -> str:
    """NVML's text (bytes from older bindings), at most MAX_TEXT characters."""
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "..."


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
    # SystemExit too: a binding (or a library it loads) that exits must not end the report.
    try:
        nvml = _import_pynvml()
    except ImportError:
        return NvmlReading(False, "nvidia-ml-py is not installed (pip install nvidia-ml-py)")
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a broken binding: say so, report the rest
        return NvmlReading(False, f"nvidia-ml-py could not be imported: {_why(exc)}")
    try:
        nvml.nvmlInit()
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - NVMLError, OSError (no libnvidia-ml), anything else
        return NvmlReading(False, f"NVML could not start: {_why(exc)} (no NVIDIA driver on this machine?)")
    reading = NvmlReading(True)
    expected: tuple[type[BaseException], ...] = (getattr(nvml, "NVMLError", OSError), OSError, AttributeError)

    def attempt(what: str, function: str, *args: Any, quiet: bool = False) -> Any:
        """Call ``nvml.<function>``; on failure record why (unless ``quiet``: failures that are
        normal) and return None. By name, so an older pynvml that lacks a function costs one field."""
        try:
            return getattr(nvml, function)(*args)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - see above
            if not quiet:  # NVML's own refusals read as they are; anything else says what it was
                said = _message(exc) if isinstance(exc, expected) else ""
                said = said or f"could not read ({_why(exc)})"
                reading.problems.append(f"{what}: {said}")
            return None

    problems = reading.problems
    try:
        driver = attempt("driver version", "nvmlSystemGetDriverVersion")
        reading.driver_version = _text(driver) if driver is not None else None
        cuda = _number(problems, "CUDA driver version", attempt("CUDA driver version", "nvmlSystemGetCudaDriverVersion"),
                      1000, 999_999)
        if cuda is not None:
            reading.cuda_driver_version = f"{cuda // 1000}.{cuda % 1000 // 10}"
        count = _number(problems, "GPU count", attempt("GPU count", "nvmlDeviceGetCount"), 0, MAX_GPUS) or 0
        for index in range(count):
            handle = attempt(f"GPU {index}", "nvmlDeviceGetHandleByIndex", index)
            if handle is not None:
                try:
                    reading.gpus.append(_read_gpu(index, handle, attempt, problems))
                except (Exception, SystemExit) as exc:  # noqa: BLE001 - a value of an unexpected shape
                    reading.problems.append(f"GPU {index}: could not read ({_why(exc)})")
    finally:
        attempt("NVML shutdown", "nvmlShutdown")
    return reading


MAX_BYTES = 2**60  # a GPU's memory past an exbibyte is not a reading
MAX_PROCESSES = 1024  # processes listed per GPU
MAX_MIG_SLOTS = 64  # NVIDIA's GPUs have at most 7


def _unread(problems: list[str], what: str, value: Any) -> None:
    problems.append(f"{what}: could not read (NVML gave {_shown(value)})")


def _number(problems: list[str], what: str, value: Any, lo: int, hi: int) -> int | None:
    """``value`` when NVML gave a whole number in [lo, hi], else None, with a problem line when it gave
    something else (a count of 10**400, -1, "2", NaN): what kb cannot trust is reported as unread."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi:
        return value
    _unread(problems, what, value)
    return None


def _shown(value: Any) -> str:
    """A value NVML should not have given, short: its type, and its text when that is short."""
    if isinstance(value, int) and abs(value) >= 10**30:
        return f"an integer of about {value.bit_length() * 3 // 10 + 1} digits"
    text = _message_of(value)
    return f"{type(value).__name__} {text}" if len(text) <= 40 else type(value).__name__


def _message_of(value: Any) -> str:
    try:
        return repr(value)
    except Exception:  # noqa: BLE001 - a value whose repr fails is shown by its type only
        return ""


def _read_gpu(index: int, handle: Any, attempt: Callable[..., Any], problems: list[str]) -> dict[str, Any]:
    """One GPU: each field that NVML cannot give, or gives in a shape kb cannot trust, is None with a
    problem line; the others are still read."""
    name = attempt(f"GPU {index} name", "nvmlDeviceGetName", handle)
    uuid = attempt(f"GPU {index} UUID", "nvmlDeviceGetUUID", handle)
    memory = attempt(f"GPU {index} memory", "nvmlDeviceGetMemoryInfo", handle)
    cc = attempt(f"GPU {index} compute capability", "nvmlDeviceGetCudaComputeCapability", handle)
    mib: dict[str, int | None] = {}
    if memory is not None and not all(hasattr(memory, part) for part in ("total", "free", "used")):
        _unread(problems, f"GPU {index} memory", memory)
        memory = None
    for part in ("total", "free", "used"):
        given = getattr(memory, part, None)
        if memory is not None and given is None:
            _unread(problems, f"GPU {index} memory {part}", given)
        value = _number(problems, f"GPU {index} memory {part}", given, 0, MAX_BYTES)
        mib[part] = value // MIB if value is not None else None
    major = minor = None
    if cc is not None:
        if isinstance(cc, (tuple, list)) and len(cc) == 2:
            major = _number(problems, f"GPU {index} compute capability", cc[0], 0, 99)
            minor = _number(problems, f"GPU {index} compute capability", cc[1], 0, 99)
        else:
            _unread(problems, f"GPU {index} compute capability", cc)
    known = major is not None and minor is not None
    gpu: dict[str, Any] = {
        "index": index,
        "name": _text(name) if name is not None else None,
        "uuid": _text(uuid) if uuid is not None else None,
        "memory_total_mib": mib["total"],
        "memory_free_mib": mib["free"],
        "memory_used_mib": mib["used"],
        "compute_capability": f"{major}.{minor}" if known else None,
        "bf16": ((major, minor) >= (8, 0)) if known else None,
        "processes": None,
        "mig_devices": [],
        "visible": None,
        "cuda_index": None,
    }
    procs = attempt(f"GPU {index} processes", "nvmlDeviceGetComputeRunningProcesses", handle)
    if procs is not None:
        if isinstance(procs, (list, tuple)):
            gpu["processes"] = [_process(p, attempt, problems) for p in procs[:MAX_PROCESSES]]
            if len(procs) > MAX_PROCESSES:
                problems.append(f"GPU {index} processes: {len(procs)} listed, the first {MAX_PROCESSES} shown")
        else:
            _unread(problems, f"GPU {index} processes", procs)
    # quiet: GPUs without MIG (T4, RTX) answer "Not Supported"
    mig = attempt(f"GPU {index} MIG mode", "nvmlDeviceGetMigMode", handle, quiet=True)
    if isinstance(mig, (list, tuple)) and mig and mig[0] == 1:
        slots = attempt(f"GPU {index} MIG slots", "nvmlDeviceGetMaxMigDeviceCount", handle)
        for slot in range(_number(problems, f"GPU {index} MIG slots", slots, 0, MAX_MIG_SLOTS) or 0):
            mh = attempt("MIG slot", "nvmlDeviceGetMigDeviceHandleByIndex", handle, slot, quiet=True)
            if mh is None:  # an empty slot
                continue
            muuid = attempt(f"GPU {index} MIG {slot} UUID", "nvmlDeviceGetUUID", mh)
            mmem = attempt(f"GPU {index} MIG {slot} memory", "nvmlDeviceGetMemoryInfo", mh)
            total = _number(problems, f"GPU {index} MIG {slot} memory", getattr(mmem, "total", None), 0, MAX_BYTES)
            gpu["mig_devices"].append(
                {"uuid": _text(muuid) if muuid else None, "memory_total_mib": total // MIB if total is not None else None}
            )
    return gpu


def _process(p: Any, attempt: Callable[..., Any], problems: list[str]) -> dict[str, Any]:
    """One process NVML lists on a GPU: its pid, the executable's name (not its path: a path can name the
    user's home) and its memory; what NVML gives in another shape is None."""
    pid = _number(problems, "process pid", getattr(p, "pid", None), 0, 2**32)
    used = getattr(p, "usedGpuMemory", None)  # None where the driver does not say (Windows, containers)
    used = used if isinstance(used, int) and not isinstance(used, bool) and 0 <= used <= MAX_BYTES else None
    # quiet: a process of another container has no name here
    pname = attempt(f"process {pid} name", "nvmlSystemGetProcessName", pid, quiet=True) if pid is not None else None
    return {"pid": pid, "name": redact(Path(_text(pname)).name) if pname else None,
            "used_memory_mib": used // MIB if used is not None else None}


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
    config = None
    if config_path is not None:
        data, fmt = read_mapping(config_path)  # read once: a pipe (`--config <(...)`) cannot be read again (review50b)
        config = config_of(config_path, data, fmt)
        config["path"] = str(config_path)  # kb/env/plan_risk.py plans the whole mapping for `kb plan`; popped below
        config["data"] = data
    unreadable: list[str] = []
    versions, sources = read_versions()
    for name in ("torch", "transformers"):
        if versions[name] is None:
            unreadable.append(f"{name}: not installed")
    unreadable += [f"{name}: {how}" for name, how in sources.items() if how.startswith("its package metadata could not")]
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
        config.pop("data", None)  # (the whole mapping, the memory plan's: not echoed)
    report["checks"] = checks
    report["risks"] = [c for c in checks if c["status"] == "risk"]
    return redact_tree(report)  # safe to share: config values and the checks that quote them included

"""Hardware profiles: the one table behind pytest markers, skips and the runner.

A profile says how many CUDA GPUs a reproduction needs and, for small-GPU
profiles, the per-device memory cap that makes a larger GPU fail like the small
one (applied in the child process with ``torch.cuda.set_per_process_memory_fraction``).
Detection here never imports torch into the calling process.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from kb.knowledge.tables import card

T4_USABLE_GIB = card("t4")["usable_gib"]  # what torch reports as total_memory on a 15 GB Tesla T4 (tables/gpus.toml)
CARD_24G_GIB = card("24g")["usable_gib"]


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    gpus: int
    memory_cap_gib: float | None = None
    emulates: str = ""
    env: dict[str, str] = field(default_factory=dict)
    host_memory_cap_gib: float | None = None  # host RAM limit for the whole run (a memory cgroup, kb/reproduce/memlimit.py)
    torch_without_cuda: bool = False  # needs a torch build with no CUDA support (torch.version.cuda is None)

    @property
    def is_emulated(self) -> bool:
        return bool(self.emulates)


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            "cpu",
            "CPU only (CUDA hidden with CUDA_VISIBLE_DEVICES='')",
            gpus=0,
            env={"CUDA_VISIBLE_DEVICES": ""},
        ),
        Profile("gpu", "one CUDA GPU of any size", gpus=1),
        Profile("gpu2", "two CUDA GPUs of any size, one process", gpus=2),
        Profile(
            "t4",
            f"one Tesla T4 (15 GB, {T4_USABLE_GIB:g} GiB usable)",
            gpus=1,
            memory_cap_gib=T4_USABLE_GIB,
            emulates=f"a Tesla T4's {T4_USABLE_GIB:g} GiB, by capping a larger GPU's memory",
        ),
        Profile(
            "t4x2",
            f"two Tesla T4s (15 GB each, {T4_USABLE_GIB:g} GiB usable), as on Kaggle",
            gpus=2,
            memory_cap_gib=T4_USABLE_GIB,
            emulates=f"two Tesla T4s' {T4_USABLE_GIB:g} GiB each, by capping larger GPUs' memory",
        ),
        Profile(
            "gpu-24g",
            f"one CUDA GPU capped at {CARD_24G_GIB:g} GiB, the size of an RTX 3090/4090",
            gpus=1,
            memory_cap_gib=CARD_24G_GIB,
            emulates=f"a {CARD_24G_GIB:g} GiB card (RTX 3090/4090), by capping a larger GPU's memory",
        ),
        Profile(
            "cpu-only-torch",
            "CPU only, with a torch build that has no CUDA support (torch.version.cuda is None: a +cpu wheel, "
            "the default pip wheel on Windows and macOS)",
            gpus=0,
            env={"CUDA_VISIBLE_DEVICES": ""},
            torch_without_cuda=True,
        ),
        Profile(
            "cpu-ram1g",
            "CPU only, the run's processes limited to 1 GiB of host RAM by a memory cgroup",
            gpus=0,
            env={"CUDA_VISIBLE_DEVICES": ""},
            host_memory_cap_gib=1.0,
            emulates="a memory-limited container (the incident's 60 GB), scaled down to a 1 GiB memory cgroup",
        ),
    )
}


class UnknownProfile(KeyError):
    pass


def visible_devices(profile: Profile, environ: dict[str, str] | None = None) -> dict[str, str]:
    """``CUDA_VISIBLE_DEVICES`` showing a GPU profile exactly its number of GPUs (the first ones this machine
    shows): a one-GPU case on a two-GPU machine must not see the second one (the Trainer would wrap the model
    in DataParallel and double the batch). {} for a profile that sets the variable itself (CPU profiles)."""
    if profile.gpus < 1 or "CUDA_VISIBLE_DEVICES" in profile.env:
        return {}
    current = (os.environ if environ is None else environ).get("CUDA_VISIBLE_DEVICES", "")
    ids = [d.strip() for d in current.split(",") if d.strip()] or [str(i) for i in range(profile.gpus)]
    return {"CUDA_VISIBLE_DEVICES": ",".join(ids[: profile.gpus])}


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise UnknownProfile(f"unknown hardware profile {name!r}; known: {', '.join(PROFILES)}") from None


_PROBE = (
    "import json, torch\n"
    "n = torch.cuda.device_count() if torch.cuda.is_available() else 0\n"
    "print(json.dumps({'count': n, 'names': [torch.cuda.get_device_name(i) for i in range(n)]}))\n"
)


def _built_for_gpus() -> bool | None:
    """Whether this torch was built for CUDA or ROCm, from torch/version.py (what ``torch.version``
    holds) read as text; None when that file cannot be read."""
    spec = importlib.util.find_spec("torch")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        try:
            tree = ast.parse((Path(folder) / "version.py").read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        values = {}
        for node in tree.body:  # cuda = '12.8' or cuda: Optional[str] = None
            target, value = (node.targets[0], node.value) if isinstance(node, ast.Assign) else (
                (node.target, node.value) if isinstance(node, ast.AnnAssign) else (None, None))
            if isinstance(target, ast.Name) and isinstance(value, ast.Constant):
                values[target.id] = value.value
        if "cuda" in values:
            return values["cuda"] is not None or values.get("hip") is not None
    return None


@lru_cache(maxsize=1)
def detect_gpus() -> tuple[int, tuple[str, ...], str]:
    """(count, names, note) of CUDA GPUs visible to a child Python, without importing torch here."""
    if importlib.util.find_spec("torch") is None:
        return 0, (), "torch is not installed"
    if _built_for_gpus() is False:  # a CPU-only build (+cpu wheel) sees no GPU: no child torch to ask
        return 0, (), ""
    try:
        out = subprocess.run(
            [sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120, env=os.environ.copy()
        )
        info = json.loads(out.stdout.strip().splitlines()[-1])
        return int(info["count"]), tuple(info["names"]), ""
    except (subprocess.SubprocessError, ValueError, IndexError, KeyError, OSError) as exc:
        return 0, (), f"could not query CUDA: {exc}"


@lru_cache(maxsize=1)
def torch_cuda_version() -> tuple[str | None, str]:
    """(torch.version.cuda, note) as a child Python sees it, without importing torch here."""
    try:
        out = subprocess.run(
            [sys.executable, "-c", "import torch; print(torch.version.cuda)"],
            capture_output=True, text=True, timeout=120, env=os.environ.copy(),
        )
        value = out.stdout.strip().splitlines()[-1]
        return (None if value == "None" else value), ""
    except (subprocess.SubprocessError, IndexError, OSError) as exc:
        return None, f"could not query torch: {exc}"


def missing_hardware(profile: Profile) -> str | None:
    """Why this machine cannot run ``profile``, or None when it can."""
    if profile.host_memory_cap_gib:
        from kb.reproduce.memlimit import unavailable

        reason = unavailable()
        if reason:
            return reason
    if profile.gpus == 0:
        if importlib.util.find_spec("torch") is None:
            return "needs torch (pip install -e '.[repro]')"
        if profile.torch_without_cuda:
            cuda, note = torch_cuda_version()
            if note:
                return f"needs a torch build without CUDA ({note})"
            if cuda is not None:
                return f"needs a torch build without CUDA; this torch is built for CUDA {cuda}"
        return None
    count, _, note = detect_gpus()
    if count < profile.gpus:
        plural = "GPU" if profile.gpus == 1 else "GPUs"
        reason = f"needs {profile.gpus} CUDA {plural}, found {count}"
        return f"{reason} ({note})" if note else reason
    return None


def missing_packages(requirements: tuple[str, ...]) -> str | None:
    """Why the listed import names are not importable here, or None."""
    missing = [name for name in requirements if importlib.util.find_spec(name) is None]
    if missing:
        return f"needs {', '.join(missing)} installed (pip install -e '.[repro]')"
    return None

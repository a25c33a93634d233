"""Hardware profiles: the cpu-only-torch profile runs only where torch is built without CUDA."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path

import pytest

from kb.reproduce import profiles
from kb.reproduce.profiles import get_profile, missing_hardware


@pytest.mark.parametrize(("cuda", "runs"), [(None, True), ("13.0", False)])
def test_cpu_only_torch_profile_skips_a_cuda_build(monkeypatch: pytest.MonkeyPatch, cuda: str | None, runs: bool) -> None:
    monkeypatch.setattr(profiles, "torch_cuda_version", lambda: (cuda, ""))
    reason = missing_hardware(get_profile("cpu-only-torch"))
    assert (reason is None) is runs
    if not runs:
        assert reason == "needs a torch build without CUDA; this torch is built for CUDA 13.0"
    assert missing_hardware(get_profile("cpu")) is None  # the cpu profile runs on either build


def test_torch_cuda_version_reads_this_torch() -> None:
    # torch.version is torch/version.py, written when the build was made: read it rather than import
    # torch into the test process (seconds of start-up and hundreds of MB, for one string)
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.submodule_search_locations, "needs torch (pip install -e '.[repro]')"
    version: dict[str, object] = {}
    exec((Path(spec.submodule_search_locations[0]) / "version.py").read_text(encoding="utf-8"), version)
    assert profiles.torch_cuda_version() == (version["cuda"], "")


@pytest.mark.parametrize(("version_py", "built_for_gpus"), [
    ("from typing import Optional\ncuda: Optional[str] = None\nhip: Optional[str] = None\n", False),  # a +cpu wheel
    ("from typing import Optional\ncuda: Optional[str] = '12.8'\nhip: Optional[str] = None\n", True),
    ("cuda = None\nhip = '6.2.41133'\n", True),  # ROCm: torch.cuda works through HIP
])
def test_a_cpu_only_build_needs_no_child_torch_to_count_gpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version_py: str, built_for_gpus: bool
) -> None:
    (tmp_path / "version.py").write_text(version_py, encoding="utf-8")
    spec = importlib.machinery.ModuleSpec("torch", None, is_package=True)
    spec.submodule_search_locations = [str(tmp_path)]
    monkeypatch.setattr(profiles.importlib.util, "find_spec", lambda name, *a: spec if name == "torch" else None)
    assert profiles._built_for_gpus() is built_for_gpus
    if not built_for_gpus:
        def no_child(*args: object, **kwargs: object) -> None:
            raise AssertionError("started a child Python to ask a CPU-only torch for GPUs")

        monkeypatch.setattr(profiles.subprocess, "run", no_child)
        profiles.detect_gpus.cache_clear()
        try:
            assert profiles.detect_gpus() == (0, (), "")
        finally:
            profiles.detect_gpus.cache_clear()


def test_a_gpu_profile_shows_exactly_its_gpus() -> None:
    """A one-GPU case on a two-GPU machine sees one GPU (KB0041's Trainer doubled its batch over two)."""
    from kb.reproduce.profiles import get_profile, visible_devices

    assert visible_devices(get_profile("gpu"), {}) == {"CUDA_VISIBLE_DEVICES": "0"}
    assert visible_devices(get_profile("t4"), {"CUDA_VISIBLE_DEVICES": "3,5"}) == {"CUDA_VISIBLE_DEVICES": "3"}
    assert visible_devices(get_profile("t4x2"), {}) == {"CUDA_VISIBLE_DEVICES": "0,1"}
    assert visible_devices(get_profile("gpu2"), {"CUDA_VISIBLE_DEVICES": "2,3,4"}) == {"CUDA_VISIBLE_DEVICES": "2,3"}
    assert visible_devices(get_profile("cpu"), {}) == {}  # the CPU profiles hide CUDA themselves

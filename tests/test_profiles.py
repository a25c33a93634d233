"""Hardware profiles: the cpu-only-torch profile runs only where torch is built without CUDA."""

from __future__ import annotations

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
    import torch

    assert profiles.torch_cuda_version() == (torch.version.cuda, "")


def test_a_gpu_profile_shows_exactly_its_gpus() -> None:
    """A one-GPU case on a two-GPU machine sees one GPU (KB0041's Trainer doubled its batch over two)."""
    from kb.reproduce.profiles import get_profile, visible_devices

    assert visible_devices(get_profile("gpu"), {}) == {"CUDA_VISIBLE_DEVICES": "0"}
    assert visible_devices(get_profile("t4"), {"CUDA_VISIBLE_DEVICES": "3,5"}) == {"CUDA_VISIBLE_DEVICES": "3"}
    assert visible_devices(get_profile("t4x2"), {}) == {"CUDA_VISIBLE_DEVICES": "0,1"}
    assert visible_devices(get_profile("gpu2"), {"CUDA_VISIBLE_DEVICES": "2,3,4"}) == {"CUDA_VISIBLE_DEVICES": "2,3"}
    assert visible_devices(get_profile("cpu"), {}) == {}  # the CPU profiles hide CUDA themselves

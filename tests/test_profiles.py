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

"""kb plan --fit: the configuration that fits the cards (kb/plan/fit.py)."""

from __future__ import annotations

import json

import pytest

from kb.cli.commands import run_command
from kb.plan.estimate import GIB, estimate
from kb.plan.fit import fit_document
from kb.plan.shapes import load_shape
from kb.plan.spec import RunSpec, SpecError


def test_fit_proposes_qwen14b_on_one_t4(capsys: pytest.CaptureFixture[str]) -> None:
    code = run_command(["plan", "--model", "qwen2.5-14b", "--gpu-gib", "14.74", "--fit", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    fit = doc["fit"]
    assert code == 0 and fit["found"] and doc["fits"] is True
    assert fit["proposed"]["quant"] == "nf4" and fit["needs_with_slack_gib"] <= 14.74
    assert fit["flags"][:2] == ["--lora-r", "16"] and "--gpu-gib" in fit["flags"]
    # every step carries its predicted peak; the steps before the proposal did not fit
    found = [i for i, s in enumerate(fit["steps"]) if s.get("fits")]
    assert found and all("needs_gib" in s for s in fit["steps"]) and not any(s["fits"] for s in fit["steps"][:found[0]])
    # the proposal, planned again through its own flags, is what the fit object says
    assert run_command(["plan", "--model", "qwen2.5-14b", *fit["flags"], "--format", "json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["gpus"][0]["peak_allocated_gib"] == pytest.approx(fit["peak_allocated_gib"], abs=0.01)


def test_fit_grows_the_micro_batch_while_it_fits() -> None:
    shape = load_shape("qwen2.5-0.5b")
    best, doc = fit_document(shape, RunSpec(gpu_gib=(80.0,)), set())
    assert best is not None and best.batch > 1 and best.batch * best.grad_accum == 16
    bigger = best.with_(batch=best.batch * 2, grad_accum=max(1, best.grad_accum // 2))
    if best.batch < 16:  # the next micro-batch was tried and did not fit with the allocator's slack
        p = estimate(shape, bigger)[0]
        assert not p.fits or p.tight
    assert doc["steps"][-1]["fits"] is False or best.batch == 16


def test_fit_keeps_what_the_user_gave_and_uses_the_gpus() -> None:
    shape = load_shape("llama-3.1-8b")
    spec = RunSpec(lora_r=0, seq=1024, gpu_gib=(24.0,), gpus=4)
    best, doc = fit_document(shape, spec, {"lora_r", "seq"})
    assert best is not None and best.lora_r == 0 and best.seq == 1024
    assert best.strategy in ("zero2", "fsdp", "zero3", "device-map")  # DDP cannot hold 8B full fine-tuning on 24 GiB
    assert any("--strategy ddp" in s["flags"] and s["fits"] is False for s in doc["steps"])
    plans = estimate(shape, best)
    assert len(plans) == 4 and all(p.fits and not p.tight for p in plans)


def test_fit_reports_when_nothing_fits(capsys: pytest.CaptureFixture[str]) -> None:
    code = run_command(["plan", "--model", "qwen2.5-14b", "--gpu-gib", "4", "--fit"])
    out = capsys.readouterr().out
    assert code == 1 and "Nothing in the search fits" in out and "Search (--fit" in out
    with pytest.raises(SpecError, match="--fit needs the cards"):
        fit_document(load_shape("qwen2.5-0.5b"), RunSpec(), set())
    assert max(p.peak_allocated for p in estimate(load_shape("qwen2.5-14b"), RunSpec(quant="nf4", kbit_prep=False,
                                                                                    grad_ckpt="nonreentrant", seq=256))) / GIB > 4

"""(turn 48, issue 26: start-up) `kb diagnose` on an out-of-memory log that names its model asks the planner, whose
values (kb/knowledge/values.py Frozen: a run's settings, a model's shape, a linear layer, a trainer's run; GpuPlan and
Placement) no longer come from the dataclasses module: that run imports neither dataclasses nor inspect, re or
functools (~13 ms of its ~45), and the values behave as the dataclasses they replace did."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest

from kb.plan.estimate import GpuPlan, Placement
from kb.plan.shapes import Linear, ModelShape
from kb.plan.spec import RunSpec
from kb.plan.trainers import TrainerRun
from kb.knowledge.values import Frozen
from test_startup_lazy import modules_after

REPO = Path(__file__).resolve().parent.parent


def test_the_planned_oom_log_imports_no_dataclasses_re_or_functools(tmp_path: Path) -> None:
    text = (REPO / "examples" / "qwen14b-4bit-t4-oom-message.txt").read_text(encoding="utf-8")
    loaded = modules_after(text, tmp_path)
    assert "kb.plan.estimate" in loaded and "kb.plan.report" in loaded  # (the planner answered)
    assert not {"dataclasses", "inspect", "re", "functools", "ast", "typing"} & loaded


def _twin(cls: type[Frozen]) -> type:
    """The frozen dataclass ``cls`` was: the same fields and defaults."""
    fields = [(f, object, dataclasses.field(default=cls.DEFAULTS[f])) if f in cls.DEFAULTS else (f, object)
              for f in cls.FIELDS]
    return dataclasses.make_dataclass(cls.__name__, fields, frozen=True)


@pytest.mark.parametrize(("cls", "args", "kwargs"), [
    (RunSpec, (), {}),
    (RunSpec, ("nf4",), {"lora_r": 8, "gpu_gib": (14.74, 14.74), "notes": ("a",), "device_map": "auto"}),
    (Linear, ("q_proj", 4096, 4096, "attn_in"), {}),
    (ModelShape, ("m", "llama", 32000, 4096, 11008, 32, 32, 8, 128), {"tied": False, "qkv_bias": False,
                                                                      "norms_per_layer": 2, "qk_norm": False,
                                                                      "fused": False, "final_softcap": False}),
    (TrainerRun, (), {"trainer": "dpo", "ref": "model", "rows": 2, "length": 512, "scored": 256,
                      "generation_batch": 0, "prompt": 256}),
])
def test_a_value_is_built_compared_hashed_and_printed_as_its_dataclass(cls: type[Frozen], args: tuple,
                                                                       kwargs: dict) -> None:
    value, twin = cls(*args, **kwargs), _twin(cls)(*args, **kwargs)
    assert repr(value) == repr(twin)
    assert value == cls(*args, **kwargs) and hash(value) == hash(cls(*args, **kwargs))
    assert value.values() == dataclasses.astuple(twin)
    assert value != twin and value != value.values()  # (another class: never equal, as a dataclass)
    with pytest.raises(AttributeError):
        setattr(value, value.FIELDS[0], None)
    assert pickle.loads(pickle.dumps(value)) == value


def test_replace_and_the_errors_a_dataclass_gives() -> None:
    spec = RunSpec(batch=4)
    other = spec.with_(seq=2048)
    assert (other.batch, other.seq, spec.seq) == (4, 2048, 1024) and other == RunSpec(batch=4, seq=2048)
    with pytest.raises(TypeError):
        RunSpec(no_such_field=1)
    with pytest.raises(TypeError):
        spec.with_(no_such_field=1)
    with pytest.raises(TypeError):
        Linear("q_proj", 1, 2)  # a required field missing
    with pytest.raises(TypeError):
        Linear("q_proj", 1, 2, "attn_in", name="again")
    with pytest.raises(TypeError):
        hash(RunSpec(device_map={"": 0}))  # a dict among the fields: unhashable, as the dataclass's hash was
    with pytest.raises(ValueError, match="mutable default"):
        type("Bad", (Frozen,), {"__annotations__": {"items": "list"}, "items": []})


def test_the_mutable_plans_compare_by_value_and_are_unhashable() -> None:
    a, b = GpuPlan(0, 14.74, ["lm_head"]), GpuPlan(0, 14.74, ["lm_head"])
    assert a == b and a.parts == {} and a.parts is not b.parts  # (a fresh dict each: default_factory=dict)
    b.peak_allocated = 1.0
    assert a != b and "peak_allocated=1.0" in repr(b) and repr(a).startswith("GpuPlan(index=0, total_gib=14.74, ")
    assert Placement({"lm_head": 1}, {0: 16}) == Placement({"lm_head": 1}, {0: 16})
    with pytest.raises(TypeError):
        hash(a)
    with pytest.raises(TypeError):
        hash(Placement({}, {}))


def test_the_planners_titles_reuse_the_loaded_knowledge_while_its_files_are_unchanged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """kb/plan/refs.py reads case titles from the knowledge this process loaded (load_index(reuse=True)), not from
    another read of the index, as long as the files' key is the one it was loaded under."""
    import os
    import shutil

    from kb.knowledge.index import load_index

    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    cases, families = tmp_path / "cases", tmp_path / "families"
    shutil.copytree(REPO / "cases", cases)
    shutil.copytree(REPO / "families", families)
    first = load_index(cases, families)
    assert load_index(cases, families, reuse=True) is first
    assert load_index(cases, families) is not first  # (without reuse: a model of its own, as before)
    latest = load_index(cases, families)
    case_file = next(cases.glob("*/case.md"))
    os.utime(case_file, ns=(1, 1))  # a changed file: a new key
    again = load_index(cases, families, reuse=True)
    assert again is not latest and again.cases

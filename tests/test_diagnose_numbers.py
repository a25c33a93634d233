"""Issue #23.2 and #23.4: numbers computed from the evidence, the fix spelled for the user's versions,
and the planner's answer attached to an OOM whose log names the model."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from kb.diagnose import numbers
from kb.diagnose.advice import KeywordFacts, Resolver, fill_keywords, keywords, resolve
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.knowledge.registry import load_knowledge

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
GIB = 2**30


def doc_for(text: str) -> dict:
    return diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_knowledge()))


# ------------------------------------------------------------------------------------- the evaluator

@pytest.mark.parametrize(("expression", "expected"), [
    ("1 + 2 * 3", 7.0), ("(1 + 2) * 3", 9.0), ("-batch + 10", 6.0), ("batch * seq * vocab * 4 / GiB", 4 * 2048 * 151936 * 4 / GIB),
    ("requested - free", 1.0 * GIB), ("1e9 / 2", 5e8), ("seq / 0", None), ("missing + 1", None),
])
def test_expressions(expression: str, expected: float | None) -> None:
    values = {"batch": 4.0, "seq": 2048.0, "vocab": 151936.0, "requested": 2.0 * GIB, "free": 1.0 * GIB}
    assert numbers.evaluate(numbers.parse_expression(expression), values) == expected


@pytest.mark.parametrize("bad", ["__import__('os')", "a ** 2", "a.b", "1 +", "(1", "a[0]", "f(x)", "'s'"])
def test_anything_but_arithmetic_is_refused(bad: str) -> None:
    with pytest.raises(numbers.FormulaError):
        numbers.parse_expression(bad)


def test_a_line_needs_every_value_and_every_condition() -> None:
    line = {"name": "shortfall", "when": ["requested > free"],
            "text": "asked for {requested:GiB} with {free:GiB} free: short by {requested - free:GiB}"}
    values = numbers.values_from({"requested": "1.45 GiB", "free": "102.00 MiB"})
    assert numbers.render(line, values) == "asked for 1.45 GiB with 0.10 GiB free: short by 1.35 GiB"
    assert numbers.render(line, numbers.values_from({"requested": "1.45 GiB"})) is None  # free not shown
    assert numbers.render(line, numbers.values_from({"requested": "1 GiB", "free": "2 GiB"})) is None  # when fails


def test_units() -> None:
    assert numbers.fmt(1536 * 2**20, "GiB") == "1.50 GiB"
    assert numbers.fmt(1536 * 2**20, "MiB") == "1536.00 MiB"
    assert numbers.fmt(8192.0, "int") == "8,192"
    assert numbers.fmt(0.913, "pct") == "91%"
    assert numbers.fmt(14.0, None) == "14"


def test_every_numbers_line_of_the_knowledge_parses() -> None:
    knowledge = load_knowledge()
    lines = [line for e in (*knowledge.cases, *knowledge.families) for line in e.numbers]
    assert lines, "the knowledge has [fix] numbers lines"
    assert [numbers.line_problems(line) for line in lines] == [[] for _ in lines]


# ------------------------------------------------------------------------------------- in the document

def test_the_oom_example_gets_its_numbers() -> None:
    doc = doc_for((EXAMPLES / "qwen14b-4bit-t4-oom-traceback.txt").read_text(encoding="utf-8"))
    top = doc["matches"][0]
    assert top["slug"] == "single-gpu-14b-oom"
    assert "asked for 1.45 GiB with 1.07 GiB free of 14.74 GiB: short by 0.38 GiB" in top["numbers"]
    assert any(n.startswith("a 14B model's weights in 4-bit: at least 6.52 GiB") for n in top["numbers"])
    assert all(isinstance(m["numbers"], list) for m in doc["matches"])


def test_logits_from_a_shape_in_the_log() -> None:
    text = ("logits: torch.Size([4, 2048, 151936])\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.64 GiB. GPU 0 has a total capacity of "
            "14.74 GiB of which 1.20 GiB is free. Of the allocated memory 12.90 GiB is allocated by PyTorch, and "
            "300.00 MiB is reserved by PyTorch but unallocated.\n")
    family = next(m for m in doc_for(text)["matches"] if m["id"] == "cuda-oom")
    assert "logits in fp32: 4 x 2,048 x 151,936 x 4 B = 4.64 GiB" in family["numbers"]
    assert ("at batch 1 (gradient_accumulation_steps=4 keeps the effective batch) the logits take 1.16 GiB, "
            "3.48 GiB less") in family["numbers"]


def test_no_numbers_without_the_values() -> None:
    doc = doc_for("torch.OutOfMemoryError: CUDA out of memory.\n")
    assert doc["matches"] and all(m["numbers"] == [] for m in doc["matches"])


# ------------------------------------------------------------------------------------- versions

KW = "{kw:transformers.PreTrainedModel.from_pretrained.dtype|torch_dtype}"


class Facts(KeywordFacts):
    """The API history's facts for dtype= as the shipped history has them (4.56 added it), without the cache."""

    def get(self, kw):  # noqa: ANN001, ANN201
        versions = ("4.45.2", "4.46.3", "4.55.4", "4.56.2", "4.57.6", "5.0.0")
        return versions, versions, versions[3:]


@pytest.mark.parametrize(("log", "spelled", "advice"), [
    ({"transformers": "4.46.3"}, "torch_dtype", "for transformers 4.46.3 (from the log)"),
    ({"transformers": "4.46.0"}, "torch_dtype", "for transformers 4.46.0 (from the log)"),
    ({"transformers": "4.57.1"}, "dtype", "for transformers 4.57.1 (from the log)"),
    ({"transformers": "4.30.2"}, "torch_dtype", "for transformers 4.30.2 (from the log)"),
    ({}, "dtype", "written for transformers >= 4.56; on older releases use torch_dtype="),
])
def test_the_keyword_for_the_users_version(log: dict[str, str], spelled: str, advice: str) -> None:
    chosen, advice_for = resolve(f"from_pretrained(name, {KW}=torch.float16)", Resolver(log, None, Facts()))
    assert fill_keywords(f"from_pretrained(name, {KW}=torch.float16)", chosen) == f"from_pretrained(name, {spelled}=torch.float16)"
    assert advice_for == advice


def test_this_machines_versions_when_the_log_has_none() -> None:
    _, advice_for = resolve(KW, Resolver({}, {"transformers": "4.46.3"}, Facts()))
    assert advice_for == "for transformers 4.46.3 (this machine, kb env)"


def test_the_shipped_history_decides() -> None:
    """Against the real API history: dtype= came to from_pretrained in transformers 4.56."""
    text = ("transformers==4.46.3\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
            "14.74 GiB of which 2.00 MiB is free.\n")
    family = next(m for m in doc_for(text)["matches"] if m["id"] == "cuda-oom")
    assert "Pass torch_dtype= (fp16 on T4" in family["fix"] and "{kw:" not in family["fix"]
    assert family["advice_for"].startswith("for transformers 4.46.3 (from the log)")
    unknown = next(m for m in doc_for(text.split("\n", 1)[1])["matches"] if m["id"] == "cuda-oom")
    assert "Pass dtype= (fp16 on T4" in unknown["fix"]
    assert "written for" in unknown["advice_for"] and "transformers >= 4.56" in unknown["advice_for"]


def test_a_fix_without_keywords_has_no_advice_for() -> None:
    doc = doc_for((EXAMPLES / "qwen14b-4bit-t4-oom-traceback.txt").read_text(encoding="utf-8"))
    assert doc["matches"][0]["advice_for"] is None


def test_placeholders_parse() -> None:
    (kw,) = keywords(f"x {KW} y")
    assert (kw.library, kw.callable, kw.new, kw.old) == (
        "transformers", "transformers.PreTrainedModel.from_pretrained", "dtype", "torch_dtype")


# ------------------------------------------------------------------------------------- the planner

def test_the_plan_is_attached_to_oom_answers_when_the_log_names_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in for kb.plan.quick (another branch adds it): only the attaching is tested here."""
    calls = []

    def plan_for_oom(model, *, batch, seq, quant, gpu_gib, lora_r):  # noqa: ANN001, ANN202
        calls.append((model, batch, seq, quant, gpu_gib, lora_r))
        return {"model": model, "settings": {}, "peak_gib": 16.2, "gpu_gib": gpu_gib, "fits": False,
                "summary": "does not fit", "advice": []}

    module = types.ModuleType("kb.plan.quick")
    module.plan_for_oom = plan_for_oom  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "kb.plan.quick", module)
    doc = doc_for((EXAMPLES / "qwen14b-4bit-t4-oom-message.txt").read_text(encoding="utf-8"))
    assert calls == [("Qwen/Qwen2.5-14B-Instruct", 1, 1024, "nf4", 14.74, 16)]
    oom = [m for m in doc["matches"] if m["family"] == "cuda-oom"]
    assert oom and all(m["plan"] == {"model": "Qwen/Qwen2.5-14B-Instruct", "settings": {}, "peak_gib": 16.2,
                                     "gpu_gib": 14.74, "fits": False, "summary": "does not fit", "advice": []}
                       for m in oom)
    calls.clear()
    no_model = doc_for("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.\n")
    assert calls == [] and all(m["plan"] is None for m in no_model["matches"])


def test_without_the_quick_planner_nothing_is_attached(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "kb.plan.quick", None)  # import fails
    doc = doc_for((EXAMPLES / "qwen14b-4bit-t4-oom-message.txt").read_text(encoding="utf-8"))
    assert all(m["plan"] is None for m in doc["matches"])

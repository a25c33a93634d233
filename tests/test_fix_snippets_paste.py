"""Every fix snippet kb shows runs as pasted into a user's script, without the case programs' helpers.

The code is every case's ``[fix] snippet``, every ```python block of a case's or family's ``## Fix`` section,
and the code lines of every fix template as printed (placeholders at their fallbacks); kb/tidy/snippets.py
extracts it (`kb check` applies the same rule). Each piece must compile and use only names it defines or
imports, builtins, or the user objects of :data:`USER_OBJECTS`: a user's script has a model, a tokenizer, a
dataset, training arguments and a trainer, and nothing that only a reproduction defines (``BUILT``,
``four_bit_config()``). Snippets that need no model and no download run here, on the CPU, with only the
allowed user objects in their namespace.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable
from typing import Any

import pytest

from kb.knowledge.model import Case, Family
from kb.knowledge.registry import all_cases, all_families, find_case
from kb.tidy.snippets import USER_OBJECTS, Code, code_problems, fix_code, template_code

ENTRIES: list[Case | Family] = [*all_cases(), *all_families()]
CODE: list[tuple[str, Code]] = [(e.key, code) for e in ENTRIES for code in fix_code(e)]

# KB0005's snippet before it was rewritten for users: BUILT is the reproduction's 18 built layers.
OLD_KB0005 = '''
# GPU 0: embed_tokens + rotary_emb + norm + lm_head only; GPU 1: layers 0-47.
device_map = {"model.embed_tokens": 0, "model.rotary_emb": 0, "model.norm": 0, "lm_head": 0}
device_map.update({f"model.layers.{i}": 1 for i in range(BUILT)})
'''


def test_the_user_objects_a_snippet_may_assume_are_these_five() -> None:
    """A snippet may use these without defining them; anything else it must define or import."""
    assert set(USER_OBJECTS) == {"model", "tokenizer", "dataset", "args", "trainer"}
    assert all(USER_OBJECTS.values())  # each documented


def test_every_kind_of_fix_code_is_extracted() -> None:
    wheres = {code.where.split(",")[0] for _, code in CODE}
    assert {"[fix] snippet", "## Fix", "[fix] template"} <= wheres
    snippets = {key for key, code in CODE if code.where == "[fix] snippet"}
    assert snippets == {c.key for c in all_cases() if c.fix_snippet.strip()}
    assert len(CODE) > 60


@pytest.mark.parametrize(("key", "code"), CODE, ids=[f"{k}:{c.where}" for k, c in CODE])
def test_fix_code_runs_as_pasted(key: str, code: Code) -> None:
    problems = code_problems(code.source)
    assert problems == [], f"{key} {code.where}:\n{code.source}\n" + "\n".join(problems)


def test_the_check_rejects_what_only_a_reproduction_defines() -> None:
    assert code_problems(OLD_KB0005) == [
        "uses BUILT, which it neither defines nor imports before (a user's script has only what it imports, builtins and "
        "model, tokenizer, dataset, args, trainer)"]
    helper = "from kb.fixtures.qwen import four_bit_config\nquantization_config = four_bit_config()\n"
    assert code_problems(helper) == ["imports kb.fixtures.qwen, the case programs' helpers (write out what they do)"]
    assert "uses four_bit_config" in code_problems("quantization_config = four_bit_config()\n")[0]
    assert "keyword-argument fragment (fsdp=...,)" in code_problems('fsdp="full_shard auto_wrap",\n')[0]
    assert code_problems("return {'bf16': True}\n")[0].startswith("does not compile: 'return' outside function")
    assert "uses config" in code_problems("def f():\n    return config.num_hidden_layers\n")[0]  # inside a function too


def test_the_check_accepts_definitions_imports_builtins_and_user_objects() -> None:
    source = textwrap.dedent('''
        import torch
        from transformers import TrainingArguments
        def precision():
            return {"bf16": False, "fp16": torch.cuda.is_available()}
        layers = [f"model.layers.{i}" for i in range(len(model.config.layer_types))]
        args = TrainingArguments(output_dir="out", **precision())
        trainer.train()
    ''')
    assert code_problems(source) == []


def test_template_code_is_found_between_prose_lists_and_shell_lines() -> None:
    text = textwrap.dedent('''
        Do this:
            import os
            os.environ["X"] = "1"      # before torch
        - a bullet whose text goes on
          on a second line
              y = {"a": 1,
                   "b": 2}
        1. start it with
               PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python train.py
               pip install -U transformers
    ''')
    assert template_code(text) == ['import os\nos.environ["X"] = "1"      # before torch', 'y = {"a": 1,\n     "b": 2}']


# Snippets that need neither a model download nor a GPU, run on the CPU. Each gets a namespace holding at most the
# allowed user objects (a tiny random Llama and its tokenizer from kb/fixtures/tiny.py, built offline), with the
# environment variables it reads, and a check of what it did.
Namespace = dict[str, Any]


def _tiny(bf16: bool = False) -> Namespace:
    import torch

    from kb.fixtures import tiny

    tokenizer = tiny.tokenizer()
    model = tiny.causal_lm(tokenizer)
    return {"model": model.to(torch.bfloat16) if bf16 else model, "tokenizer": tokenizer}


def _check_kb0001(ns: Namespace) -> None:
    import torch

    assert ns["label"].dtype == torch.float32 and ns["scores"].dtype.name == "float64"


def _check_kb0002(ns: Namespace) -> None:
    assert len(ns["images"]) == 4 and all(image.grad_fn is None for image in ns["images"])


def _check_kb0005(ns: Namespace) -> None:
    device_map = ns["device_map"]
    assert device_map["lm_head"] == 0 and device_map["model.layers.47"] == 1 and len(device_map) == 4 + 48


def _check_kb0013(ns: Namespace) -> None:
    chosen = ns["precision"]()
    assert (ns["args"].bf16, ns["args"].fp16) == (chosen["bf16"], chosen["fp16"])


def _check_kb0020(ns: Namespace) -> None:
    assert ns["prefix"].dtype != ns["model"].dtype and ns["inputs_embeds"].dtype == ns["model"].dtype


def _check_kb0022(ns: Namespace) -> None:
    tokenizer, model = ns["tokenizer"], ns["model"]
    assert tokenizer.pad_token == tokenizer.eos_token and model.config.pad_token_id == tokenizer.pad_token_id


def _check_kb0033(ns: Namespace) -> None:
    assert ns["batch"] and all(v.device == ns["model"].device for v in ns["batch"].values())


def _check_kb0034(ns: Namespace) -> None:
    import torch

    head = ns["WeightedHead"](8, 3).to(torch.float64)  # a buffer moves (and casts) with the module
    assert head.class_weights.dtype == torch.float64 and "class_weights" in head.state_dict()


def _check_kb0038(ns: Namespace) -> None:
    import torch

    assert ns["args"].fp16 == torch.cuda.is_available()


RUNS: dict[str, tuple[Callable[[], Namespace], dict[str, str], Callable[[Namespace], None]]] = {
    "KB0001": (dict, {}, _check_kb0001),
    "KB0002": (dict, {}, _check_kb0002),
    "KB0005": (dict, {}, _check_kb0005),
    "KB0009": (dict, {}, lambda ns: os.environ["CUDA_VISIBLE_DEVICES"] == "0" or pytest.fail("not set")),
    "KB0013": (dict, {}, _check_kb0013),
    "KB0015": (lambda: {"dataset": list(range(64))}, {}, lambda ns: ns["loader"].num_workers == 4 or pytest.fail()),
    "KB0016": (dict, {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}, lambda ns: None),
    "KB0018": (dict, {}, lambda ns: os.environ["HF_TOKEN"].startswith("hf_") or pytest.fail("HF_TOKEN not set")),
    "KB0020": (lambda: _tiny(bf16=True), {}, _check_kb0020),
    "KB0022": (_tiny, {}, _check_kb0022),
    "KB0027": (dict, {}, lambda ns: ns["args"].activation_checkpointing is True or pytest.fail()),
    "KB0031": (dict, {}, lambda ns: ns["device"] in ("cuda", "cpu") or pytest.fail(ns["device"])),
    "KB0032": (dict, {}, lambda ns: isinstance(ns["tf32"], bool) or pytest.fail(repr(ns["tf32"]))),
    "KB0033": (_tiny, {}, _check_kb0033),
    "KB0034": (dict, {}, _check_kb0034),
    "KB0038": (dict, {}, _check_kb0038),
}


def _execute(key: str, namespace: Namespace) -> Namespace:
    assert set(namespace) <= set(USER_OBJECTS), f"{key}: only user objects may be given"
    snippet = textwrap.dedent(find_case(key).fix_snippet)
    exec(compile(snippet, f"<{key} [fix] snippet>", "exec"), namespace)  # noqa: S102 - the knowledge's own code
    return namespace


@pytest.mark.parametrize("key", sorted(RUNS))
def test_a_snippet_that_needs_no_model_download_runs(key: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.chdir(tmp_path)  # TrainingArguments(output_dir="out") stays here
    monkeypatch.setattr(os, "environ", dict(os.environ))  # a snippet may set variables: not for the other tests
    namespace_of, env, check = RUNS[key]
    os.environ.update(env)
    check(_execute(key, namespace_of()))


def test_the_guards_refuse_what_they_say() -> None:
    """KB0010 and KB0016's snippets stop a run that would fail later, with the reason."""
    import torch

    saved = dict(os.environ)
    try:
        os.environ["LOCAL_WORLD_SIZE"] = str(torch.cuda.device_count() + 1)
        with pytest.raises(SystemExit, match="launch one process per GPU"):
            _execute("KB0010", {})
        os.environ.pop("PYTORCH_CUDA_ALLOC_CONF", None)
        with pytest.raises(SystemExit, match="expandable_segments:True"):
            _execute("KB0016", {})
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_every_run_is_a_snippet_with_a_check() -> None:
    assert len(RUNS) >= 15 and all(find_case(key).fix_snippet.strip() for key in RUNS)

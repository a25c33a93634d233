"""Issue #25, turn 39 (drift39b): model forward keywords, keywords a decorator accepts, defaults written as a module
name, and the answers that read them (kb/apidrift/modelclasses.py, validated.py, namedefaults.py, answer.py)."""

from __future__ import annotations

import ast
import functools
import types
from pathlib import Path

import pytest

from kb.apidrift import modelclasses, namedefaults, validated
from kb.apidrift.answer import _default_value, answer
from kb.apidrift.history import load_history

WHEELS = Path.home() / ".cache" / "kb" / "apidrift" / "wheels"
MODULE = "transformers.models.llama.modeling_llama"


def test_forwards_take_the_own_forward_else_the_first_module_base_with_one() -> None:
    classes = {
        "LlamaAttention": {"own": ["forward"], "bases": ["nn.Module"], "forward": ["hidden_states", "cache_position"],
                           "forward_renamed": [["past_key_value", "past_key_values", "deprecate_kwarg('past_key_value')"]]},
        "LlamaSdpaAttention": {"own": [], "bases": ["LlamaAttention"]},
        "LlamaPreTrainedModel": {"own": [], "bases": ["PreTrainedModel"]},
        "_Private": {"own": [], "bases": ["LlamaAttention"]},
    }
    out = modelclasses.forwards(classes)
    renamed = [["past_key_value", "past_key_values", "deprecate_kwarg('past_key_value')"]]
    assert out == {"LlamaAttention": (["hidden_states", "cache_position"], renamed),
                   "LlamaSdpaAttention": (["hidden_states", "cache_position"], renamed)}


def test_add_members_adds_forward_parameters_under_the_public_path() -> None:
    scans = {"4.45.0": {MODULE: {
        "LlamaForCausalLM": {"own": ["forward"], "bases": ["nn.Module"], "forward": ["input_ids", "num_logits_to_keep"]},
        "LlamaMLP": {"own": ["forward"], "bases": ["nn.Module"], "forward": ["x"]}}}}
    records = [{"version": "4.45.0", "exports": {MODULE: [], "transformers": ["LlamaForCausalLM"]}, "members": {},
                "params": {"transformers.Trainer": {"params": ["args"], "external": [], "kind": "class"}}}]
    original = modelclasses.cached_scan
    modelclasses.cached_scan = lambda lib, version, wheel, cache=None: scans.get(version)
    try:
        modelclasses.add_members("transformers", records, lambda v: None)
    finally:
        modelclasses.cached_scan = original
    params = records[0]["params"]
    assert params["transformers.LlamaForCausalLM.forward"]["params"] == ["input_ids", "num_logits_to_keep"]
    assert params[f"{MODULE}.LlamaMLP.forward"]["params"] == ["x"]
    assert params["transformers.Trainer"]["params"] == ["args"]  # the extraction's own records are kept


def test_validated_adds_use_auth_token_to_wrapped_callables_that_take_token() -> None:
    tree = ast.parse("@validate_hf_hub_args\ndef hf_hub_download(repo_id, token=None): pass\n"
                     "class HfApi:\n    @validate_hf_hub_args\n    def whoami(self, token=None): pass\n"
                     "    def other(self): pass\n")
    assert validated._wrapped(tree, "validate_hf_hub_args") == ["hf_hub_download", "HfApi.whoami"]
    scans = {"0.20.0": {"accepts": True, "wrapped": ["hf_hub_download", "HfApi.whoami"]},
             "1.0.0": {"accepts": False, "wrapped": ["hf_hub_download"]}}
    records = [{"version": v, "facts": [], "params": {
        "huggingface_hub.hf_hub_download": {"params": ["repo_id", "token"], "external": [], "kind": "function"},
        "huggingface_hub.HfApi.whoami": {"params": ["token"], "external": [], "kind": "function"},
        "huggingface_hub.HfApi.other": {"params": ["token"], "external": [], "kind": "function"}}}
        for v in ("0.20.0", "1.0.0")]
    original = validated.cached_scan
    validated.cached_scan = lambda lib, version, wheel, cache=None: scans.get(version)
    try:
        added = validated.add_keywords("huggingface_hub", records, lambda v: None)
    finally:
        validated.cached_scan = original
    assert added == 2
    assert records[0]["params"]["huggingface_hub.hf_hub_download"]["params"] == ["repo_id", "token", "use_auth_token"]
    assert "use_auth_token" not in records[0]["params"]["huggingface_hub.HfApi.other"]["params"]  # not wrapped
    assert "use_auth_token" not in records[1]["params"]["huggingface_hub.hf_hub_download"]["params"]  # helper gone
    assert {(f["owner"], f["old"], f["new"]) for f in records[0]["facts"]} == {
        ("huggingface_hub.hf_hub_download", "use_auth_token", "token"),
        ("huggingface_hub.HfApi.whoami", "use_auth_token", "token")}


def test_namedefaults_reads_the_first_constant_of_a_module_name() -> None:
    tree = ast.parse('default_optim = "adamw_torch"\nif fused():\n    default_optim = "adamw_torch_fused"\n'
                     "try:\n    LIMIT = 3\nexcept ImportError:\n    LIMIT = 4\nx, y = 1, 2\n"
                     "class Args:\n    default_sched = 'linear'\n    def f(self):\n        inner = 1\n")
    assert namedefaults._constants(tree) == {"default_optim": "'adamw_torch'", "LIMIT": "3", "default_sched": "'linear'"}
    assert _default_value("default_optim -> 'adamw_torch'") == "adamw_torch"
    assert _default_value("'adamw_hf'") == "adamw_hf"
    assert _default_value("default_optim") is None


@pytest.mark.skipif(not (WHEELS / "transformers-4.32.0-py3-none-any.whl").exists(), reason="wheel not cached")
def test_namedefaults_of_real_wheels_see_the_optim_default_change_in_4_32_0() -> None:
    before = namedefaults.scan("transformers", WHEELS / "transformers-4.31.0-py3-none-any.whl")
    after = namedefaults.scan("transformers", WHEELS / "transformers-4.32.0-py3-none-any.whl")
    assert before["transformers.training_args"]["default_optim"] == "'adamw_hf'"
    assert after["transformers.training_args"]["default_optim"] == "'adamw_torch'"


@pytest.mark.skipif(not (WHEELS / "huggingface_hub-1.0.0-py3-none-any.whl").exists(), reason="wheel not cached")
def test_validated_of_real_wheels_sees_the_helper_go_in_1_0_0() -> None:
    before = validated.scan("huggingface_hub", WHEELS / "huggingface_hub-0.36.2-py3-none-any.whl")
    after = validated.scan("huggingface_hub", WHEELS / "huggingface_hub-1.0.0-py3-none-any.whl")
    assert before["accepts"] and "hf_hub_download" in before["wrapped"]
    assert not after["accepts"]


def _facts(doc: dict | None) -> str:
    assert doc is not None
    return " ".join(doc["facts"] + doc["fixes"])


def test_shipped_history_dates_forward_keywords_and_the_decorator_keyword() -> None:
    h = load_history()
    _present, accepted = h.param_versions("transformers", "transformers.Qwen2ForCausalLM.forward", "num_logits_to_keep")
    assert accepted[0] == "4.45.0"
    _present, accepted = h.param_versions("transformers", "transformers.LlamaForCausalLM.forward", "cache_position")
    assert accepted[0] == "4.38.0"
    _present, accepted = h.param_versions("huggingface_hub", "huggingface_hub.hf_hub_download", "use_auth_token")
    assert accepted[-1] == "0.36.2" and "1.0.0" in h.versions("huggingface_hub")


def test_answers_name_the_release_and_the_replacement() -> None:
    # a subclass's forward that transformers 4.38.0 began calling with cache_position
    text = _facts(answer("unexpected-kwarg", {"name": "cache_position", "callable": "LlavaLlamaForCausalLM.forward"}, {}, None))
    assert "4.38.0" in text and "transformers<4.38" in text and "LlamaForCausalLM.forward" in text
    # a tracked model forward: the keyword's range and its later name
    doc = answer("unexpected-kwarg", {"name": "num_logits_to_keep", "callable": "Qwen2ForCausalLM.forward"}, {}, None)
    assert doc is not None and doc["added_in"] == "4.45.0" and doc["renamed_to"] == "logits_to_keep"
    # hf_hub_download(use_auth_token=) went with the validator's helper in huggingface_hub 1.0.0
    doc = answer("unexpected-kwarg", {"name": "use_auth_token", "callable": "hf_hub_download"}, {}, None)
    assert doc is not None and doc["removed_in"] == "1.0.0" and doc["renamed_to"] == "token"
    # an enum value removed with no message: the default that replaced it
    doc = answer("enum-value", {"value": "adamw_hf", "enum": "OptimizerNames"}, {}, None)
    assert doc is not None and doc["removed_in"] == "4.50.0" and "optim='adamw_torch'" in _facts(doc)
    # a member whose deprecation the decorator states: its replacement is named
    doc = answer("object-attribute", {"cls": "HfApi", "name": "list_files_info"}, {}, None)
    assert doc is not None and doc["renamed_to"] == "list_repo_tree" and doc["removed_in"] == "0.23.0"



def smoothly_deprecate_use_auth_token(fn_name: str, has_token: bool, kwargs: dict) -> dict:
    """A stand-in for huggingface_hub 0.11-0.36's helper (a module-level name, as the wrapper's code reads it)."""
    out = dict(kwargs)
    value = out.pop("use_auth_token", None)
    if value is not None and not has_token:
        out["token"] = value
    return out


def _download(repo_id: str, token: str | None = None) -> None:
    return None


@functools.wraps(_download)
def _validated_download(*args: object, **kwargs: object) -> None:
    return _download(*args, **smoothly_deprecate_use_auth_token("_download", False, kwargs))


def test_agreement_child_runs_the_validator_helper_for_use_auth_token(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agreement check's child sees what the signature cannot: a wrapper that calls huggingface_hub's
    smoothly_deprecate_use_auth_token hands `use_auth_token=` on as `token=` (its own helper is run)."""
    from kb.apidrift import agreement_child

    fake = types.SimpleNamespace(smoothly_deprecate_use_auth_token=smoothly_deprecate_use_auth_token)
    monkeypatch.setattr(agreement_child.importlib, "import_module", lambda name: fake)
    assert agreement_child.decorator_passes_on(_validated_download, "use_auth_token", {"repo_id", "token"})
    assert not agreement_child.decorator_passes_on(_download, "use_auth_token", {"repo_id", "token"})  # no helper
    assert not agreement_child.decorator_passes_on(_validated_download, "use_auth_token", {"repo_id"})  # no token
    assert not agreement_child.decorator_passes_on(_validated_download, "other", {"repo_id", "token"})


@pytest.mark.skipif(not (WHEELS / "transformers-4.45.0-py3-none-any.whl").exists(), reason="wheel not cached")
def test_scan_of_real_wheels_sees_num_logits_to_keep_come_in_4_45_0_and_its_rename_stated_in_4_50_0() -> None:
    qwen2 = "transformers.models.qwen2.modeling_qwen2"
    before = modelclasses.scan("transformers", WHEELS / "transformers-4.44.2-py3-none-any.whl")[qwen2]
    after = modelclasses.scan("transformers", WHEELS / "transformers-4.45.0-py3-none-any.whl")[qwen2]
    assert "num_logits_to_keep" not in before["Qwen2ForCausalLM"]["forward"]
    assert "num_logits_to_keep" in after["Qwen2ForCausalLM"]["forward"]
    renamed = modelclasses.scan("transformers", WHEELS / "transformers-4.50.0-py3-none-any.whl")[qwen2]
    assert ["num_logits_to_keep", "logits_to_keep"] in [r[:2] for r in renamed["Qwen2ForCausalLM"]["forward_renamed"]]

"""Issue #25, drift-36's misses made general (kb/diagnose/drift.py, kb/apidrift/answer.py, the accelerate methods
added to tables/api-history-targets.toml): a model class's __init__ raising a keyword from_pretrained passed on,
prose glued to a callable's name, pydantic's forbidden extra field, an HfArgumentParser message quoted without its
list, and Accelerator methods' keywords. Inputs are written the way reports show them; the releases are the
history's (tables/api-history.json.gz), read from the wheels."""

from __future__ import annotations

import pytest

from kb.diagnose.drift import drift_section, recognise
from drift_support import drift_of


def test_prose_glued_to_the_callable_is_dropped() -> None:
    message = "Qlora过程中报BaiChuanForCausalLM.__init__() got an unexpected keyword argument 'load_in_4bit'"
    assert recognise("TypeError", message) == (
        "unexpected-kwarg", {"callable": "BaiChuanForCausalLM.__init__", "name": "load_in_4bit"})


@pytest.mark.parametrize(("cls", "name", "added", "removed", "renamed"), [
    ("BaiChuanForCausalLM", "load_in_4bit", "4.30.0", "5.0.0", None),  # remote code, not in any wheel
    ("T5ForConditionalGeneration", "use_auth_token", "4.1.0", "5.0.0", "token"),
    ("GPT2LMHeadModel", "load_in_4bit", "4.30.0", "5.0.0", None),
])
def test_a_model_class_init_reads_from_pretrained_keywords(cls: str, name: str, added: str, removed: str,
                                                           renamed: str | None) -> None:
    section = drift_section("TypeError", f"{cls}.__init__() got an unexpected keyword argument '{name}'")
    assert section is not None
    assert section["subject"] == f"transformers.PreTrainedModel.from_pretrained({name}=...)"
    assert (section["added_in"], section["removed_in"], section["renamed_to"]) == (added, removed, renamed)


@pytest.mark.parametrize("message", [
    "MyDataHolder.__init__() got an unexpected keyword argument 'load_in_4bit'",  # not a model class's name
    "LlamaForCausalLM.__init__() got an unexpected keyword argument 'no_such_keyword_anywhere'",  # never accepted
])
def test_other_classes_and_keywords_are_not_read_as_from_pretrained(message: str) -> None:
    section = drift_section("TypeError", message)
    assert section is None or "from_pretrained" not in section["subject"]


@pytest.mark.parametrize(("name", "added"), [("keep_fp32_wrapper", "0.15.0"), ("keep_torch_compile", "1.3.0")])
def test_accelerator_unwrap_model_keywords_are_dated(name: str, added: str) -> None:
    drift = drift_of("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
                     "    model = accelerator.unwrap_model(model)\n"
                     f"TypeError: Accelerator.unwrap_model() got an unexpected keyword argument '{name}'\n"
                     "accelerate 0.14.0\n")
    assert drift is not None
    assert drift["subject"] == f"accelerate.Accelerator.unwrap_model({name}=...)"
    assert drift["added_in"] == added
    assert any(f"accelerate>={added.rsplit('.', 1)[0]}" in fix for fix in drift["fixes"])


def test_a_pydantic_forbidden_field_is_read_as_the_config_member() -> None:
    drift = drift_of("ValidationError: 3 validation errors for DeepSpeedZeroConfig\nzero_hpz_partition_size\n"
                     "  extra fields not permitted (type=value_error.extra)\nzero_quantized_gradients\n"
                     "  extra fields not permitted (type=value_error.extra)\n")
    assert drift is not None
    assert drift["library"] == "deepspeed" and drift["added_in"] == "0.10.0"
    assert "zero_hpz_partition_size" in drift["subject"]


def test_a_pydantic_missing_field_is_not_a_drift_form() -> None:
    message = "1 validation error for DeepSpeedZeroConfig\nstage\n  field required (type=value_error.missing)"
    assert recognise("ValidationError", message) is None


def test_hfargparser_without_its_list_reads_the_flags_the_report_names() -> None:
    message = ("Some specified arguments are not used by the HfArgumentParser: {remaining_args}\n"
               "I believe it is complaining about `--evaluate_during_training`.")
    section = drift_section("ValueError", message)
    assert section is not None
    assert section["renamed_to"] == "evaluation_strategy" and section["removed_in"] == "4.0.0"
    plain = "Some specified arguments are not used by the HfArgumentParser: {remaining_args}\nit fails on evaluate"
    assert drift_section("ValueError", plain) is None

"""Issue #25, drift-39's misses made general: an enum value whose report glues prose to the enum's name
("... is not a valid OptimizerNames这个错误") is read as that enum and answered from the history when no signature
matched; a field a trainer reads off its config, given a TrainingArguments, names the release each config gained it;
a name defined in compiled code that the wheels of earlier releases do not declare (torch's float8 dtypes) is dated
by tables/api-history-before.toml's [[compiled]] rows, not by the first wheel that declares it. Inputs are the reports'
own lines (tests/fixtures/diagnose/dev/drift-39-*); the releases are the history's (tables/api-history.json.gz, read
from the wheels) and, for the float8 dtypes, PyTorch's pull request 104242 (in 2.1.0)."""

from __future__ import annotations


import pytest

from kb.apidrift.history import load_history
from kb.diagnose.drift import drift_section, recognise
from drift_support import DEV, top




# taishan1994/qlora-chinese-LLM#1: the error quoted inside a sentence in Chinese, no space after the enum's name
GLUED = "不知道大佬有没有遇到ValueError: paged_adamw_32bit is not a valid OptimizerNames这个错误\n"


def test_an_enum_name_glued_to_prose_is_read_without_the_prose() -> None:
    assert recognise("ValueError", "paged_adamw_32bit is not a valid OptimizerNames这个错误") == (
        "enum-value", {"value": "paged_adamw_32bit", "enum": "OptimizerNames"})


def test_an_enum_name_glued_to_prose_matches_the_family_signature() -> None:
    answer = top("问题\n" + GLUED)
    assert answer is not None and answer.match.entry.family == "api-drift"
    assert not hasattr(answer.match, "basis")  # a signature matched, not the history (a PriorMatch)
    assert answer.drift is not None and answer.drift["added_in"] == "4.30.0"
    assert any("transformers>=4.30" in fix for fix in answer.drift["fixes"])


def test_an_enum_value_no_signature_matched_is_answered_from_the_history() -> None:
    # PrecisionType is not among the signature's enums; accelerate 0.17.0 added 'fp8' (its wheels:
    # accelerate/utils/dataclasses.py, FP8 = "fp8"), recorded on the defining module's path, not accelerate.utils'
    answer = top("ValueError: 'fp8' is not a valid PrecisionType\n")
    assert answer is not None and answer.match.entry.family == "api-drift" and answer.match.basis == "family-prior"
    assert answer.drift is not None and answer.drift["library"] == "accelerate"
    assert answer.drift["added_in"] == "0.17.0"


def test_an_enum_value_the_history_does_not_date_stays_unanswered() -> None:
    # a value no covered release accepts dates no change: the history does not answer alone
    assert top("ValueError: 'no_such_precision_xyz' is not a valid PrecisionType\n") is None


# lansinuote/Simple_LLM_DPO#1: trl 0.12's DPOTrainer given transformers' TrainingArguments
DPO = "AttributeError: 'TrainingArguments' object has no attribute 'model_init_kwargs'\n"


def test_a_config_field_given_training_arguments_names_when_each_config_gained_it() -> None:
    drift = top(DPO).drift
    assert drift is not None
    assert any("DPOConfig" in fix for fix in drift["fixes"])
    since = next(f for f in drift["facts"] if f.startswith("first release with the field:"))
    assert "trl.DPOConfig since trl 0.9.2" in since
    tracked, having = load_history().param_versions("trl", "trl.DPOConfig", "model_init_kwargs")
    assert having[0] == "0.9.2" and tracked[0] == "0.9.2"  # DPOConfig came with the field (trl 0.9.2, the first 0.9)


# Comfy-Org/ComfyUI#4297, huggingface/transformers#32185, hiyouga/LlamaFactory#4958: float8 dtypes came in torch
# 2.1.0 (pull request 104242), but the wheels declare them only from 2.2.0 on
@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2"])
def test_a_compiled_name_is_dated_by_the_table_not_by_the_first_wheel_declaring_it(name: str) -> None:
    h = load_history()
    assert h.export_versions("torch", "torch", name)[0] == "2.2.0"  # what the wheels say: too late
    assert h.compiled("torch", "torch", name)["added_in"] == "2.1.0"
    section = drift_section("AttributeError", f"module 'torch' has no attribute '{name}'")
    assert section is not None and section["added_in"] == "2.1.0"
    assert section["accepted"].startswith("2.1.0")
    assert any("defined in compiled code" in f and "2.2.0" in f for f in section["facts"])
    assert any("torch>=2.1" in fix for fix in section["fixes"])


def test_a_compiled_name_from_a_report_with_prose_after_it() -> None:
    answer = top("AttributeError: module 'torch' has no attribute 'float8_e4m3fn'是什么原因？\n"
                 "pytorch2.0.0 python3.8 cuda11.8\n")
    assert answer is not None and answer.drift is not None and answer.drift["added_in"] == "2.1.0"


def test_a_name_without_a_compiled_row_keeps_the_wheels_date() -> None:
    h = load_history()
    assert h.compiled("torch", "torch", "compile") is None
    section = drift_section("AttributeError", "module 'torch' has no attribute 'compiler'")
    assert section is not None and section["added_in"] == "2.1.0"
    assert not any("defined in compiled code" in f for f in section["facts"])


# drift-38's DNABERT_2-18 (an open gap: parameters of torch callables the history does not track): a bare
# "__init__()" whose class no line names, and nn.GELU's `approximate`, which came in torch 1.12.0
def test_a_keyword_of_an_untracked_torch_callable_is_dated_by_its_param_row() -> None:
    answer = top((DEV / "drift-38-DNABERT_2-18.txt").read_text(encoding="utf-8"))  # the report, whole
    assert answer is not None and answer.match.entry.family == "api-drift"
    drift = answer.drift
    assert drift is not None and drift["library"] == "torch" and drift["added_in"] == "1.12.0"
    assert any("not among the callables read from the wheels" in f and "release notes" in f for f in drift["facts"])
    assert any("torch>=1.12" in fix for fix in drift["fixes"])


def test_param_rows_only_stand_for_callables_the_history_does_not_track() -> None:
    from kb.knowledge.tables import read_table_file, table_path

    h = load_history()
    rows = read_table_file(table_path("api-history-before.toml"))["param"]
    assert rows
    for row in rows:
        assert row["callable"] not in h._libs[row["library"]]["params"]  # not read from the wheels
        assert h.noted_param(row["library"], row["callable"], row["param"]) == row
        assert row["callable"] in h.callables(row["library"])
    assert h.noted_param("torch", "torch.load", "weights_only") is None  # a tracked callable: its wheels decide


def test_a_keyword_no_row_names_is_not_dated_for_an_untracked_callable() -> None:
    section = drift_section("TypeError", "GELU.__init__() got an unexpected keyword argument 'no_such_keyword_xyz'")
    assert section is None or not section.get("added_in")


# drift-38's dalle-mini-212 (an open gap: a bare class's keyword no tracked callable takes): transformers' Flax
# from_pretrained hands `_do_init` (4.19.0 on) to the model and its flax.linen module, which an older release raises
def test_a_flax_module_keyword_is_read_as_flax_from_pretrained_s() -> None:
    answer = top("FlaxBartForConditionalGenerationModule.__init__() got an unexpected keyword argument '_do_init'\n")
    assert answer is not None and answer.match.entry.family == "api-drift"
    drift = answer.drift
    assert drift is not None and drift["subject"] == "transformers.FlaxPreTrainedModel.from_pretrained(_do_init=...)"
    assert (drift["added_in"], drift["removed_in"]) == ("4.19.0", "5.0.0")
    assert any("read as a transformers Flax model class" in f for f in drift["facts"])


@pytest.mark.parametrize("callable_", ["FlaxBartForConditionalGenerationModule.__init__", "LlamaModel.__init__"])
def test_a_model_class_keyword_no_loader_ever_took_is_not_dated(callable_: str) -> None:
    section = drift_section("TypeError", f"{callable_}() got an unexpected keyword argument 'no_such_keyword_xyz'")
    assert section is None or not section.get("added_in")

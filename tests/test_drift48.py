"""Turn 48 (drift48): classes of the drift sets' silences (issue #25), each with a real report's text."""

from __future__ import annotations

from drift_support import top_match as _top


def test_a_remote_code_model_missing_a_member_its_base_dropped_reads_through_pretrainedmodel() -> None:
    # https://github.com/DreamLM/Dream/issues/64 (drift-67): LoRA through peft on Dream 7B's remote code. The history:
    # transformers.modeling_utils.PreTrainedModel has prepare_inputs_for_generation up to 4.51.3, not from 4.52.0
    # (PreTrainedModel stopped inheriting GenerationMixin), and GenerationMixin still has it
    text = ("AttributeError: 'DreamModel' object has no attribute 'prepare_inputs_for_generation' during SFT "
            "fine-tuning of Dream 7B\nAttributeError: 'DreamModel' object has no attribute "
            "'prepare_inputs_for_generation'\n")
    top = _top(text)
    assert top is not None and top["id"] == "api-drift"
    drift = top["drift"]
    assert drift["removed_in"] == "4.52.0" and drift["library"] == "transformers"
    assert any("GenerationMixin" in fix for fix in drift["fixes"])
    assert any("transformers<4.52" in fix for fix in drift["fixes"])


def test_the_same_member_with_an_older_installed_release_is_not_read_as_the_base_drop() -> None:
    # an installed transformers older than 4.52.0 still has the member on PreTrainedModel: the drop cannot explain it
    top = _top("transformers==4.40.0\nAttributeError: 'DreamModel' object has no attribute "
               "'prepare_inputs_for_generation'\n")
    assert top is None or "4.52" not in str(top.get("drift"))


def test_a_class_that_does_not_read_as_a_model_is_not_read_through_the_model_base() -> None:
    top = _top("AttributeError: 'MyNet' object has no attribute 'prepare_inputs_for_generation'\n")
    assert top is None or "4.52" not in str(top.get("drift"))


def test_transformers_lazy_module_wording_without_quotes_is_a_module_attribute_miss() -> None:
    # https://github.com/EvilBT/ComfyUI_SLK_joy_caption_two/issues/169 (drift-69): transformers' _LazyModule.__getattr__
    # raises "module transformers has no attribute X" with no quotes. The history: SiglipImageProcessorFast is
    # exported by transformers from 4.49.0
    top = _top("AttributeError: module transformers has no attribute SiglipImageProcessorFast\n")
    assert top is not None and top["id"] == "api-drift"
    assert "4.49.0" in str(top["drift"])


def test_an_unquoted_module_miss_of_an_uncovered_module_stays_unclaimed() -> None:
    top = _top("AttributeError: module foo has no attribute bar\n")
    assert top is None or top["id"] != "api-drift" or not top.get("drift")

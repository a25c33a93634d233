"""Turn 43 (drift43): the API history rebuilt with torch's runtime exports, names an unquoted deprecation opens with
kept as names where no keyword can be meant, and trl's DPODataCollatorWithPadding tracked; answers read from it."""

from __future__ import annotations

from kb.apidrift.history import load_history
from kb.diagnose.drift import drift_section


def test_torch_any_is_the_top_levels_own_typing_import_gone_in_2_5_0() -> None:
    # torch/__init__.py imports Any from typing up to 2.4.1; the torch._C stub's import (every release) is no export
    section = drift_section("AttributeError", "module 'torch' has no attribute 'Any'")
    assert section is not None and section["removed_in"] == "2.5.0"


def test_torch_nn_backends_is_bound_only_while_an_import_binds_it() -> None:
    # torch 1.2.0's nn/modules/module.py imports torch.nn.backends.thnn; 1.3.0 imports it nowhere
    section = drift_section("AttributeError", "module 'torch.nn' has no attribute 'backends'")
    assert section is not None and section["removed_in"] == "1.3.0"


def test_a_constant_an_unquoted_deprecation_opens_with_is_recorded_as_a_name() -> None:
    h = load_history()
    records = [r for r in h.renames("transformers") if r["old"] == "ALL_PRETRAINED_CONFIG_ARCHIVE_MAP"]
    assert records and all(r["kind"] == "name" for r in records)
    assert all(r["kind"] == "name" for r in h.renames("torch") if r["old"] in ("TORCH_HUB", "TORCH_MODEL_ZOO"))


def test_a_bare_init_call_of_a_class_tracked_by_its_module_path_is_answered() -> None:
    # drift-62 ALMA#21: "data_collator = DPODataCollatorWithPadding(TypeError: __init__() got an unexpected keyword
    # argument 'max_length'": the class is tracked as trl.trainer.utils.DPODataCollatorWithPadding (max_length to 0.7.4)
    section = drift_section("TypeError", "__init__() got an unexpected keyword argument 'max_length'", {}, None,
                            ["data_collator = DPODataCollatorWithPadding("])
    assert section is not None and section["library"] == "trl" and section["removed_in"] == "0.7.5"
    assert section["subject"].startswith("trl.trainer.utils.DPODataCollatorWithPadding(")

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


def test_a_submodule_the_package_binds_only_in_newer_releases_is_imported_first() -> None:
    # torch binds torch.utils.checkpoint on `import torch` only from 2.8.0 (the rebuild's runtime exports): with the
    # installed torch unknown, the import that works in every release with the module comes before the upgrade
    section = drift_section("AttributeError", "module 'torch.utils' has no attribute 'checkpoint'")
    assert section is not None
    assert section["fixes"][0] == "import it explicitly: import torch.utils.checkpoint"
    assert any("2.8" in fix for fix in section["fixes"][1:])


def test_a_removed_submodule_is_never_told_to_be_imported() -> None:
    section = drift_section("AttributeError", "module 'torch' has no attribute '_six'")
    assert section is not None and section["removed_in"] == "2.0.0"
    assert not any(fix.startswith("import it explicitly") for fix in section["fixes"])

"""Issue #25, drift-42's misses made general: where a removed module or class went when no release's source says
(kb/apidrift/successors.py), a removed class that its class family's deprecation covers, a bare `__init__()` keyword
that two libraries deprecated read in the library the traceback runs in, an override called with more positional
arguments than it takes, and a cut traceback read through the report's own words above it. Inputs are the reports'
own lines (tests/fixtures/diagnose/dev/drift-42-*) or the error lines alone; the releases are the history's
(tables/api-history.json.gz, read from the wheels)."""

from __future__ import annotations

import pytest

from kb.apidrift.history import load_history
from kb.apidrift.successors import module_became_name, module_successor, variant_base
from kb.diagnose.drift import drift_section, recognise
from drift_support import DEV, drift_of, top


def section(error_type: str, message: str) -> dict:
    found = drift_section(error_type, message, {})
    assert found is not None
    return found


# --- a module that went: where its names went ---------------------------------------------------------------------

def test_a_module_that_went_is_ported_to_the_module_that_took_its_names() -> None:
    found = section("ModuleNotFoundError", "No module named 'huggingface_hub.utils._errors'")
    assert found["removed_in"] == "0.25.0"
    assert found["moved_to"] == "huggingface_hub.errors"  # not the latest release's unrelated cli._errors
    assert any(fix.startswith("port: import from huggingface_hub.errors") for fix in found["fixes"])
    assert any("read from the exports" in fact for fact in found["facts"])


def test_a_module_that_became_a_name_of_its_package_is_imported_as_that_name() -> None:
    found = section("ModuleNotFoundError", "No module named 'huggingface_hub.snapshot_download'")
    assert found["removed_in"] == "0.11.0"
    assert "port: from huggingface_hub import snapshot_download" in found["fixes"]


def test_a_module_whose_names_went_nowhere_says_no_replacement_is_recorded() -> None:
    found = section("ModuleNotFoundError", "No module named 'huggingface_hub.inference._types'")
    assert found["removed_in"] == "0.25.0" and found["moved_to"] is None
    assert any("no replacement recorded" in fact for fact in found["facts"])


def test_a_recorded_move_is_still_the_port() -> None:
    # the verified entry drift/transformers-deepspeed-module records the move; the exports agree
    found = section("ModuleNotFoundError", "No module named 'transformers.deepspeed'")
    assert found["moved_to"] == "transformers.integrations.deepspeed"
    assert "port: import from transformers.integrations.deepspeed" in found["fixes"]


def test_the_successor_readings_decline_what_they_cannot_tell() -> None:
    h = load_history()
    kept = h.module_versions("transformers", "transformers.modeling_utils")  # still in the latest release
    assert module_successor(h, "transformers", "transformers.modeling_utils", kept) is None
    config = h.module_versions("peft", "peft.utils.config")
    # peft 0.7.0 binds `config` as its submodule peft.config, not as a name that replaced the module
    assert module_became_name(h, "peft", "peft.utils.config", config) is None
    assert module_successor(h, "peft", "peft.utils.config", config)[:2] == ("0.7.0", "peft.config")


@pytest.mark.parametrize(("lib", "module"), [
    ("datasets", "datasets.metric"),  # datasets 3.0.0 dropped metrics; utils.py_utils only shares its imports
    ("deepspeed", "deepspeed.elasticity.elastic_agent"),  # another module shares only datetime, shutil, subprocess
])
def test_a_module_sharing_only_imports_has_no_successor(lib: str, module: str) -> None:
    h = load_history()
    assert module_successor(h, lib, module, h.module_versions(lib, module)) is None


def test_a_stale_lazy_import_key_is_not_a_name_the_module_became() -> None:
    h = load_history()  # trl 0.13.0's trl.trainer still lists ppov2_config; no module of 0.13.0 defines it
    module = "trl.trainer.ppov2_config"
    assert module_became_name(h, "trl", module, h.module_versions("trl", module)) is None


# --- a class that went: its variants folded into a kept class, or its family's deprecation --------------------------

def test_variants_dropped_together_are_ported_to_the_class_they_were_folded_into() -> None:
    found = section("ImportError", "cannot import name 'LlamaSdpaAttention' from "
                                   "'transformers.models.llama.modeling_llama'")
    assert found["removed_in"] == "4.48.0"
    assert found["renamed_to"] == "transformers.models.llama.modeling_llama.LlamaAttention"
    assert any("import LlamaAttention" in fix for fix in found["fixes"])
    assert not any("no replacement recorded" in fact for fact in found["facts"])


def test_a_package_that_gathers_classes_gives_no_variant() -> None:
    h = load_history()  # 5.0.0 dropped Flax and TF classes by the hundred from the top level: no variants
    module, name = "transformers", "FlaxMistralForCausalLM"
    assert variant_base(h, "transformers", module, name, h.export_versions("transformers", module, name)) is None


def test_a_variant_is_ported_to_the_longest_kept_class_it_extends() -> None:
    h = load_history()  # ViTSdpaSelfAttention is ViTSelfAttention with Sdpa inside, as ViTSdpaAttention is ViTAttention
    module, name = "transformers.models.vit.modeling_vit", "ViTSdpaSelfAttention"
    found = variant_base(h, "transformers", module, name, h.export_versions("transformers", module, name))
    assert found is not None and found[1] == "ViTSelfAttention"


def test_a_class_without_a_kept_base_is_no_variant() -> None:
    h = load_history()
    module, name = "transformers.generation", "DisjunctiveConstraint"
    assert variant_base(h, "transformers", module, name, h.export_versions("transformers", module, name)) is None


def test_a_removed_class_gets_its_class_familys_deprecation() -> None:
    answer = top((DEV / "drift-42-safe-70.txt").read_text(encoding="utf-8"))
    assert answer is not None and answer.drift is not None
    assert answer.drift["removed_in"] == "5.0.0"
    assert any("constrained-beam-search" in fact and "`Constraint` classes" in fact for fact in answer.drift["facts"])


# --- a bare __init__() keyword two libraries deprecated ---------------------------------------------------------------

LOGGING_DIR = ("TypeError: __init__() got an unexpected keyword argument 'logging_dir'\n"
               "Traceback (most recent call last):\n"
               '  File "/env/lib/python3.8/site-packages/accelerate/commands/launch.py", line 1082, in launch_command\n'
               "    simple_launcher(args)\n")


def test_a_keyword_two_libraries_deprecated_is_read_in_the_library_the_traceback_runs_in() -> None:
    found = drift_of(LOGGING_DIR)
    assert found is not None and found["library"] == "accelerate"
    assert found["removed_in"] == "0.20.0" and found["renamed_to"] == "project_dir"


def test_without_the_traceback_the_keyword_alone_names_no_library() -> None:
    found = drift_section("TypeError", "__init__() got an unexpected keyword argument 'logging_dir'", {})
    assert found is None or found["library"] != "accelerate"


# --- an override called with more positional arguments than it takes --------------------------------------------------

OVERRIDE = "TypeError: CPMTrainer.training_step() takes 3 positional arguments but 4 were given\n"


def test_the_positional_count_form_is_recognised() -> None:
    assert recognise("TypeError", OVERRIDE.split(": ", 1)[1].strip()) == (
        "positional-count", {"callable": "CPMTrainer.training_step", "takes": "3", "given": "4"})


def test_an_override_is_dated_by_the_tracked_method_whose_parameters_grew() -> None:
    found = drift_of(OVERRIDE)
    assert found is not None and found["library"] == "transformers" and found["added_in"] == "4.46.0"
    assert "add the parameter to your override: def training_step(self, model, inputs, num_items_in_batch=None)" \
        in found["fixes"]


@pytest.mark.parametrize("message", [
    "MyTrainer.my_hook() takes 2 positional arguments but 3 were given",  # no library method of that name
    "Trainer.training_step() takes 4 positional arguments but 5 were given",  # no release grew it so
])
def test_an_override_the_history_cannot_date_gets_no_section(message: str) -> None:
    assert drift_section("TypeError", message, {}) is None


def test_an_untracked_hook_is_dated_by_its_row_read_off_the_wheels() -> None:
    found = drift_section("TypeError", "GRPOTrainer._get_train_sampler() takes 1 positional argument but 2 were given", {})
    assert found is not None and found["added_in"] == "4.52.0"
    assert "add the parameter to your override: def _get_train_sampler(self, train_dataset=None)" in found["fixes"]
    # a parameter inserted between old ones gets no default in the suggested signature (it would not compile)
    found = drift_section("TypeError", "MyTrainer._maybe_log_save_evaluate() takes 6 positional arguments but 7 were "
                                       "given", {})
    assert found is not None and found["added_in"] == "4.38.0"
    assert any("(self, tr_loss, grad_norm, model," in fix for fix in found["fixes"])


def test_hook_rows_are_consistent_with_the_history() -> None:
    from kb.knowledge.tables import read_table_file, table_path

    h = load_history()
    rows = read_table_file(table_path("api-history-before.toml"))["hook"]
    assert rows
    for row in rows:
        versions = h.versions(row["library"])
        assert row["added_in"] in versions and row["last_without"] in versions, row
        assert versions.index(row["last_without"]) + 1 == versions.index(row["added_in"]), row
        if row.get("keywords"):  # a hook the library calls by keyword from added_in on (turn 46)
            assert set(row["keywords"]) <= set(row["after"]) and not set(row["keywords"]) & set(row["before"]), row
            continue
        assert len(row["after"]) > len(row["before"]) and set(row["before"]) <= set(row["after"]), row


# --- a cut traceback read through the report's own words --------------------------------------------------------------

def test_a_cut_traceback_is_read_through_the_title_that_names_the_module() -> None:
    answer = top((DEV / "drift-42-huggingface_hub-1199.txt").read_text(encoding="utf-8"))
    assert answer is not None and answer.match.entry.family == "api-drift"
    assert answer.drift is not None and answer.drift["removed_in"] == "0.11.0"


def test_a_cut_traceback_without_such_words_is_not_answered_from_the_history() -> None:
    answer = top('Something failed\nTraceback (most recent call last):\n  File "x.py", line 1, in <module>\n')
    assert answer is None or answer.drift is None


@pytest.mark.parametrize("stem", ["safe-70", "deepcompressor-62", "audio-diffusion-48", "mlx-examples-994",
                                  "DataDreamer-38", "huggingface_hub-1199", "MiniCPM-V-698", "Tina-4",
                                  "InstructABSA-12"])
def test_the_report_files_are_answered_with_a_release(stem: str) -> None:
    answer = top((DEV / f"drift-42-{stem}.txt").read_text(encoding="utf-8"))
    assert answer is not None and answer.match.entry.family == "api-drift"
    assert answer.drift is not None and (answer.drift["added_in"] or answer.drift["removed_in"])


# --- a member first read where a class gains many members at once ---------------------------------------------------

def test_a_member_whose_function_twin_came_in_the_same_release_is_dated_there() -> None:
    found = section("AttributeError", "'Tensor' object has no attribute 'tile'")
    assert found["library"] == "torch" and found["added_in"] == "1.8.0"
    assert any("`torch.tile`, the function" in fact for fact in found["facts"])


def test_a_member_read_from_a_new_stub_stays_undated() -> None:
    # Tensor.view is first declared by torch 1.6.0's stub; torch.view is no function of the top level
    found = section("AttributeError", "'Tensor' object has no attribute 'view'")
    assert found["added_in"] is None

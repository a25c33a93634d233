"""Issue #25: a report with no error line whose title says in prose that a name cannot be imported
(kb/diagnose/drift.py prose_readings / prose_answer; the gate kb/diagnose/diagnosis.py prose_may_name_import).

Real reports: drift-49-DeepSeek-V3-290 ("Fail to import `X` since transformers v4.48.0"), drift-51-ImageReward-122
("From Transformers V5 can no longer import X"), drift-51-LRP-eXplains-Transformers-47 ("ImportError for function X",
the module read off the report's own import line), drift-51-MiniCPM-V-926 ("The X function cannot be found in a.b.c",
the installed release read off its pip list).
"""

from __future__ import annotations

import pytest

from drift_support import DEV, drift_of, top
from kb.diagnose.diagnosis import prose_may_name_import
from kb.diagnose.drift import prose_readings


@pytest.mark.parametrize(("line", "name", "module"), [
    ("[BUG] Fail to import is_torch_greater_or_equal_than_1_13 since transformers v4.48.0 for all deepseek models",
     "is_torch_greater_or_equal_than_1_13", ""),
    ("Fail to import `is_torch_greater_or_equal_than_1_13` since transformers v4.48.0", "is_torch_greater_or_equal_than_1_13", ""),
    ("From Transformers V5 can no longer import find_pruneable_heads_and_indices", "find_pruneable_heads_and_indices", ""),
    ("[BUG] <title>The clear_device_cache function cannot be found in accelerate.utils.memory.", "clear_device_cache",
     "accelerate.utils.memory"),
    ("ImportError for function find_pruneable_heads_and_indices", "find_pruneable_heads_and_indices", ""),
])
def test_prose_import_titles_are_read(line: str, name: str, module: str) -> None:
    assert prose_readings([line]) == [{"name": name, "module": module, "line": "0"}]


def test_the_module_is_read_off_the_reports_import_line() -> None:
    head = ["ImportError for function find_pruneable_heads_and_indices",
            "there is an import in line 48 which imports `from transformers.pytorch_utils import "
            "find_pruneable_heads_and_indices`. However, this helper got removed"]
    assert prose_readings(head)[0]["module"] == "transformers.pytorch_utils"


@pytest.mark.parametrize("line", [
    "I cannot import my model after the upgrade",  # a word, not an API name
    "How to import datasets from the hub?",
    "The training loop cannot be found in the docs",
])
def test_prose_without_an_api_name_reads_nothing(line: str) -> None:
    assert prose_readings([line]) == []


def test_the_gate_is_cheap_words() -> None:
    assert prose_may_name_import(["Fail to import X since v1"])
    assert prose_may_name_import(["The f function cannot be found in a.b"])
    assert not prose_may_name_import(["CUDA out of memory while training"])


@pytest.mark.parametrize(("name", "removed", "added"), [
    ("drift-51-ImageReward-122.txt", "5.0.0", None),
    ("drift-51-LRP-eXplains-Transformers-47.txt", "5.0.0", None),
    ("drift-51-MiniCPM-V-926.txt", None, "0.32.0"),
])
def test_prose_reports_are_dated(name: str, removed: str | None, added: str | None) -> None:
    drift = drift_of((DEV / name).read_text())
    assert drift is not None
    if removed:
        assert drift["removed_in"] == removed
    if added:
        assert drift["added_in"] == added
        assert drift["installed"] == "0.30.1"  # the report's pip list
        assert any("upgrade" in fix for fix in drift["fixes"])


def test_a_gap_the_prose_release_lies_in() -> None:
    # is_torch_greater_or_equal_than_1_13: gone in transformers 4.48.0 and 4.48.1, back in 4.48.2 (the report's
    # "since transformers v4.48.0" is also read as the installed release)
    drift = drift_of((DEV / "drift-49-DeepSeek-V3-290.txt").read_text())
    assert drift is not None and drift["installed"] == "4.48.0"
    assert any("lies in a gap" in fact and "4.48.2 has it again" in fact for fact in drift["facts"])


def test_a_version_the_prose_names_must_agree() -> None:
    # the name went in transformers 5.0.0: prose that says it failed since 4.30 names another change, so no answer
    assert top("Fail to import find_pruneable_heads_and_indices since transformers v4.30.0\n") is None


def test_a_name_the_history_does_not_date_is_not_answered() -> None:
    assert top("Fail to import my_custom_helper_fn since transformers v4.48.0\n") is None


@pytest.mark.parametrize(("line", "name", "module"), [
    ("LlamaFlashAttention2 was removed from transformers", "LlamaFlashAttention2", "transformers"),
    ("`find_pruneable_heads_and_indices` is missing in transformers.pytorch_utils", "find_pruneable_heads_and_indices",
     "transformers.pytorch_utils"),
    ("clear_device_cache not found in accelerate.utils.memory", "clear_device_cache", "accelerate.utils.memory"),
    ("The function is_torch_tpu_available is no longer available in transformers", "is_torch_tpu_available", "transformers"),
    ("Cannot import LlamaFlashAttention2 from transformers", "LlamaFlashAttention2", ""),
])
def test_other_prose_wordings(line: str, name: str, module: str) -> None:
    assert prose_readings([line]) == [{"name": name, "module": module, "line": "0"}]


def test_a_library_named_as_the_module_is_searched_for_the_names_home() -> None:
    # LlamaFlashAttention2 was never a top-level name of transformers: its home, modeling_llama, is dated instead
    drift = drift_of("LlamaFlashAttention2 was removed from transformers\n")
    assert drift is not None and drift["removed_in"] == "4.48.0"
    assert "modeling_llama" in drift["subject"]


def test_a_name_in_no_covered_library_is_not_looked_up(monkeypatch: pytest.MonkeyPatch) -> None:
    import kb.diagnose.drift as drift

    def no_history():  # noqa: ANN202
        raise AssertionError("the history was read for a name no covered library could hold")

    monkeypatch.setattr(drift, "_history", no_history)
    assert top("model_state_dict is missing in checkpoint_dir\n") is None

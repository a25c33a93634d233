"""Issue #25 item 4: the API-drift stage's parse fixes, each with an input written as real reports show it
(kb/diagnose/drift.py: VersionScanner, recognise; kb/apidrift/answer.py: the answer's facts and fixes)."""

from __future__ import annotations

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.drift import drift_section, recognise
from kb.diagnose.versions import VersionScanner
from kb.diagnose.stream import chunk_lines
from kb.knowledge.registry import load_knowledge


def versions(text: str) -> dict[str, str]:
    scanner = VersionScanner()
    for _ in scanner.scan(chunk_lines(text.splitlines(keepends=True))):
        pass
    return scanner.facts


def diagnose(text: str):
    return diagnose_lines(text.splitlines(keepends=True), load_knowledge())


# ----------------------------------------------------------------------------- installed versions

@pytest.mark.parametrize("line", [
    "Transformers version: 4.36.2",
    "- `transformers` version: 4.36.2",           # transformers' bug-report template (transformers-cli env)
    "**Transformers version**: 4.36.2",
    "Transformers 4.36.2",
    "Transformers: 4.36.2",
    " transformers-4.36.2",                        # "### System Info" with a name-version line
    "transformers==4.36.2",                        # pip freeze
    "Successfully installed peft-0.7.1 transformers-4.36.2",
    "Requirement already satisfied: transformers in /usr/local/lib/python3.10/dist-packages (4.36.2)",
    "transformers              4.36.2                   pypi_0    pypi",  # conda list
    "I'm currently using transformers==4.36.2, as specified in the requirements.txt file",
    "I am using transformers version 4.36.2 and trl 0.15.0.dev0, I want to reproduce the example",
])
def test_installed_version_evidence(line: str) -> None:
    assert versions(line + "\n")["transformers_version"] == "4.36.2"


@pytest.mark.parametrize("line", [
    "It works with transformers==4.38.2 but not with my install.",
    "downgrading to transformers 4.38 fixed it",
    "With transformers version 4.38.2 it works",
    "Please try transformers==4.38.2",
    "reverting transformers back to 4.38.2 solved it for me",
])
def test_a_working_pin_is_not_the_installed_version(line: str) -> None:
    assert "transformers_version" not in versions(line + "\n")


def test_library_names_are_keyed_in_lower_case() -> None:
    assert versions("- Transformers version: 4.42.4\n- PEFT version: 0.11.1\n") == {
        "transformers_version": "4.42.4", "peft_version": "0.11.1"}


def test_evidence_outranks_a_pip_install_command_and_prose() -> None:
    log = "!pip install transformers==4.38.2\npip freeze:\ntransformers==4.40.0\nIt works with transformers==4.37.0\n"
    # (turn 50) the prose's working pin is kept apart, as the working version, never as the installed one
    assert versions(log) == {"transformers_version": "4.40.0", "working_transformers": "4.37.0",
                             "working_transformers_was": ""}


def test_library_check_names_the_installed_version() -> None:
    line = ("ImportError: peft<=0.6.2 is required for a normal functioning of this module, but found peft==0.9.0.\n")
    assert versions(line) == {"peft_version": "0.9.0"}


# ----------------------------------------------------------------------------- error forms

def test_lazy_import_wrapper_judges_the_wrapped_error() -> None:
    message = ("Failed to import transformers.models.llama.modeling_llama because of the following error (look up to "
               "see its traceback):\ncannot import name 'EncoderDecoderCache' from 'transformers' "
               "(/usr/local/lib/python3.10/dist-packages/transformers/__init__.py)")
    assert recognise("RuntimeError", message) == ("import-name", {"name": "EncoderDecoderCache", "module": "transformers"})
    wrapped = ("Failed to import transformers.integrations.deepspeed because of the following error (look up to see "
               "its traceback):\nNo module named 'transformers.deepspeed'")
    assert recognise("RuntimeError", wrapped) == ("no-module", {"module": "transformers.deepspeed"})


@pytest.mark.parametrize("message", [
    "**cannot import name 'prepare_model_for_int8_training' from 'peft'**",
    "cannot import name `prepare_model_for_int8_training` from `peft`",
    "**cannot import name `prepare_model_for_int8_training` from `peft` (/opt/conda/lib/python3.10/site-packages/peft/__init__.py)**",
])
def test_markdown_around_names(message: str) -> None:
    assert recognise("ImportError", message) == (
        "import-name", {"name": "prepare_model_for_int8_training", "module": "peft"})


@pytest.mark.parametrize(("message", "key"), [
    ("'qwen2' when loading Qwen/Qwen1.5-7B-Chat", "qwen2"),
    ("'qwen2' when running example code on Windows WSL Ubuntu. Successfully installed requirements.txt", "qwen2"),
    ("'gemma2'", "gemma2"),
])
def test_keyerror_followed_by_prose(message: str, key: str) -> None:
    assert recognise("KeyError", message) == ("model-type", {"model_type": key})


@pytest.mark.parametrize("message", ["'input_ids are missing'", "'qwen2's config'", "'Qwen2RMConfig' when loading"])
def test_other_keyerrors_stay_other(message: str) -> None:
    assert recognise("KeyError", message) is None


# ----------------------------------------------------------------------------- answers

def test_load_metric_moved_to_the_evaluate_package() -> None:
    d = drift_section("ImportError", "cannot import name 'load_metric' from 'datasets' "
                      "(/usr/local/lib/python3.10/dist-packages/datasets/__init__.py)")
    assert d is not None and d["renamed_to"] == "evaluate.load"
    assert d["fixes"][0].startswith("port: from evaluate import load")
    assert not any("from datasets import load" in fix for fix in d["fixes"])
    assert any(f.startswith("verified (drift/datasets-load-metric)") for f in d["facts"])


def test_replacement_named_or_said_unrecorded() -> None:
    d = drift_section("ImportError", "cannot import name 'SFTScriptArguments' from 'trl.commands.cli_utils'")
    assert d is not None and "port: from trl import ScriptArguments" in d["fixes"]
    d = drift_section("ImportError", "cannot import name 'DDPOConfig' from 'trl'")
    assert d is not None and any(f.startswith("no replacement recorded") for f in d["facts"])


def test_bare_init_takes_the_class_from_the_code_line() -> None:
    d = diagnose('Traceback (most recent call last):\n  File "/content/train.py", line 40, in <module>\n'
                 "    trainer = SFTTrainer(\nTypeError: __init__() got an unexpected keyword argument "
                 "'dataset_text_field'\n").answers[0].drift
    assert d is not None and d["subject"] == "trl.SFTTrainer(dataset_text_field=...)"
    assert d["moved_to"] == "trl.SFTConfig.dataset_text_field" and d["removed_in"] == "0.13.0"


def test_bare_init_without_a_class_answers_from_the_keyword() -> None:
    d = diagnose("TypeError: __init__() got an unexpected keyword argument 'evaluation_strategy'\n").answers[0].drift
    assert d is not None and d["renamed_to"] == "eval_strategy"
    assert any("the error names no class" in f for f in d["facts"])


def test_bare_init_of_a_keyword_no_release_had_stays_silent() -> None:
    assert drift_section("TypeError", "__init__() got an unexpected keyword argument 'foo_bar'") is None


def test_matmullt_state_member_is_answered_from_the_recorded_members() -> None:
    """History v2 records class members: the attribute peft read went in bitsandbytes 0.45.0 (it said "cannot
    tell" while only exports and signatures were recorded), with no replacement."""
    answers = diagnose("AttributeError: 'MatmulLtState' object has no attribute 'memory_efficient_backward'\n").answers
    assert answers and answers[0].match.entry.slug == "api-drift"
    d = answers[0].drift
    assert d is not None and d["library"] == "bitsandbytes" and d["removed_in"] == "0.45.0"
    assert any("last release with it: 0.44.1" in f for f in d["facts"])
    assert any("no replacement recorded" in f for f in d["facts"])


def test_dataset_scripts_name_the_release_and_the_replacement() -> None:
    text = ('  File "/usr/local/lib/python3.11/dist-packages/datasets/load.py", line 989, in dataset_module_factory\n'
            '    raise RuntimeError(f"Dataset scripts are no longer supported, but found {filename}")\n'
            "RuntimeError: Dataset scripts are no longer supported, but found superb.py\n")
    answers = diagnose(text).answers
    assert answers and answers[0].match.entry.slug == "api-drift"
    d = answers[0].drift
    assert d is not None and d["library"] == "datasets" and d["removed_in"] == "4.0.0"
    assert any("Parquet" in fix for fix in d["fixes"]) and any("datasets<4.0" in fix for fix in d["fixes"])


def test_lazy_import_report_end_to_end() -> None:
    text = ("- `transformers` version: 4.42.4\n- Platform: Linux\n\n"
            "RuntimeError: Failed to import transformers.models.llama.modeling_llama because of the following error "
            "(look up to see its traceback):\ncannot import name 'EncoderDecoderCache' from 'transformers' "
            "(/usr/local/lib/python3.10/dist-packages/transformers/__init__.py)\n")
    d = diagnose(text).answers[0].drift
    assert d is not None and d["subject"] == "from transformers import EncoderDecoderCache"
    assert d["installed"] == "4.42.4" and d["added_in"] == "4.43.0"
    assert any("pip install -U 'transformers>=4.43'" in fix for fix in d["fixes"])

"""Issue #25: general fixes to kb's API-drift answers, found on the older drift batches (drift-14, drift-32), each
with an input written as real reports show it (kb/diagnose/drift.py: recognise, attach_drift; kb/apidrift/answer.py:
base classes, inherited renames, verified new forms, exact pins)."""

from __future__ import annotations

import pytest

from kb.apidrift.answer import _floor
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.drift import drift_section, recognise
from kb.knowledge.registry import load_knowledge


def diagnose(text: str):
    return diagnose_lines(text.splitlines(keepends=True), load_knowledge())


@pytest.mark.parametrize(("message", "callable_"), [
    ("LoraConfig.init() got an unexpected keyword argument 'enable_lora'", "LoraConfig.__init__"),  # markdown ate __
    ("init() got an unexpected keyword argument 'debug'", "__init__"),
    ("wandb.init() got an unexpected keyword argument 'foo'", "wandb.init"),  # a function named init stays itself
])
def test_a_dunder_lost_in_markdown_is_restored(message: str, callable_: str) -> None:
    found = recognise("TypeError", message)
    assert found is not None and found[0] == "unexpected-kwarg" and found[1]["callable"] == callable_


def test_curly_quotes_of_a_post_are_read_as_quotes() -> None:
    found = recognise("ImportError", "cannot import name \u2018cached_download\u2019 from \u2018huggingface_hub\u2019")
    assert found == ("import-name", {"name": "cached_download", "module": "huggingface_hub"})


def test_a_subclass_inherits_the_rename_recorded_on_its_base() -> None:
    """Seq2SeqTrainingArguments' evaluation_strategy: the deprecation message is TrainingArguments'."""
    d = drift_section("TypeError", "Seq2SeqTrainingArguments.init() got an unexpected keyword argument "
                                   "\u2018evaluation_strategy\u2019")
    assert d is not None and d["subject"] == "transformers.Seq2SeqTrainingArguments(evaluation_strategy=...)"
    assert d["renamed_to"] == "eval_strategy" and d["removed_in"] == "4.51.0"
    assert any("port: Seq2SeqTrainingArguments(..., eval_strategy=...)" in f for f in d["fixes"])


def test_a_wrapper_class_is_read_as_the_tracked_class_it_is_named_after() -> None:
    d = drift_section("TypeError", "NeuronSFTConfig.__init__() got an unexpected keyword argument 'max_seq_length'")
    assert d is not None and d["subject"] == "trl.SFTConfig(max_seq_length=...)" and d["renamed_to"] == "max_length"
    assert any("ends with `SFTConfig`" in f for f in d["facts"])
    # a name that merely ends like a short tracked class is not taken as a wrapper of it
    assert drift_section("TypeError", "MyThing.__init__() got an unexpected keyword argument 'max_seq_length'") is None


def test_the_new_form_of_a_verified_change_names_its_exact_release_and_the_old_form() -> None:
    """Trainer(processing_class=) on an older transformers: the history's first release with it is 4.46.1
    (4.46.0 is yanked); the verified entry ran 4.46.0, and older releases take tokenizer=."""
    d = drift_section("TypeError", "Trainer.__init__() got an unexpected keyword argument 'processing_class'",
                      {"transformers_version": "4.44.2"})
    assert d is not None and d["added_in"] == "4.46.0"
    assert any("pass `tokenizer=`" in f for f in d["fixes"])


def test_a_missing_library_followed_by_a_missing_module_of_it_answers_the_module() -> None:
    text = ('  File "/Users/x/model/gazlstm.py", line 8, in <module>\n'
            "    from transformers.modeling_bert import BertModel\n"
            "ModuleNotFoundError: No module named 'transformers'\n"
            "ModuleNotFoundError: No module named 'transformers.modeling_bert'\n")
    d = diagnose(text).answers[0].drift
    assert d is not None and d["subject"] == "import transformers.modeling_bert"
    assert d["moved_to"] == "transformers.models.bert.modeling_bert"
    assert "first error" in d["facts"][0]
    alone = diagnose("ModuleNotFoundError: No module named 'transformers'\n").answers[0].drift
    assert alone is not None and alone["subject"] == "import transformers"


@pytest.mark.parametrize(("version", "covered", "bound"), [
    ("0.19.2", ["0.19.0", "0.19.1", "0.19.2"], "0.19.2"),  # earlier patches lack it: the pin is exact
    ("4.46.1", ["4.45.2", "4.46.1"], "4.46"),               # the minor's first covered release: the minor
    ("0.9.1", [], "0.9.1"),                                  # a verified release is exact
    ("4.46.0", [], "4.46"),
])
def test_pins_name_the_exact_release_when_the_minor_would_let_older_patches_in(version, covered, bound) -> None:
    assert _floor(version, covered) == bound


def test_a_message_wrapped_before_the_name_is_joined() -> None:
    found = recognise("TypeError", "SFTConfig.__init__() got an unexpected keyword argument\n"
                                   "'max_seq_length'. Did you mean 'max_length'?")
    assert found == ("unexpected-kwarg", {"callable": "SFTConfig.__init__", "name": "max_seq_length"})


def test_other_drift_errors_of_the_log_are_told_with_the_top_answer() -> None:
    """A PR quoting two errors: whichever the ranking puts first, the other change is told too."""
    text = ("SFTConfig(max_seq_length=1024)\nTypeError: SFTConfig.__init__() got an unexpected keyword argument\n"
            "'max_seq_length'. Did you mean 'max_length'?\n\nSFTTrainer(..., tokenizer=tokenizer)\n"
            "TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'\n")
    d = diagnose(text).answers[0].drift
    assert d is not None
    subjects = {"trl.SFTConfig(max_seq_length=...)", "trl.SFTTrainer(tokenizer=...)"}
    assert d["subject"] in subjects
    other = (subjects - {d["subject"]}).pop()
    assert any(f.startswith("this log also shows") and other in f for f in d["facts"])
    assert any(f.startswith(f"(for `{other}`)") for f in d["fixes"])


def test_a_field_of_one_config_class_read_on_training_arguments_names_that_class() -> None:
    d = diagnose("AttributeError: 'TrainingArguments' object has no attribute 'packing'\n").answers[0].drift
    assert d is not None and d["moved_to"] == "trl.SFTConfig.packing"
    assert any(f.startswith("port: build the arguments with SFTConfig(") for f in d["fixes"])
    several = diagnose("AttributeError: 'TrainingArguments' object has no attribute 'model_init_kwargs'\n").answers[0].drift
    assert several is not None and several["moved_to"] is None  # several configs have it: none is picked
    assert any("the config class of the trainer you use" in f for f in several["fixes"])


def test_a_change_dated_to_a_yanked_release_names_the_first_regular_one() -> None:
    """transformers 4.46.0 (yanked on PyPI) removed transformers.deepspeed; pip users met it in 4.46.1."""
    d = drift_section("ModuleNotFoundError", "No module named 'transformers.deepspeed'")
    assert d is not None and d["removed_in"] == "4.46.0"
    dated = [f for f in d["facts"] if "transformers 4.46.0" in f]
    assert dated and "(4.46.0 is yanked on PyPI; 4.46.1 is the first regular release)" in dated[0]


def test_a_change_in_a_regular_release_says_nothing_of_yanking() -> None:
    d = drift_section("TypeError", "TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'")
    assert d is not None and d["removed_in"] == "4.51.0"
    assert not any("yanked" in f for f in d["facts"])

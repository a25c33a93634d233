"""Title-only reports of other software (issue #24 item 3, turn 45, titles45): a keyword rule whose words are every
training program's (a checkpoint that will not save, load or resume, a model that will not load after fine-tuning,
saving that is broken) claims a title only where it also names the fine-tuning stack (a library, a trainer, a model or
its size, PEFT's file names: tables/priors.toml [stack]); PEFT's adapter_config.json only where the title says
something failed; a model that "is not learning" new tokens is no device-side assert. And an answer from a title's words says so on its first row, beside its low
confidence. Each is checked on the title of the corpus report it was found on (its URL beside it) and on near forms
that must keep their answer (benchmarks/results/corpus-turn45-titles45-rules.txt has the measurements)."""

from __future__ import annotations

import pytest
from rules_support import answers, top

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.knowledge.registry import load_knowledge
from kb.render.diagnosis import format_diagnosis
from kb.render.html import format_diagnosis_html


@pytest.mark.parametrize("title", [
    "Unable to load finetuned model",  # https://github.com/neuspell/neuspell/issues/58 (a spell checker's; gh-titles-45)
    "Error: unable to save the checkpoint",  # any trainer's words, no stack named
    "Resume from checkpoint functionality of the example has some bugs",
    "Model saving is broken in the latest release",
])
def test_a_title_that_names_no_part_of_the_stack_is_not_claimed(title: str) -> None:
    assert answers(title + "\n") == [], answers(title + "\n")


@pytest.mark.parametrize(("title", "family"), [
    ("Unable to load finetuned llama model: error after training", "checkpoint-io"),
    ("Cannot load the lora checkpoint after training", "checkpoint-io"),
    ("Error: unable to save the checkpoint with the Trainer", "checkpoint-io"),
    ("Qwen2.5 LoRA adapter saving is broken", "checkpoint-io"),
    ("OPT-350M Throws Error On Load after Finetuning", "checkpoint-io"),  # a model's name is the stack's word
    ("adapter_model.safetensors is corrupted after save", "checkpoint-io"),  # PEFT's file name names the stack
])
def test_the_same_words_with_the_stack_named_keep_their_family(title: str, family: str) -> None:
    assert top(title + "\n") == (family, "family-keyword")


@pytest.mark.parametrize("title", [
    "the output only hava adapter_config.json,adapter_model.bin",  # https://github.com/huggingface/peft/issues/309
    "Is adapter_config.json needed to load the adapter?",
])
def test_a_part_of_an_adapter_named_without_a_failure_is_not_claimed(title: str) -> None:
    got = top(title + "\n")
    assert got is None or got[0] != "adapter-config", got


@pytest.mark.parametrize("title", ["Error with target_modules", "LoRA: target_modules not found in the base model",
                                   "adapter_config.json missing after training", "can't find adapter_config.json"])
def test_an_adapter_part_with_a_failure_is_still_adapter_config(title: str) -> None:
    assert top(title + "\n") == ("adapter-config", "family-keyword")


def test_a_model_not_learning_new_tokens_is_no_device_side_assert() -> None:
    # https://github.com/huggingface/transformers/issues/27583 (gh-titles-45, out of scope: a model that does not learn)
    title = "Whisper is not learning a new tokenizer, even when i make test and train dataset the same"
    got = top(title + "\n")
    assert got is None or got[0] != "device-side-assert", got
    assert top("Llama training crashes after adding new tokens to the tokenizer\n") == (
        "device-side-assert", "family-keyword")


def _document(text: str) -> dict:
    return diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_knowledge()))


def test_a_keyword_answer_says_on_its_first_row_that_it_is_a_guess_from_the_words() -> None:
    doc = _document("Cannot load the lora checkpoint after training\n")
    assert doc["matches"][0]["basis"] == "family-keyword"
    first = format_diagnosis(doc, width=80).splitlines()[0]
    assert first == "family checkpoint-io  low confidence, from the report's words only"
    assert "low confidence, from the report&#x27;s words only" in format_diagnosis_html(doc)


def test_a_signature_answer_names_its_confidence_alone() -> None:
    doc = _document("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    assert doc["matches"][0]["basis"] in ("case", "family-evidence")
    first = format_diagnosis(doc, width=80).splitlines()[0]
    assert first.endswith(" confidence") and "words only" not in first

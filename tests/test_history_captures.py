"""Signatures that lean on the API history instead of a frame: `model_type_capture` and `param_capture`,
and the parser keeping a quoted word inside its clause ("has model type `qwen3` but ...")."""

from __future__ import annotations

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.parser import known_message_start
from kb.knowledge.registry import load_knowledge


def top(text: str) -> tuple[str, str] | None:
    answers = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers
    return (answers[0].kind, answers[0].match.entry.slug) if answers else None


@pytest.mark.parametrize("text", [
    "KeyError: 'qwen2'\n",
    "KeyError: 'qwen2_moe' when I load Qwen1.5-MoE\n",
    "lora训练时报错 KeyError: 'gemma2'\n",
])
def test_bare_keyerror_of_a_known_model_type_is_model_unsupported(text: str) -> None:
    # model-unsupported's case for it: the installed transformers predates the model type (KB0050)
    assert top(text) == ("case", "transformers-too-old-for-architecture")


@pytest.mark.parametrize("key", ["labels", "distilroberta", "not_a_model_type_xyz"])
def test_bare_keyerror_of_another_key_is_not(key: str) -> None:
    assert top(f"KeyError: '{key}'\n") is None


def test_bare_keyerror_of_a_dataset_column_is_training_data() -> None:
    """A column the trainer reads ('input_ids', 'text', 'messages'...) missing from the rows: a data problem
    (tables/priors.toml's dataset-column rule), not a model type."""
    assert top("KeyError: 'input_ids'\n") == ("family", "training-data")


@pytest.mark.parametrize("kwarg", ["evaluation_strategy", "max_seq_length", "processing_class", "dataset_text_field"])
def test_frameless_unexpected_kwarg_that_drifted_is_api_drift(kwarg: str) -> None:
    text = f"TypeError: __init__() got an unexpected keyword argument '{kwarg}'\n"
    assert top(text) == ("family", "api-drift")


@pytest.mark.parametrize("kwarg", ["foo_bar", "output_dir", "learning_rate"])
def test_frameless_unexpected_kwarg_that_never_drifted_is_silent(kwarg: str) -> None:
    # output_dir drifted only in one restructured class (trl's PPOConfig): not enough on its own
    assert top(f"TypeError: __init__() got an unexpected keyword argument '{kwarg}'\n") is None


def test_quoted_word_stays_inside_its_clause() -> None:
    line = "The checkpoint you are trying to load has model type `qwen3` but Transformers does not recognize this"
    literal = "` but Transformers does not recognize this"
    assert known_message_start(line, (literal,)) == 0
    # an unpaired quote still starts a clause
    assert known_message_start("it's broken: Found dtype Long but expected Float", (" but expected ",)) == 13


def test_title_only_unrecognized_architecture_is_model_unsupported() -> None:
    text = "The checkpoint you are trying to load has model type `qwen3` but Transformers does not recognize this architecture.\n"
    assert top(text) == ("case", "transformers-too-old-for-architecture")  # model-unsupported's case (KB0050)


# drift-64 (autotrain-advanced#837, bigcode-evaluation-harness#77): a report's markdown ate the backticks around the
# model type, or put a code span around the whole KeyError; the history still dates the type.
@pytest.mark.parametrize("text", [
    "ValueError: The checkpoint you are trying to load has model type modernbert but Transformers does not recognize "
    "this architecture. This could be because of an issue with the checkpoint, or because your version of Transformers "
    "is out of date.\n",
    "The requirements.txt file lists `transformers==4.25.1`, which doesn't support a lot of the newer models (it gives "
    "errors such as `KeyError: 'gpt_bigcode'`).\n",
])
def test_model_type_without_its_backticks_or_inside_a_code_span(text: str) -> None:
    assert top(text) == ("case", "transformers-too-old-for-architecture")


@pytest.mark.parametrize("text", [
    "ValueError: The checkpoint you are trying to load has model type not_a_model_type_xyz but Transformers does not "
    "recognize this architecture.\n",
    "it fails with `KeyError: 'not_a_model_type_xyz'`.\n",
])
def test_unbackticked_type_no_release_knows_is_not_the_case(text: str) -> None:
    assert top(text) != ("case", "transformers-too-old-for-architecture")


@pytest.mark.parametrize(("text", "release"), [
    ("ValueError: The checkpoint you are trying to load has model type modernbert but Transformers does not "
     "recognize this architecture.\n", "4.48.0"),
    ("it gives errors such as `KeyError: 'gpt_bigcode'`).\n", "4.28.0"),
])
def test_drift_section_dates_the_type_read_without_backticks(text: str, release: str) -> None:
    from kb.diagnose.document import diagnosis_document

    doc = diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_knowledge()))
    top_match = doc["matches"][0]
    assert top_match["slug"] == "transformers-too-old-for-architecture"
    assert release in str(top_match.get("drift"))  # the release that added the type, from the drift section

"""rt49 (issue #24, turn 49): what runtime-50's first score taught (benchmarks/results/runtime-turn49-set50-after.txt).

- tables/priors.toml block rt49: flair's and AllenNLP's runs are another trainer's ([[program_line]]: their modules'
  paths, AllenNLP's command), so a shape, NaN, dtype, device or memory error of their models ([program] families) is
  not claimed there, unless the stack's own code raised it.
- families/api-drift.md hfargparser-unused: HfArgumentParser's leftover command-line arguments that are all positional
  (no --flag) are not a field a release renamed.
- kb/diagnose/match.py, drift.py: a bare "KeyError: '<model type>'" of a type known since the API history's first
  model-type release says nothing of the installed transformers' age (the key alone: a wrapper's own table).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.diagnose import drift
from runtime_support import top_answer

DEV = Path(__file__).parent / "fixtures" / "diagnose" / "dev"


@pytest.mark.parametrize("name", [
    # https://github.com/flairNLP/flair/issues/1672 (was shape-mismatch: flair's own forward)
    "runtime-50-flair-1672",
    # https://github.com/himkt/allennlp-optuna/issues/49 (was loss-nan: AllenNLP's trainer under optuna)
    "runtime-50-allennlp-optuna-49",
    # https://github.com/allenai/open-instruct/issues/625 (was api-drift: a YAML path left over by HfArgumentParser)
    "runtime-50-open-instruct-625",
    # https://github.com/ThilinaRajapakse/simpletransformers/issues/803 (was KB0050: a wrapper's own model-type table)
    "runtime-50-simpletransformers-803",
])
def test_reports_left_unclaimed(name: str) -> None:
    text = (DEV / f"{name}.txt").read_text(encoding="utf-8")
    assert top_answer(text) is None


FLAIR = (DEV / "runtime-50-flair-1672.txt").read_text(encoding="utf-8")
FLAIR_FILE = 'File "xxx/PycharmProjects/flair/flair/models/sequence_tagger_model.py", line 541, in forward'


def test_the_same_error_outside_flair_is_answered() -> None:
    """Without flair's path the same reshape error is the family's: the program line is what leaves it unclaimed."""
    assert top_answer(FLAIR.replace(FLAIR_FILE, 'File "train.py", line 541, in forward')) == ("family", "shape-mismatch")


def test_raised_in_the_stack_under_flair_is_answered() -> None:
    """flair's embeddings calling transformers, which raises: the stack's code raised it ([program] `stack`)."""
    text = FLAIR.replace(FLAIR_FILE, FLAIR_FILE.replace("models/sequence_tagger_model.py", "embeddings/token.py")
                         + '\n    x = self.model(**inputs)\n  File "/usr/lib/python3.8/site-packages/transformers/models/'
                         'bert/modeling_bert.py", line 230, in forward')
    assert top_answer(text) == ("family", "shape-mismatch")


ARGPARSER = (DEV / "runtime-50-open-instruct-625.txt").read_text(encoding="utf-8")
LEFTOVER = "['configs/train_configs/sft/default.yaml']"


@pytest.mark.parametrize("leftover", [
    "['--evaluation_strategy', 'steps']",  # a TrainingArguments flag a release removed
    "['configs/a.yaml', '--evaluate_during_training']",  # a flag among positional words
])
def test_argparser_flags_still_answer(leftover: str) -> None:
    assert top_answer(ARGPARSER.replace(LEFTOVER, leftover)) == ("family", "api-drift")


def test_argparser_keys_still_answer() -> None:
    """A config's keys (parse_dict, parse_yaml_file) carry no dashes: "Some keys ..." is read as before."""
    text = "ValueError: Some keys are not used by the HfArgumentParser: ['evaluation_strategy']\n"
    assert top_answer(text) == ("family", "api-drift")


def test_model_type_floor() -> None:
    floor = drift.model_type_floor()
    assert floor is not None
    assert drift.known_model_type("longformer") == floor and drift.dated_model_type("longformer") is None
    assert drift.dated_model_type("qwen2") == drift.known_model_type("qwen2") != floor
    assert drift.dated_model_type("not_a_model_type_xyz") is None


@pytest.mark.parametrize("text, expected", [
    ("KeyError: 'qwen2'\n", ("case", "KB0050")),  # dated by the history: the installed transformers predates it
    # https://github.com/huggingface/transformers/issues/3476 (corpus, model-unsupported): a traceback, so the type's
    # history still stands in for the frame the signature asks
    ('Traceback (most recent call last):\n  File "/home/getalp/kelodjoe/transformers/examples/run_glue.py", line 613, '
     "in main\n    config_class, model_class, tokenizer_class = MODEL_CLASSES[args.model_type]\nKeyError: 'flaubert'\n",
     ("case", "KB0050")),
])
def test_model_type_keyerrors_still_answered(text: str, expected: tuple[str, str]) -> None:
    assert top_answer(text) == expected


# https://github.com/taoyds/spider/issues/42 (was silent): SQLNet's `loss.data.cpu().numpy()[0]` on a torch >= 0.4
def test_zero_dim_loss_read_through_numpy() -> None:
    text = (DEV / "runtime-50-spider-42.txt").read_text(encoding="utf-8")
    assert top_answer(text) == ("family", "api-drift")


@pytest.mark.parametrize("line", [
    # torch's words (0.5 to 1.x, then 1.x+), as public code comments and notes quote the error they met at loss.data[0]
    "IndexError: invalid index of a 0-dim tensor. Use tensor.item() to convert a 0-dim tensor to a Python number",
    "IndexError: invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert "
    "a 0-dim tensor to a number",
])
def test_zero_dim_tensor_indexed(line: str) -> None:
    assert top_answer(line + "\n") == ("family", "api-drift")


@pytest.mark.parametrize("text", [
    "IndexError: too many indices for array\n",  # NumPy's words alone are any program's
    'Traceback (most recent call last):\n  File "eval.py", line 9, in <module>\n    score = scores[0][1]\n'
    "IndexError: too many indices for array: array is 0-dimensional, but 1 were indexed\n",  # no tensor converted
])
def test_numpy_indexing_alone_unclaimed(text: str) -> None:
    assert top_answer(text) is None


# https://github.com/SKTBrain/KoBERT/issues/69 (runtime-51, silent at its first score): torch's words for a ModelOutput
# unpacked as a tuple, in a title without the exception class
def test_model_output_unpacked_title() -> None:
    text = (DEV / "runtime-51-KoBERT-69.txt").read_text(encoding="utf-8")
    assert top_answer(text) == ("family", "api-drift")


def test_tensor_not_str_needs_torch_words() -> None:
    """Another program's "must be a Tensor" sentence is not torch's argument parser."""
    assert top_answer("Training fails: value must be Tensor, not str\n") is None

"""rt49b (turn 49, issue #24): runtime-51's silent reports, each by a rule that generalises (old wordings of a known
family as data, an evidence requirement), with the near forms each rule must leave alone
(benchmarks/results/runtime-turn49b.txt).

1. families/shape-mismatch.md multi-target-not-supported: torch 1.x's THNN/THCUNN kernels said "multi-target not
   supported at .../ClassNLLCriterion.cu:18" (and THArgCheck's "invalid argument 3: multi-target not supported at ..."),
   before ATen's "1D target tensor expected, multi-target not supported".
2. families/model-unsupported.md unrecognized-model-path: "Unrecognized model in <path>." quoted up to the path, and
   transformers 2.0-2.3's "Unrecognized model identifier in <path>. Should contains one of 'bert', ...".
3. tables/priors.toml (rt49b block): "ImportError: cannot import name 'X'" (Python <= 3.6: no module in the message)
   whose failing statement imports from pytorch_pretrained_bert / pytorch_transformers, which the API history does not
   cover.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime_support import top_answer

DEV = Path(__file__).parent / "fixtures" / "diagnose" / "dev"


def fixture(name: str) -> str:
    return (DEV / name).read_text(encoding="utf-8")


# 1. shape-mismatch: torch 1.x's wording -----------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    fixture("runtime-51-Fine-Tuning-BERT-2.txt"),  # the real report: a bare line, no exception class
    "RuntimeError: multi-target not supported at /pytorch/aten/src/THCUNN/generic/ClassNLLCriterion.cu:15\n",
    "RuntimeError: invalid argument 3: multi-target not supported at "
    "/opt/conda/conda-bld/pytorch_1532579245307/work/aten/src/THNN/generic/ClassNLLCriterion.c:22\n",
    "RuntimeError: 1D target tensor expected, multi-target not supported\n",  # ATen's wording, as before
    "RuntimeError: 0D or 1D target tensor expected, multi-target not supported\n",
])
def test_old_torch_multi_target_is_shape_mismatch(text: str) -> None:
    assert top_answer(text) == ("family", "shape-mismatch")


def test_the_words_inside_another_sentence_are_not_the_message() -> None:
    """The old wording is recognised where the message starts with it, not anywhere in a line."""
    assert top_answer("RuntimeError: my sampler says multi-target not supported here\n") is None


# 2. model-unsupported: the message quoted up to the path, and transformers 2.x's wording ------------------------------

@pytest.mark.parametrize("text", [
    fixture("runtime-51-portuguese-bert-11.txt"),  # "ValueError: Unrecognized model in neuralmind_model_tensor/."
    "ValueError: Unrecognized model identifier in ./bert_out. Should contains one of 'bert', 'openai-gpt', 'gpt2', "
    "'transfo-xl', 'xlnet', 'xlm', 'roberta'\n",
    "ValueError: Unrecognized model in ./out. Should have a `model_type` key in its config.json, or contain one of the "
    "following strings in its name: albert, bart, bert\n",  # today's wording, as before
])
def test_unrecognized_model_path_forms(text: str) -> None:
    assert top_answer(text) == ("family", "model-unsupported")


def test_unrecognized_model_followed_by_other_words_stays_unclaimed() -> None:
    assert top_answer("ValueError: Unrecognized model in ./out. Try again later\n") is None


# 3. api-drift: an import from transformers' predecessors ------------------------------------------------------------

def test_pytorch_pretrained_bert_import_is_api_drift() -> None:
    assert top_answer(fixture("runtime-51-BERT-chinese-text-classification-pytorch-3.txt")) == ("family", "api-drift")


PYTORCH_TRANSFORMERS_37 = """\
Traceback (most recent call last):
  File "run_classifier.py", line 12, in <module>
    from pytorch_transformers import WarmupLinearSchedule
ImportError: cannot import name 'WarmupLinearSchedule' from 'pytorch_transformers' \
(/usr/lib/python3.7/site-packages/pytorch_transformers/__init__.py)
"""


def test_pytorch_transformers_import_with_its_module_is_api_drift() -> None:
    assert top_answer(PYTORCH_TRANSFORMERS_37) == ("family", "api-drift")


OTHER_IMPORT_36 = """\
Traceback (most recent call last):
  File "train.py", line 3, in <module>
    from utils.metrics import f1_macro
ImportError: cannot import name 'f1_macro'
"""


def test_another_packages_import_stays_unclaimed() -> None:
    """The same Python 3.6 wording for the user's own module: no library of the stack named, no answer."""
    assert top_answer(OTHER_IMPORT_36) is None


# 4. api-drift: a model's output unpacked as a tuple, its words pasted after prose ------------------------------------

def test_model_output_unpacked_after_prose_is_api_drift() -> None:
    """SKTBrain/KoBERT#45: "에러: dropout(): argument 'input' (position 1) must be Tensor, not str" on the fifth line,
    after the report's prose (the keyword rules read the first three lines; no exception class to parse)."""
    assert top_answer(fixture("runtime-51-KoBERT-45.txt")) == ("family", "api-drift")


@pytest.mark.parametrize("text", [
    "TypeError: linear(): argument 'input' (position 1) must be Tensor, not str\n",
    "dropout(): argument 'input' (position 1) must be Tensor, not str\n",
])
def test_the_typed_error_and_the_title_still_answer(text: str) -> None:
    assert top_answer(text) == ("family", "api-drift")


def test_text_as_token_ids_after_prose_stays_unclaimed() -> None:
    """review49b's exclusion holds for the signature too: embedding()'s 'indices' is the model's input."""
    text = ("I call the model on my prompt.\nout = model(prompt)\nand it fails.\n\n"
            "error: embedding(): argument 'indices' (position 2) must be Tensor, not str\n")
    assert top_answer(text) is None

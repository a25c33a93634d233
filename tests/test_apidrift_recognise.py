"""kb/diagnose/drift.py without the history: the error forms and the versions read from a log."""

from __future__ import annotations

import pytest

from kb.diagnose.drift import recognise
from kb.diagnose.versions import VersionScanner
from kb.diagnose.stream import chunk_lines


@pytest.mark.parametrize(("error_type", "message", "form", "fields"), [
    ("ImportError", "cannot import name 'prepare_model_for_int8_training' from 'peft' (/x/peft/__init__.py)",
     "import-name", {"name": "prepare_model_for_int8_training", "module": "peft"}),
    ("ModuleNotFoundError", "No module named 'transformers.deepspeed'", "no-module", {"module": "transformers.deepspeed"}),
    ("TypeError", "SFTTrainer.__init__() got an unexpected keyword argument 'max_seq_length'",
     "unexpected-kwarg", {"callable": "SFTTrainer.__init__", "name": "max_seq_length"}),
    ("TypeError", "load_dataset() got an unexpected keyword argument 'use_auth_token'",
     "unexpected-kwarg", {"callable": "load_dataset", "name": "use_auth_token"}),
    ("AttributeError", "module 'transformers' has no attribute 'Qwen2VLForConditionalGeneration'",
     "module-attribute", {"name": "Qwen2VLForConditionalGeneration", "module": "transformers"}),
    ("AttributeError", "'TrainingArguments' object has no attribute 'evaluation_strategy'",
     "object-attribute", {"cls": "TrainingArguments", "name": "evaluation_strategy"}),
    ("ValueError", "Some keys are not used by the HfArgumentParser: ['evaluation_strategy']",
     "hfargparser-unused", {"keys": "['evaluation_strategy']"}),
    ("KeyError", "'qwen2'", "model-type", {"model_type": "qwen2"}),
    ("ValueError", "The checkpoint you are trying to load has model type `gemma3` but Transformers does not "
     "recognize this architecture.", "model-type", {"model_type": "gemma3"}),
    ("ValueError", "`rope_scaling` must be a dictionary with two fields, `type` and `factor`, got {'rope_type': 'llama3'}",
     "rope-scaling", {"got": " {'rope_type': 'llama3'}"}),
])
def test_forms(error_type, message, form, fields):
    assert recognise(error_type, message) == (form, fields)


@pytest.mark.parametrize(("error_type", "message"), [
    ("RuntimeError", "CUDA out of memory. Tried to allocate 20.00 MiB"),
    ("KeyError", "'input_ids are missing'"),
    ("KeyError", "'Qwen2RMConfig'"),  # a config class, not a model type
    ("TypeError", "unsupported operand type(s) for +: 'int' and 'str'"),
])
def test_other_errors_are_not_drift(error_type, message):
    assert recognise(error_type, message) is None


def _scan(text: str) -> dict[str, str]:
    scanner = VersionScanner()
    for _ in scanner.scan(chunk_lines(text.splitlines(keepends=True))):
        pass
    return scanner.facts


def test_versions_from_pip_list_pip_show_and_pins():
    log = """Package                  Version
------------------------ ----------
peft                     0.11.1
transformers             4.44.2
Name: trl
Version: 0.12.2
Summary: Train transformer language models with reinforcement learning.
pip install accelerate==0.34.2
- `datasets` version: 2.20.0
  File "/env/lib/python3.10/site-packages/bitsandbytes-0.43.3.dist-info/METADATA"
from trl import SFTTrainer
"""
    assert _scan(log) == {"peft_version": "0.11.1", "transformers_version": "4.44.2", "trl_version": "0.12.2",
                          "accelerate_version": "0.34.2", "datasets_version": "2.20.0",
                          "bitsandbytes_version": "0.43.3"}


def test_no_versions_from_plain_tracebacks():
    log = """  File "/usr/lib/python3.10/site-packages/transformers/trainer.py", line 1532, in train
    return inner_training_loop(
TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'
"""
    assert _scan(log) == {}

"""Issue #25: general fixes found on the older drift batches (drift-14, drift-32, drift-33), each with an input
written as the real reports show it: Python 2's "'module' object has no attribute", a name that is a submodule,
a class deprecated as a whole, a report's paraphrase of the keyword TypeError, and a CRLF script's '\\r' argument
(kb/diagnose/drift.py, kb/apidrift/answer.py, families/api-drift.md)."""

from __future__ import annotations

import pytest

from kb.apidrift.answer import _pointed_to
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.drift import drift_section, recognise
from kb.knowledge.registry import load_knowledge


def diagnose(text: str):
    return diagnose_lines(text.splitlines(keepends=True), load_knowledge())


def test_python2_module_form_takes_the_module_from_the_line_that_reads_the_attribute() -> None:
    found = recognise("AttributeError", "'module' object has no attribute 'no_grad'",
                      ['File "submission.py", line 79, in test with self.model.eval(), torch.no_grad():'])
    assert found == ("module-attribute", {"name": "no_grad", "module": "torch", "modules": "torch"})
    # no nearby line reads that attribute off anything: nothing to judge
    assert recognise("AttributeError", "'module' object has no attribute 'no_grad'", ["x = 1"]) is None
    # self/cls are not modules
    assert recognise("AttributeError", "'module' object has no attribute 'fit'", ["self.fit()"]) is None


def test_python2_module_form_is_answered_end_to_end() -> None:
    """drift-33 PSMNet-20's shape: the error line, then a line quoting the code that read it."""
    diagnosis = diagnose("AttributeError: 'module' object has no attribute 'no_grad'\n"
                         "error info: File \"submission.py\", line 79, in test with torch.no_grad():\n")
    assert diagnosis.answers and diagnosis.answers[0].match.entry.family == "api-drift"
    drift = diagnosis.answers[0].drift
    assert drift is not None and drift["library"] == "torch"
    assert any("Python 2" in f for f in drift["facts"]) and any(f.startswith("upgrade") for f in drift["fixes"])


def test_python2_module_form_needs_a_stack_library_nearby() -> None:
    assert not diagnose("AttributeError: 'module' object has no attribute 'foo'\n  x = mylib.foo()\n").answers


@pytest.mark.parametrize(("error_type", "message", "subject", "removed_in"), [
    # a submodule imported by name (drift-33 MobileAgent-21): the module's releases, not "no release has it"
    ("ImportError", "cannot import name '_datasets_server' from 'datasets.utils'",
     "import datasets.utils._datasets_server", "2.19.0"),
    # a submodule read as an attribute (drift-33 NAS-FCOS-13)
    ("AttributeError", "module 'torch' has no attribute '_six'", "import torch._six", "2.0.0"),
])
def test_a_name_that_is_a_submodule_is_answered_with_the_module_s_releases(
        error_type: str, message: str, subject: str, removed_in: str) -> None:
    d = drift_section(error_type, message)
    assert d is not None and d["subject"] == subject and d["removed_in"] == removed_in
    assert any("is a module of" in f for f in d["facts"])
    assert any(f.startswith("no replacement recorded") for f in d["facts"])


def test_a_submodule_present_in_the_installed_release_is_to_be_imported() -> None:
    d = drift_section("AttributeError", "module 'torch.utils' has no attribute 'tensorboard'", {"torch_version": "2.4.0"})
    assert d is not None and d["removed_in"] is None
    assert "import it explicitly: import torch.utils.tensorboard" in d["fixes"]
    # an import by name (from torch.utils import tensorboard) imports the submodule itself: no such advice
    d = drift_section("ImportError", "cannot import name 'tensorboard' from 'torch.utils'", {"torch_version": "2.4.0"})
    assert d is not None and not any(f.startswith("import it explicitly") for f in d["fixes"])


def test_a_class_deprecated_as_a_whole_names_the_callable_its_message_points_to() -> None:
    """ModelFilter (huggingface_hub 0.24.0): "Please pass the filter parameters as keyword arguments directly to
    the `list_models` method" is the replacement (drift-33 huggingface_hub-2478)."""
    d = drift_section("ImportError", "cannot import name 'ModelFilter' from 'huggingface_hub'")
    assert d is not None and d["removed_in"] == "0.24.0" and d["renamed_to"] == "list_models"
    assert "port: from huggingface_hub import list_models" in d["fixes"]
    assert not any(f.startswith("no replacement recorded") for f in d["facts"])


@pytest.mark.parametrize(("message", "old", "expect"), [
    ("Please pass the filter parameters as keyword arguments directly to the `list_models` method.", "ModelFilter",
     "list_models"),
    ("`foo` is deprecated, pass it to `bar` or to `baz` instead.", "foo", None),  # two targets: none taken
    ("`foo` is deprecated and will be removed.", "foo", None),
])
def test_pointed_to(message: str, old: str, expect: str | None) -> None:
    assert _pointed_to(message, old) == expect


def test_a_report_s_paraphrase_of_the_keyword_error_is_answered() -> None:
    """drift-32 alignment-handbook-207: "SFTrainer: got unexpected keyword model_init_kwargs" (a typo'd class)."""
    found = recognise("", "run_sft.py SFTrainer: got unexpected keyword model_init_kwargs")
    assert found == ("unexpected-kwarg", {"callable": "SFTrainer.__init__", "name": "model_init_kwargs"})
    diagnosis = diagnose("run_sft.py SFTrainer: got unexpected keyword model_init_kwargs\n")
    drift = diagnosis.answers[0].drift
    assert drift is not None and drift["subject"] == "trl.SFTTrainer(model_init_kwargs=...)"
    assert drift["removed_in"] == "0.13.0" and drift["moved_to"] == "trl.SFTConfig.model_init_kwargs"


def test_a_near_name_is_taken_only_when_it_took_the_keyword() -> None:
    assert drift_section("TypeError", "SFTrainer.__init__() got an unexpected keyword argument 'no_such_kw'") is None


def test_an_error_without_its_callable_is_left_to_the_other_stages() -> None:
    assert recognise("TypeError", "got an unexpected keyword argument 'strict'") is None


def test_a_crlf_script_s_carriage_return_is_not_api_drift() -> None:
    """drift-14 LLaVA-MoD-16: the only unused argument is '\\r' (the next lines of the script ran as commands)."""
    diagnosis = diagnose("  File \"/x/site-packages/transformers/hf_argparser.py\", line 367, in "
                         "parse_args_into_dataclasses\n"
                         "ValueError: Some specified arguments are not used by the HfArgumentParser: ['\\r']\n")
    assert not any(a.match.entry.family == "api-drift" for a in diagnosis.answers)
    diagnosis = diagnose("  File \"/x/site-packages/transformers/hf_argparser.py\", line 367, in "
                         "parse_args_into_dataclasses\n"
                         "ValueError: Some specified arguments are not used by the HfArgumentParser: "
                         "['--evaluation_strategy', 'steps']\n")
    assert diagnosis.answers and diagnosis.answers[0].match.entry.family == "api-drift"


def test_a_bare_init_takes_its_class_from_the_code_quoted_after_the_error() -> None:
    """drift-14 transformers-7974's shape: Python <= 3.9's bare __init__(), the report's code below the error; of
    the classes called there, the one that took the keyword in some release."""
    diagnosis = diagnose("TypeError: __init__() got an unexpected keyword argument 'model_init_kwargs'\n"
                         "these are my code:\n"
                         "> args = SFTConfig(output_dir='out')\n"
                         "> trainer = SFTTrainer(model, args=args, model_init_kwargs={})\n")
    drift = diagnosis.answers[0].drift
    assert drift is not None and drift["subject"] == "trl.SFTTrainer(model_init_kwargs=...)"
    assert any("line after the error" in f for f in drift["facts"])

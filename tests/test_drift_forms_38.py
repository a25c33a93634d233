"""Issue #25, drift-38's misses (and drift-36's KnowLM-152 and PromptKG-4) made general: a keyword that reaches a
callable which never took it through a caller's **kwargs is dated by the caller that dropped it; a private name is
not reported as absent from every release (the history records public names only); doubled spaces inside the
message. Inputs are the reports' own lines (tests/fixtures/diagnose/dev/drift-38-*); the releases are the history's
(tables/api-history.json.gz), read from the wheels."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.diagnose.drift import drift_section, recognise
from drift_support import top


# transformers#33432: datasets 3.0.0 dropped load_dataset(task=); the keyword then reaches BuilderConfig
BUILDER = ("FAILED examples/tensorflow/test_tensorflow_examples.py::ExamplesTests::test_run_image_classification - "
           "TypeError: BuilderConfig.__init__() got an unexpected keyword argument 'task'")


def test_a_keyword_forwarded_to_a_callable_that_never_took_it_is_dated_by_its_caller() -> None:
    section = drift_section("TypeError", "BuilderConfig.__init__() got an unexpected keyword argument 'task'")
    assert section is not None
    assert section["subject"] == "datasets.load_dataset(task=...)"
    assert (section["added_in"], section["removed_in"]) == ("1.7.0", "3.0.0")
    assert any("accepts `task` in no covered datasets release" in f for f in section["facts"])
    assert any("no replacement recorded" in f for f in section["facts"])
    answer = top(BUILDER)
    assert answer is not None and answer.match.entry.family == "api-drift"
    assert answer.drift is not None and answer.drift["removed_in"] == "3.0.0"


@pytest.mark.parametrize("message", [
    # still accepted by the latest release somewhere: nothing dropped it on the way, so no caller is named
    "BuilderConfig.__init__() got an unexpected keyword argument 'no_such_keyword_anywhere'",
    # a keyword many callables changed, each in its own release: no single caller
    "BuilderConfig.__init__() got an unexpected keyword argument 'token'",
])
def test_no_caller_is_named_when_none_or_several_changed(message: str) -> None:
    section = drift_section("TypeError", message)
    assert section is None or section["subject"].startswith("datasets.BuilderConfig(")


# alpaca_lora_4bit#114 (peft.utils._get_submodules, peft 0.3.0) and drift-36's PromptKG-4 (_BaseLazyModule, gone in
# transformers 4.9.0 for _LazyModule): private names, which the history does not record; the private-name layer
# (kb/apidrift/private.py, tables/api-history-private.json.gz) scanned every cached wheel for them
def test_a_private_name_is_dated_from_the_scanned_wheels() -> None:
    drift = top("ImportError: cannot import name '_get_submodules' from 'peft.utils'\n").drift
    assert drift is not None and drift["library"] == "peft"
    assert (drift["added_in"], drift["removed_in"]) == ("0.3.0", None)
    assert any("added in peft 0.3.0 (absent from 0.2.0)" in f for f in drift["facts"])
    assert any("peft>=0.3" in fix for fix in drift["fixes"])


def test_a_private_name_dropped_for_a_new_one_is_told_as_renamed() -> None:
    drift = top("Exception has occurred: ImportError\n"
                "cannot import name '_BaseLazyModule' from 'transformers.file_utils'\n").drift
    assert drift is not None and drift["library"] == "transformers"
    assert drift["removed_in"] == "4.9.0"
    assert drift["renamed_to"] == "transformers.file_utils._LazyModule"
    assert any("appears renamed" in f for f in drift["facts"])
    assert any("'transformers>=4.2,<4.9'" in fix for fix in drift["fixes"])


@pytest.mark.parametrize(("line", "lib", "module"), [
    # no scanned release binds it: the layer has no record
    ("ImportError: cannot import name '_no_such_private_name' from 'peft.utils'", "peft", "peft.utils"),
    # a library whose wheels are not scanned
    ("ImportError: cannot import name '_no_such_private_name' from 'bitsandbytes.nn'", "bitsandbytes", "bitsandbytes.nn"),
])
def test_an_unrecorded_private_name_is_not_said_to_be_in_no_release(line: str, lib: str, module: str) -> None:
    answer = top(line + "\n")
    assert answer is not None and answer.match.entry.family == "api-drift"
    drift = answer.drift
    assert drift is not None and drift["library"] == lib
    assert not any("release from" in f and "has it" in f for f in drift["facts"])
    assert not any("in any module" in f for f in drift["facts"])
    assert any("private name" in f and module in f and "cannot date" in f for f in drift["facts"])
    assert drift["added_in"] is None and drift["removed_in"] is None


def test_the_private_scan_reads_top_level_bindings_only() -> None:
    from kb.apidrift.private import bound_names

    source = ("import os\nfrom .a import (x,\n    _moved as _alias, _kept)\n_X = 1\ndef _f():\n    _inner = 2\n"
              "class _C:\n    _attr = 3\ntry:\n    from .b import _tried\nexcept ImportError:\n    pass\n"
              "if TYPE_CHECKING:\n    from .c import _typing_only\n")
    assert bound_names(source) == {"_alias", "_kept", "_X", "_f", "_C", "_tried"}


def test_a_public_name_is_still_dated() -> None:
    drift = top("ImportError: cannot import name 'GenerationConfig' from 'transformers.generation.utils'\n").drift
    assert drift is not None and drift["added_in"] == "4.26.0"
    assert not any("private name" in f for f in drift["facts"])


# drift-36 KnowLM-152: the report doubled the space before the keyword
KNOWLM = ("复现信息抽取时报错\n"
          "在复现信息抽取时，出现以下报错: TypeError: __init__() got an unexpected keyword argument  'load_in_4bit'\n")


def test_doubled_spaces_in_the_message_are_read_as_one() -> None:
    assert recognise("TypeError", "__init__() got an unexpected keyword argument  'load_in_4bit'") == (
        "unexpected-kwarg", {"callable": "__init__", "name": "load_in_4bit"})
    answer = top(KNOWLM)
    assert answer is not None and answer.match.entry.family == "api-drift"
    assert answer.drift is not None and answer.drift["added_in"] == "4.30.0"


# drift-38's reports the history answers in full, one per form, from the fixtures' own text: the subject and the
# release each label names (the labels were read from the wheels, not from kb's history)
FIXTURES = Path(__file__).parent / "fixtures" / "diagnose" / "dev"


@pytest.mark.parametrize(("report", "subject", "key", "release"), [
    ("KIVI-3", "transformers.LlamaConfig.attention_dropout", "added_in", "4.36.0"),
    ("datasets-7149", "datasets.DatasetInfo(task_templates=...)", "removed_in", "3.0.0"),
    ("trian_ppo-1", "trl.PPOConfig(kl_penalty=...)", "removed_in", "0.12.0"),
    ("huggingface_hub-2996", "from huggingface_hub import errors", "added_in", "0.22.0"),
    ("Chinese-LangChain-22", "import transformers.generation", "added_in", "4.25.0"),
    ("mteb-1465", "import datasets.tasks", "removed_in", "3.0.0"),
    ("textgen-2225", "from bitsandbytes.nn import Linear4bit", "added_in", "0.39.0"),
    ("Yi-241", "transformers.PreTrainedTokenizerBase.apply_chat_template", "added_in", "4.34.0"),
    ("PuLID-179", "from huggingface_hub.errors import LocalEntryNotFoundError", "added_in", "0.25.0"),
])
def test_drift_38_reports_are_dated(report: str, subject: str, key: str, release: str) -> None:
    answer = top((FIXTURES / f"drift-38-{report}.txt").read_text())
    assert answer is not None and answer.match.entry.family == "api-drift"
    assert answer.drift is not None
    assert (answer.drift["subject"], answer.drift[key]) == (subject, release)


def test_an_installed_release_in_a_gap_is_told_so() -> None:
    """transformers-stream-generator#13: generation.utils.SampleOutput is absent from 4.37.0 only (4.37.1 put it
    back as an alias), and the reporter ran 4.37.0."""
    drift = top((FIXTURES / "drift-38-transformers-stream-generator-13.txt").read_text()).drift
    assert drift is not None and drift["installed"] == "4.37.0"
    assert any("4.37.0 lies in a gap" in f and "4.37.1 has it again" in f for f in drift["facts"])
    assert "upgrade past the gap: pip install -U 'transformers>=4.37.1,<5.0.0'" in drift["fixes"]


def test_no_gap_is_told_for_an_installed_release_that_has_the_name() -> None:
    drift = top("from transformers.generation.utils import SampleOutput\nImportError: cannot import name "
                "'SampleOutput' from 'transformers.generation.utils'\ntransformers 4.36.2\n").drift
    assert drift is not None and drift["installed"] == "4.36.2"
    assert not any("lies in a gap" in f for f in drift["facts"])


# TextBox#362: accelerate 0.20.0 dropped GradientState._set_end_of_dataloader (a private method; the class is not one
# the history's member records cover)
TEXTBOX = (FIXTURES / "drift-38-TextBox-362.txt")


def test_a_private_member_of_an_untracked_class_is_dated() -> None:
    answer = top(TEXTBOX.read_text())
    assert answer is not None and answer.match.entry.family == "api-drift"
    drift = answer.drift
    assert drift is not None and drift["subject"] == "accelerate.state.GradientState._set_end_of_dataloader"
    assert (drift["added_in"], drift["removed_in"]) == ("0.11.0", "0.20.0")
    assert any("no replacement recorded" in f for f in drift["facts"])
    assert "or keep the code and install the releases it was written for: pip install 'accelerate>=0.11,<0.20'" \
        in drift["fixes"]


def test_the_private_member_scan_reads_a_class_body_only() -> None:
    from kb.apidrift.private import class_members

    source = ("class A(B):\n    \"\"\"doc\"\"\"\n    _x = 1\n    def _f(self):\n        _inner = 2\n"
              "    async def _g(self):\n        pass\n    class _Nested:\n        _n = 3\n    def __init__(self):\n"
              "        pass\ndef _top():\n    pass\nclass C:\n    pass\n")
    assert class_members(source) == {"A": {"_x", "_f", "_g"}}


def test_a_private_member_several_classes_define_is_not_guessed(monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.apidrift import private

    table = {"libraries": {
        "accelerate": {"versions": ["0.1.0", "0.2.0"], "names": {},
                       "members": {"accelerate.a.State": {"_x": "P2"}, "accelerate.b.Other": {"_y": "A1P1"}}},
        "trl": {"versions": ["0.1.0"], "names": {}, "members": {"trl.c.State": {"_x": "P1"}}}}}
    monkeypatch.setattr(private, "_table", lambda: table)
    assert private.private_member_states("State", "_x") is None  # two classes named State define it
    assert private.private_member_states("Other", "_y") == ("accelerate", "accelerate.b.Other", ["0.1.0", "0.2.0"], "AP")
    assert private.private_member_states("Other", "_x") is None  # not defined by that class

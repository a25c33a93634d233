"""Issue #25, drift-49's misses made general (tests/fixtures/diagnose/drift-49-*): a private member that a class's own
body stopped defining (kb/apidrift/private_members.py).

(1) The private-name scan reads a class's member as absent only where no module of the wheel mentions it, so a method
that many model classes copied (`_prepare_decoder_attention_mask`) reads "unknown" on LlamaModel from 4.35.0 on, as
long as one model keeps a copy. The body stopped defining it; nothing LlamaModel inherits from defines it: gone.
(2) A report's own subclass ("'InstructAny2PixLMModel' object has no attribute '_prepare_decoder_attention_mask'")
names no covered class: the member's name is read alone when most of the classes that defined it dropped it in one
release; never for a builtin type nor a member no release mostly dropped.
"""

from __future__ import annotations

import pytest

from kb.apidrift.answer import answer
from kb.apidrift.private_members import body_dropped, common_drop
from drift_support import DEV, drift_of

NAME = "_prepare_decoder_attention_mask"


def test_a_tracked_class_whose_body_dropped_the_member() -> None:
    doc = answer("object-attribute", {"cls": "LlamaModel", "name": NAME}, {}, None)
    assert doc is not None
    assert doc["removed_in"] == "4.35.0"
    assert doc["subject"].endswith("LlamaModel." + NAME)
    assert any("last release with it: 4.34.1" in fact for fact in doc["facts"])
    assert any("no replacement recorded" in fact for fact in doc["facts"])
    assert "pip install 'transformers<4.35'" in " ".join(doc["fixes"])


def test_a_reports_own_subclass_is_read_by_the_member() -> None:
    """drift-49-InstructAny2Pix-8: no signature, no covered class; the history answers (was silent)."""
    drift = drift_of((DEV / "drift-49-InstructAny2Pix-8.txt").read_text())
    assert drift is not None and drift["removed_in"] == "4.35.0"
    assert any("is not a class of any covered release" in fact and "4.34.1" in fact for fact in drift["facts"])


def test_a_subclass_named_like_a_model_shows_that_model_first() -> None:
    doc = answer("object-attribute", {"cls": "LlamaParallelModel", "name": NAME}, {}, None)
    assert doc is not None and doc["removed_in"] == "4.35.0"
    said = next(fact for fact in doc["facts"] if "dropped it" in fact)
    assert said.split(" of them (", 1)[1].startswith("LlamaModel, ")


def test_an_older_installed_release_is_said_to_have_it() -> None:
    doc = answer("object-attribute", {"cls": "MyLlamaModel", "name": NAME}, {"transformers_version": "4.31.0"}, None)
    assert doc is not None
    assert any(fact.startswith("the installed transformers 4.31.0 has it:") for fact in doc["facts"])


@pytest.mark.parametrize("cls", ["NoneType", "str", "module", "lowercase_thing"])
def test_no_reading_for_builtin_types(cls: str) -> None:
    doc = answer("object-attribute", {"cls": cls, "name": NAME}, {}, None)
    assert doc is None or doc.get("removed_in") != "4.35.0"


def test_a_member_no_release_mostly_dropped_is_not_read() -> None:
    """`_init_weights` is defined by hundreds of model classes and never dropped at once."""
    import kb.apidrift.history as history

    assert common_drop("_init_weights", history.load_history().modules) is None


def _modules(*present: str):  # noqa: ANN202 - a modules_at callable
    return lambda _release: set(present)


LLAMA = "transformers.models.llama.modeling_llama.LlamaModel"


@pytest.mark.parametrize(("other", "dropped"), [
    ("transformers.models.opt.modeling_opt.OPTDecoder", True),  # another model's copy: not a base
    ("transformers.models.llama.modeling_llama.LlamaPreTrainedModel", False),  # a class beside it may be its base
    ("transformers.modeling_utils.PreTrainedModel", False),  # the shared code may be its base
])
def test_body_dropped_needs_no_possible_base_with_it(other: str, dropped: bool) -> None:
    scanned = ["4.34.1", "4.35.0"]
    found = [("transformers", LLAMA, scanned, "PU"), ("transformers", other, scanned, "PP")]
    got = body_dropped("transformers", LLAMA, NAME, 1, scanned, "PU", found,
                       _modules("transformers.models.llama.modeling_llama"))
    assert got is dropped


def test_body_dropped_needs_the_module_still_there() -> None:
    scanned = ["4.34.1", "4.35.0"]
    found = [("transformers", LLAMA, scanned, "PU")]
    assert not body_dropped("transformers", LLAMA, NAME, 1, scanned, "PU", found, _modules())
    assert not body_dropped("transformers", LLAMA, NAME, 1, scanned, "PU", found, _modules("transformers.other"))
    assert body_dropped("transformers", LLAMA, NAME, 1, scanned, "PU", found,
                        _modules("transformers.models.llama.modeling_llama"))


def test_an_exported_class_is_never_read_by_the_others() -> None:
    """Kosmos2TextTransformer keeps `_prepare_decoder_attention_mask` after 4.35.0 and transformers exports it: the
    release most other classes dropped it in is not said of it."""
    doc = answer("object-attribute", {"cls": "Kosmos2TextTransformer", "name": NAME}, {}, None)
    assert doc is None or doc.get("removed_in") != "4.35.0"


def test_a_scanned_class_is_never_read_by_the_others() -> None:
    """A class the private scan records under that short name speaks through its own record, even where no export
    names it (a history whose exports miss it): not through the release the other classes mostly dropped it in."""
    from kb.apidrift.answer import Drift, _private_member_by_name
    from kb.apidrift.history import load_history

    real = load_history()

    class NoExports:  # the shipped history, but no class exported and none tracked
        def __getattr__(self, attr: str):  # noqa: ANN204 - delegation
            return getattr(real, attr)

        def exporting_modules(self, lib: str, name: str, version: str | None = None) -> list[str]:
            return []

        def find_classes(self, name: str, lib: str | None = None) -> list:
            return []

    fake = NoExports()
    assert _private_member_by_name(Drift("object-attribute", None), fake, "OPTDecoder", NAME, {}, None) is None
    read = _private_member_by_name(Drift("object-attribute", None), fake, "MyOPTDecoder", NAME, {}, None)
    assert read is not None and read.doc["removed_in"] == "4.35.0"

"""tables/priors.toml's qa38 section: forum reports' mechanisms (corpus/reports-qa-34.jsonl), each on the form the
report takes and on near forms it must decline."""

from __future__ import annotations

import pytest
from rules_support import SP, tb, top

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.knowledge.registry import load_knowledge

PEFT_LOAD = (f"{SP}/peft/peft_model.py", 163, "from_pretrained")


def test_adapter_config_without_peft_type() -> None:
    # ausboss/llygma-13b-lora/1: the excerpt as the discussion shows it (a Windows path cut at its start)
    text = 'peft\\peft_model.py", line 163, in from_pretrained\n    config = PEFT_TYPE_TO_CONFIG_MAPPING[\nKeyError: None\n'
    assert top(text) == ("adapter-config", "family-prior")
    full = tb(PEFT_LOAD, error="KeyError: None").replace("    x = call()\nKeyError",
                                                        "    config = PEFT_TYPE_TO_CONFIG_MAPPING[\nKeyError")
    assert top(full)[0] == "adapter-config"


@pytest.mark.parametrize("text", [
    # any dict's "KeyError: None", no peft lookup near it
    tb((f"{SP}/datasets/arrow_dataset.py", 2800, "map"), error="KeyError: None"),
    # peft's lookup with a real type name: another error (an unknown adapter type), not a config without peft_type
    'peft/peft_model.py", line 163, in from_pretrained\n    config = PEFT_TYPE_TO_CONFIG_MAPPING[\nKeyError: \'LORA2\'\n',
])
def test_near_forms_are_declined(text: str) -> None:
    # The KeyError-None rule (an error prior) must not take them. peft's raising frame may still decide the family by
    # its own prior ("prior:frame"), as it does for the same traceback with its full path: a cut frame line is read as
    # the frame it is (runtime46), so only the error prior's signature tells the rule's answer apart.
    doc = diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_knowledge()))
    assert [m["signature"] for m in doc["matches"] if m["family"] == "adapter-config"] in ([], ["prior:frame"])

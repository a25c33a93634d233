"""review50c (turn 50): defects found in the turn's later merges (benchmarks/results/review-turn50c.txt), each shown by
an input; the near forms each fix must leave alone are controls."""

from __future__ import annotations

import pytest

from runtime_support import top_answer
from test_rt50c import OLD_CONFIG_FRAMES


# rt50c's transformers 3.x rule ("file <id>/config.json not found" -> hub-access) says a path of the user's own is not
# its; a Trainer checkpoint folder named without "./" (output_dir="output", then "output/checkpoint-500") is the user's
# own, not a Hub id shadowed by a folder: it was claimed hub-access.
@pytest.mark.parametrize("name", ["output/checkpoint-500", "outputs/checkpoint-1000", "checkpoint-500",
                                  "results/checkpoint_200"])
def test_a_trainer_checkpoint_folder_without_its_config_is_not_hub_access(name: str) -> None:
    assert top_answer(OLD_CONFIG_FRAMES + f"OSError: file {name}/config.json not found\n") != ("family", "hub-access")


@pytest.mark.parametrize("name", ["bert-base-uncased", "microsoft/deberta-v3-base", "my-org/checkpoint-style-model"])
def test_a_hub_id_read_as_a_folder_stays_hub_access(name: str) -> None:
    assert top_answer(OLD_CONFIG_FRAMES + f"OSError: file {name}/config.json not found\n") == ("family", "hub-access")


# case50's KB0054 (an adapter saved by a newer peft: "upgrade peft") excludes the reverse direction's key enable_lora,
# not its twin merge_weights: the two LoraConfig parameters kb's API history has removed (peft 0.1.0-0.2.0). An old
# adapter_config.json with merge_weights read by peft 0.3-0.13 (the dev corpus's qa-38 report,
# huggingface.co/dominguesm/xlm-roberta-base-lora-language-detection/discussions/3: "remove merge_weights") was
# answered KB0054 once its traceback shows peft's loading frames.
PEFT_LOADING = (
    "Traceback (most recent call last):\n"
    "  File \"/content/infer.py\", line 9, in <module>\n"
    "    model = PeftModel.from_pretrained(base, \"my-lora\")\n"
    "  File \"/usr/local/lib/python3.10/dist-packages/peft/peft_model.py\", line 304, in from_pretrained\n"
    "    config = PEFT_TYPE_TO_CONFIG_MAPPING[\n"
    "  File \"/usr/local/lib/python3.10/dist-packages/peft/config.py\", line 134, in from_pretrained\n"
    "    config = config_cls(**kwargs)\n"
)


def test_the_removed_key_merge_weights_is_not_an_adapter_saved_by_a_newer_peft() -> None:
    got = top_answer(PEFT_LOADING + "TypeError: LoraConfig.__init__() got an unexpected keyword argument 'merge_weights'\n")
    assert got != ("case", "KB0054")
    assert got == ("family", "api-drift")


@pytest.mark.parametrize("key", ["loftq_config", "use_dora", "eva_config"])
def test_a_newer_peft_s_key_stays_kb0054(key: str) -> None:
    got = top_answer(PEFT_LOADING + f"TypeError: LoraConfig.__init__() got an unexpected keyword argument '{key}'\n")
    assert got == ("case", "KB0054")

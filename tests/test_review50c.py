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

"""What turn 50's wrong50 (issue #24) changed; benchmarks/results/wrong-turn50.txt says why.

1. The boundary of a save under DeepSpeed ZeRO-3 (families/checkpoint-io.md, sharding-config.md, hang.md: "Boundary:
   saving under DeepSpeed ZeRO-3 or FSDP"): a save that fails or comes out empty is sharding-config's, one that hangs is
   hang's, loading back or resuming is checkpoint-io's. kb's title rules (tables/priors.toml [[keyword]]) follow it:
   before, a title naming ZeRO-3 and a failed save answered checkpoint-io or sharding-config by its wording ("zero3 error
   while saving the model" checkpoint-io, "zero3 保存模型报错" sharding-config), a stuck save sharding-config.
"""

from __future__ import annotations

import pytest

from corpus_support import record_of
from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge


def _top(text: str) -> str | None:
    answers = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers
    if not answers:
        return None
    entry = answers[0].match.entry
    return entry.family if entry.kind == "case" else entry.key  # type: ignore[union-attr]


# A save under ZeRO stage 3 that fails (no file-system or format error shown): sharding-config. The first four answered
# checkpoint-io (or nothing) before, through checkpoint-io's save rules, which came first in the table.
SAVE_FAILS = [
    "Zero3 saving checkpoint error",
    "zero3 error while saving the model",
    "Error when saving model with deepspeed zero 3",
    "ZeRO-3 save_model fails",
    "zero3 保存模型报错",
    "DeepSpeed ZeRO-3 save model fails",
]


@pytest.mark.parametrize("title", SAVE_FAILS)
def test_a_failed_save_under_zero3_is_sharding_config(title: str) -> None:
    assert _top(title) == "sharding-config"


# A save under ZeRO stage 3 that hangs: hang (the first answered sharding-config before: hang's own rule needs a
# training word).
SAVE_HANGS = [
    "Model saving is stuck with zero stage 3",
    "ZeRO-3 save model hangs",
    "[BUG] save_model hangs with deepspeed zero3",
    "deepspeed zero3 训练保存模型时卡住",
]


@pytest.mark.parametrize("title", SAVE_HANGS)
def test_a_save_that_hangs_under_zero3_is_hang(title: str) -> None:
    assert _top(title) == "hang"


def test_loading_back_what_zero3_saved_is_not_sharding_config() -> None:
    # the file already written is the problem (checkpoint-io), or the title cannot tell: never sharding-config
    assert _top("Cannot load the model saved with zero3") != "sharding-config"
    assert _top("Cannot resume from checkpoint with zero3") == "checkpoint-io"
    assert _top("zero3 checkpoint loading error") == "checkpoint-io"


def test_saves_without_zero3_keep_checkpoint_io() -> None:
    assert _top("Trainer crashes when saving checkpoint") == "checkpoint-io"
    assert _top("Trainer error while saving the model") == "checkpoint-io"
    assert _top("LoRA adapter saving fails") == "checkpoint-io"
    assert _top("lora 模型保存报错") == "checkpoint-io"


def test_a_question_about_saving_under_zero3_is_no_failure() -> None:
    assert _top("How to save model with zero3?") is None


@pytest.mark.parametrize("rid,family", [
    # the dev corpus's labels the boundary was read from (titles only: no error output in the record)
    ("gh:huggingface/accelerate#3508", "sharding-config"),
    ("gh:lm-sys/FastChat#1271", "sharding-config"),
    ("gh:JIA-Lab-research/LongLoRA#160", "sharding-config"),
])
def test_dev_corpus_zero3_saves(rid: str, family: str) -> None:
    record = record_of(rid)
    assert record["label"]["family"] == family and not record["error"].strip()
    assert _top(record["title"]) == family


def test_an_empty_file_loaded_back_is_checkpoint_io() -> None:
    record = record_of("gh:zjunlp/KnowUnDo#3")
    assert record["label"]["family"] == "checkpoint-io"
    assert _top(record["error"]) == "checkpoint-io"


# 2. api-drift's object-attribute-stack-class reads "'<X>For<Task>' object has no attribute '<a>'" as the stack's class
#    and a release that changed it. A model class no covered release of the stack defines or exports (the API history,
#    families/api-drift.md's class_capture) is a model's remote code: nothing of the stack's history to answer with.
@pytest.mark.parametrize("rid", ["gh:zai-org/ChatGLM-6B#67", "gh:axolotl-ai-cloud/axolotl#1053"])
def test_a_remote_code_model_class_is_not_the_stacks(rid: str) -> None:
    record = record_of(rid)
    assert record["label"]["family"] == "unknown-family"
    assert "object has no attribute" in record["error"]
    assert _top(record["error"]) is None


@pytest.mark.parametrize("line", [
    "AttributeError: 'LlamaForCausalLM' object has no attribute 'merge_and_unload'",  # transformers defines it
    "AttributeError: 'IdeficsForVisionText2Text' object has no attribute 'load_adapter'",  # exported from 4.32 on
    "AttributeError: 'AutoModelForCausalLMWithValueHead' object has no attribute 'base_model_prefix'",  # trl's
    "AttributeError: 'TrainingArguments' object has no attribute 'evaluation_strategy'",  # not a model class
])
def test_the_stacks_classes_keep_api_drift(line: str) -> None:
    assert _top(line) == "api-drift"


def test_remote_code_with_its_frame_is_still_read_as_remote_code() -> None:
    text = ("Traceback (most recent call last):\n"
            '  File "/root/.cache/huggingface/modules/transformers_modules/chatglm-6b/modeling_chatglm.py", line 1190, '
            "in forward\n    if self.model_parallel:\n"
            "AttributeError: 'ChatGLMForConditionalGeneration' object has no attribute 'model_parallel'\n")
    assert _top(text) == "api-drift"

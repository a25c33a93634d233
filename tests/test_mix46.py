"""What gh-mix-19's first score (benchmarks/results/corpus-turn46-mix19-first-score.txt) and the dev corpus's kb-family
silences taught in turn 46 (mix46, issue #24); benchmarks/results/corpus-turn46-mix19-rules.txt says what each change
turned right. Each test names the corpus report its form was written from and the near forms that must keep their answer.
The learned fallback is left out: these tests look at what the rules answer."""

from __future__ import annotations

import pytest
from rules_support import SP, families, ruled, tb, top

# ---- 1. trl's model wrappers are the stack's classes (families/api-drift.md, the three stack-class signatures) ----------


def test_an_attribute_missing_on_trls_value_head_model_is_api_drift() -> None:
    """https://github.com/huggingface/trl/issues/2718 (gh-mix-19): a script built for the PPOTrainer that trl rewrote
    passes AutoModelForCausalLMWithValueHead where a sequence-classification model is read."""
    text = "AttributeError: 'AutoModelForCausalLMWithValueHead' object has no attribute 'base_model_prefix'\n"
    assert top(text) == ("api-drift", "family-evidence")
    seq2seq = "AttributeError: 'AutoModelForSeq2SeqLMWithValueHead' object has no attribute 'is_peft_model'\n"
    assert top(seq2seq) == ("api-drift", "family-evidence")
    wrapper = "AttributeError: 'PreTrainedModelWrapper' object has no attribute 'supports_rm_adapter'\n"
    assert top(wrapper) == ("api-drift", "family-evidence")


def test_a_call_into_trls_value_head_model_with_an_unknown_keyword_is_api_drift() -> None:
    """The same class list names the callables of the keyword signature: a keyword trl's wrapper does not take."""
    text = ("TypeError: AutoModelForCausalLMWithValueHead.__init__() got an unexpected keyword argument "
            "'zorblax_head'\n")
    assert "api-drift" in families(text)


def test_a_users_own_value_head_class_is_not_the_stacks() -> None:
    """Only trl's wrappers: a class of the user's own whose name merely ends in ValueHead (no For...LM before it) is
    nobody's API drift."""
    assert "api-drift" not in families("AttributeError: 'CriticValueHead' object has no attribute 'summary'\n")
    assert "api-drift" not in families("AttributeError: 'MyValueHead' object has no attribute 'base_model_prefix'\n")


# ---- 2. A Chinese title that says a training run froze (tables/priors.toml, block mix46) --------------------------------

@pytest.mark.parametrize("title", [
    "6块Tesla A100 40G训练会卡住",  # beyondguo/LLM-Tuning#35 (gh-titles-45)
    "训练启动后卡死不动",  # hiyouga/LlamaFactory#9565 (gh-titles-45)
    "模型训练卡死",  # hiyouga/LlamaFactory#9679 (gh-titles-45)
    "微调到第二个epoch时卡着不动",
])
def test_a_chinese_title_of_a_frozen_training_run_is_hang(title: str) -> None:
    assert top(title + "\n") == ("hang", "family-keyword")


@pytest.mark.parametrize("title", [
    "点击训练后，没有反应，而是一直在下载什么东西，控制台也卡死了",  # aigc-apps/sd-webui-EasyPhoto#95: a download
    "安装依赖时卡住，无法开始训练",  # an install
    "训练时loss卡在2.3不动",  # a metric that stays at a value: the run goes on
    "推理时卡住",  # no training run: inference
    "LoRA 微调点击开始无响应，训练进程不显示",  # a UI that does not respond (hiyouga/LlamaFactory#10433, unknown-family)
])
def test_near_chinese_titles_are_not_hang(title: str) -> None:
    assert "hang" not in families(title + "\n")


def test_the_chinese_hang_rule_reads_titles_only() -> None:
    """A keyword rule never reads a report that holds a typed error: the traceback decides there."""
    text = tb((f"{SP}/transformers/trainer.py", 2241, "_inner_training_loop"),
              error="ValueError: 训练卡住了 zorblax")
    assert ("hang", "family-keyword") not in ruled(text)

"""What the forum / Q&A batch qa-47's first score (benchmarks/results/corpus-turn47-qa47-first-score.txt) left silent
in turn 47 (qa47, issue #24): the Chinese retellings of GitHub issues title their failure in Chinese, where the English
keyword rules read "resume from checkpoint ... fails" and "adapter saving fails". benchmarks/results/
corpus-turn47-qa47-rules.txt says what each rule turned right. Each test names the corpus report its form was written
from and the near forms that must keep their answer. The learned fallback is left out: these tests look at what the
rules answer (tables/priors.toml, block qa47)."""

from __future__ import annotations

import pytest
from rules_support import top

KEYWORD = ("checkpoint-io", "family-keyword")

# ---- 1. A title that says resuming training failed ----------------------------------------------------------------------


@pytest.mark.parametrize("title", [
    "使用resume_from_checkpoint参数恢复训练失败",  # gh report of the corpus (checkpoint-io): a Trainer argument is the stack word
    "Swift项目LoRA训练恢复问题分析与解决方案",  # blog.gitcode.com/240545e3... (qa-47)
    "LLaMA-Factory 断点续训报错",
    "Qwen2.5 微调 从checkpoint恢复训练时出错",
])
def test_a_chinese_title_of_a_failed_resume_is_checkpoint_io(title: str) -> None:
    assert top(title + "\n") == KEYWORD


@pytest.mark.parametrize("title", [
    "Qwen2.5 VL加载checkpoint继续训练报错",  # another failure met while training goes on (labelled unknown-family)
    "lora怎么在中断的地方继续训练，怎么设置呢",  # a question, no failure
    "LoRA 微调后精度恢复的问题",  # a metric that recovers, not a resume
    "YOLO 训练恢复失败",  # no word of the fine-tuning stack
])
def test_near_chinese_resume_titles_are_not_this_rule(title: str) -> None:
    assert top(title + "\n") != KEYWORD


# ---- 2. A title that says saving the adapter or the model is the problem -------------------------------------------------

@pytest.mark.parametrize("title", [
    "PEFT项目中LoRA适配器保存问题的技术解析",  # blog.gitcode.com/1e1a164e... (qa-47)
    "PEFT项目中的LoRA微调与模型保存问题解析",  # blog.gitcode.com/ec7a8deb... (qa-47)
    "Qwen2 LoRA 权重保存失败",
    "peft checkpoint 保存时报错",
])
def test_a_chinese_title_of_a_failed_save_is_checkpoint_io(title: str) -> None:
    assert top(title + "\n") == KEYWORD


@pytest.mark.parametrize("title", [
    "Unsloth项目中的GGUF模型保存问题解析",  # an export through llama.cpp's tools (labelled package-install)
    "Qwen-14B-Chat LoRA 导出模型保存报错",  # an export
    "运行ChatGLM3最新官方finetune_demo微调代码报错；保存模型时报错.",  # the other word order: another failure
    "模型保存问题",  # no word of the fine-tuning stack
])
def test_near_chinese_save_titles_are_not_this_rule(title: str) -> None:
    assert top(title + "\n") != KEYWORD

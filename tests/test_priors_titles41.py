"""The title rules changed for issue #24 in turn 41 (titles41, tables/priors.toml): a metric that stays at a value is
no hang ("DPO rewards stucks at zero": a run that goes on without learning, not one that stopped), and the [stack] words
name more of the models people fine-tune (LLaVA, InternVL, MiniCPM, GLM-4, Vicuna, Alpaca) and GaLore, so a title's
symptom words count when it names them. Each is checked on the title of the corpus report it was written from (its URL
beside it) and on near forms that must keep their answer or stay unclaimed. The learned fallback is left out: these
tests look at what the rules answer (benchmarks/results/corpus-turn41-titles01-rules.txt has the measurements)."""

from __future__ import annotations

import re

import pytest
from rules_support import priors, top


@pytest.mark.parametrize("title", [
    "DPO rewards stucks at zero",  # https://github.com/huggingface/trl/issues/1311 (corpus gh-titles-01: first answer hang)
    "loss stuck at 2.3 after the first epoch of llama lora training",
    "grad_norm stays at 0 during qwen sft training",
    "训练 qwen 时 loss 卡在 2.3 不动",
    "qwen lora training: loss stays the same for 3 epochs",
    "llama sft loss remains constant",
    "grpo reward stuck around 0.5",
    "qwen dpo training loss stays nan",
])
def test_a_metric_that_stays_at_a_value_is_no_hang(title: str) -> None:
    found = top(title + "\n")
    assert found is None or found[0] != "hang", found


@pytest.mark.parametrize("title", [
    "Training stucks at the beginning with 2 GPUS of 80g per gpu",  # https://github.com/X-PLUG/mPLUG-DocOwl/issues/135
    "Training with PEFT + Accelerate randomly gets stuck with DeepSpeed after the first epoch",  # huggingface/accelerate#2724
    "[BUG] Qwen3 MoE 30B-A3B training stuck",  # https://github.com/deepspeedai/DeepSpeed/issues/7461
    "Qwen3 Omni MoE + ZeRO3微调卡住",  # https://github.com/hiyouga/LlamaFactory/issues/9222
    "the loss is fine but llama training is stuck after epoch 2",  # a metric named, and the run that stopped
    # (review41) a metric's name before the stuck word, but no value it stays at: the run stopped
    "Gradient all-reduce stuck with DDP on 2 GPUs",
    "loss.backward() stuck forever with FSDP on multi-gpu training",
    "Training with deepspeed: loss computation stuck, no progress for hours",
    "llama lora training: loss computation stuck at 0%",
    "qwen 训练时 grad 同步卡住",
])
def test_a_run_that_stopped_is_still_a_hang(title: str) -> None:
    found = top(title + "\n")
    assert found is not None and found[0] == "hang", found


@pytest.mark.parametrize(("title", "family"), [
    # https://github.com/zjysteven/lmms-finetune/issues/45 (corpus): LLaVA-OneVision named, the loss at 0
    ("Why does the loss always be 0 when fine-tuning llava-onevision?", "training-data"),
    # https://github.com/huggingface/transformers/issues/29822 (corpus): GaLore, the optimizer transformers runs
    ("Galore implementation on A100 still got OOM.", "cuda-oom"),
    ("InternVL2 finetune out of memory", "cuda-oom"),
    ("MiniCPM-V training hangs after 100 steps", "hang"),
])
def test_a_title_naming_a_model_people_fine_tune_is_the_stacks(title: str, family: str) -> None:
    found = top(title + "\n")
    assert found is not None and found[0] == family, found


@pytest.mark.parametrize("title", [
    "out of memory for fine tuning",  # https://github.com/bingykang/Fewshot_Detection/issues/22 (out of scope)
    "Out of memory when finetuning model",  # https://github.com/microsoft/aurora/issues/162 (out of scope)
    "Code stuck infinitely when performing Fine-Tuning",  # a fine-tuning word is every project's, not a stack name
])
def test_a_fine_tuning_word_alone_does_not_name_the_stack(title: str) -> None:
    assert top(title + "\n") is None


def test_the_new_stack_words_are_whole_names() -> None:
    """The new names match as names, not inside other words ("alpacas" is not Alpaca's fine-tuning code; "galore" a
    word, "galorem" none), and the table keeps them in its one [stack] regex."""
    words = re.compile(priors()["stack"]["words"], re.IGNORECASE)
    for name in ("llava-1.5-7b", "LLaVA-OneVision", "InternVL2-8B", "MiniCPM-V-2_6", "glm-4-9b", "GLM4", "vicuna",
                 "alpaca", "GaLore"):
        assert words.search(f"fine-tune {name} fails"), name
    for word in ("galorem", "xalpaca", "myvicunas", "glmx"):
        assert not words.search(f"the {word} thing"), word

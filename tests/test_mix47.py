"""What gh-mix-20's first score (benchmarks/results/corpus-turn47-mix20-first-score.txt) taught in turn 47 (mix47, issue
#24); benchmarks/results/corpus-turn47-mix20-rules.txt says what each change turned right. Each test names the corpus
report its form was written from and the near forms that must keep their answer. The learned fallback is left out: these
tests look at what the rules answer."""

from __future__ import annotations

import pytest
from rules_support import families, top

# ---- 1. A model's container module missing a Linear's own parameter is adapter-config (families/adapter-config.md) ------


@pytest.mark.parametrize("text", [
    "AttributeError: 'BloomMLP' object has no attribute 'bias'\n",  # LianjiaTech/BELLE#392 (gh-mix-20)
    "AttributeError: 'LlamaAttention' object has no attribute 'weight'\n",
    "AttributeError: 'GPT2Block' object has no attribute 'weight'\n",
    "AttributeError: 'Qwen2DecoderLayer' object has no attribute 'bias'\n",
])
def test_a_target_module_that_is_a_container_is_adapter_config(text: str) -> None:
    """peft before 0.4 read the target's bias before its type: lora_target_modules named "mlp" (the container), not its
    Linear layers. Was answered api-drift (a wrong answer) by the stack-class attribute signature."""
    assert top(text) == ("adapter-config", "family-evidence")
    assert "api-drift" not in families(text)


@pytest.mark.parametrize("text", [
    "AttributeError: 'LlamaAttention' object has no attribute 'rotary_emb'\n",  # transformers 4.48 moved it: drift
    "AttributeError: 'BloomMLP' object has no attribute 'hidden_dropout'\n",
])
def test_other_attributes_of_a_models_modules_stay_api_drift(text: str) -> None:
    assert top(text) == ("api-drift", "family-evidence")


def test_another_programs_block_missing_a_weight_is_not_claimed() -> None:
    """Only the stack's model classes: a diffusion UNet's block or a user's own module is nobody's adapter config."""
    assert families("AttributeError: 'UNetMidBlock2D' object has no attribute 'weight'\n") == []
    assert "adapter-config" not in families("AttributeError: 'MyMLP' object has no attribute 'bias'\n")


# ---- 2. ZeRO-3 with a LoRA adapter or its weights' saving or merging, in a title (tables/priors.toml, block mix47) -------

@pytest.mark.parametrize("title", [
    "Apply Zero-3 and LoRA appears empty lora weight [0]",  # huggingface/accelerate#3508 (gh-mix-20)
    "Deepspeed Zero3 LoRA merge error",  # huggingface/peft#297 (gh-mix-20)
    "Lora+deepspeed zero3 无法保存lora权重问题",  # JIA-Lab-research/LongLoRA#160 (gh-mix-20)
    "maybe_zero_3 for loar save weight not work",  # lm-sys/FastChat#1271 (gh-mix-20)
    "ZeRO stage 3: saved adapter_model.bin is only 443 bytes",
])
def test_a_title_of_zero3_with_an_adapter_or_its_saving_is_sharding_config(title: str) -> None:
    assert top(title + "\n") == ("sharding-config", "family-keyword")


@pytest.mark.parametrize("title", [
    "How to use LoRA with ZeRO-3?",  # a question
    "[Feature] support for QLoRA under zero3",  # a feature request
    "YI-34B-Chat zero3 微调报错",  # hiyouga/LlamaFactory#1617: stage 3 alone (a device-side assert)
    "Deepspeed zero-3 failures in main",  # huggingface/transformers#37300: no adapter, no save (unknown-family)
    "LoRA merge error after training",  # no stage 3
    "zero123 LoRA training save error",  # Zero123, a 3-D view-synthesis model, not ZeRO's stage 3
])
def test_near_titles_are_not_sharding_config_by_this_rule(title: str) -> None:
    assert top(title + "\n") != ("sharding-config", "family-keyword")


def test_a_command_line_that_launches_with_a_zero3_config_is_not_this_rule() -> None:
    """InternLM/xtuner#466 (unknown-family: the error is not shown): the pasted log opens with the command, whose script
    name says qlora and whose --deepspeed option says zero3."""
    text = ("NPROC_PER_NODE=8 xtuner train internlm2_20b_qlora_msagent_react_e3_gpu8.py --deepspeed deepspeed_zero3 > "
            "log_sft/425sft-329pt-.log\n[2024-04-25 14:52:22,496] torch.distributed.run: [WARNING]\n")
    assert "sharding-config" not in families(text)


# ---- 3. MLX's trainer log is other software (tables/priors.toml [other]) --------------------------------------------------

def test_mlx_lm_trainer_log_with_a_nan_loss_is_not_claimed() -> None:
    """ml-explore/mlx-examples#718 (gh-mix-20, out of scope: MLX is not the PyTorch stack) was claimed loss-nan: its log
    names no MLX, but mlx_lm.lora's report lines say whose trainer ran."""
    text = ("Iter 1: Val loss nan, Val took 61.907s\n"
            "Iter 10: Train loss nan, Learning Rate 1.000e-05, It/sec 0.264, Tokens/sec 530.838, Trained Tokens 20105, "
            "Peak mem 16.146 GB\n")
    assert families(text) == []


def test_a_pytorch_loop_printing_iter_and_a_nan_loss_stays_loss_nan() -> None:
    """karpathy/nanoGPT#215's form (a PyTorch run): no train/val word before the loss."""
    assert top("> 2023-03-22 09:33:33 iter 3050: loss nan, time 1016.74ms, mfu 14.95%\n") == ("loss-nan", "family-keyword")

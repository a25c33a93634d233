"""What the forum / Q&A batch qa-46's first score (benchmarks/results/corpus-turn46-qa46-first-score.txt) left silent
in turn 46 (qa46, issue #24): forum posters retype a library's message and title their failure in their own words.
benchmarks/results/corpus-turn46-qa46-rules.txt says what each rule turned right. Each test names the corpus report its
form was written from and the near forms that must keep their answer. The learned fallback is left out: these tests
look at what the rules answer (tables/priors.toml, block qa46)."""

from __future__ import annotations

import pytest
from rules_support import top

# ---- 1. The tokenizer's refusal of a non-text input, retyped ------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "ValueError: text input must of type 'str'",  # openillumi.com/?p=67294 (qa-46): "be" dropped, 'str', tail cut
    'ValueError: text input must be of type "str"',  # other quoting marks, tail cut
    "TypeError: text input must be of type `str`",  # transformers' own marks, the accepted types after it cut
])
def test_a_retyped_tokenizer_message_is_training_data(text: str) -> None:
    assert top(text + "\n") == ("training-data", "family-prior")


@pytest.mark.parametrize("text", [
    "ValueError: input must be of type 'str'",  # not the tokenizer's "text input"
    "ValueError: text input must be non-empty",  # another check
    "ValueError: text input must of type 'int'",  # not a string type
])
def test_near_tokenizer_messages_are_not_this_rule(text: str) -> None:
    assert top(text + "\n") != ("training-data", "family-prior")


# ---- 2. A title that says the Hub would not authenticate a download ----------------------------------------------------

@pytest.mark.parametrize("title", [
    "Gemma 3 Authentication Issue With `hf_hub_download`",  # talkin.icu (qa-46)
    "Authentication error with from_pretrained for llama 3",
    "huggingface hub authentication failed when loading mistral 7b",
])
def test_a_title_of_a_hub_authentication_failure_is_hub_access(title: str) -> None:
    assert top(title + "\n") == ("hub-access", "family-keyword")


@pytest.mark.parametrize("title", [
    "wandb authentication error in trainer",  # another service's authentication
    "github authentication fails when installing transformers from source",  # git's
    "Authentication for the model hub",  # no word of the stack: any hub
    "hf_hub_download is slow for llama 3",  # no authentication
])
def test_near_titles_are_not_hub_authentication(title: str) -> None:
    assert top(title + "\n") != ("hub-access", "family-keyword")


# ---- 3. A title that says half-precision training was numerically unstable ----------------------------------------------

@pytest.mark.parametrize("title", [
    "Qwen2模型FP16训练中的数值稳定性问题分析与解决方案",  # blog.gitcode.com/9551b011... (qa-46): fp16 SFT, NaN tokens, loss 0
    "fp16 overflow when fine-tuning llama with lora",
    "Numerical instability with float16 SFT of gemma",
    "qwen 半精度 训练 数值溢出",
])
def test_a_title_of_unstable_half_precision_training_is_loss_nan(title: str) -> None:
    assert top(title + "\n") == ("loss-nan", "family-keyword")


@pytest.mark.parametrize("title", [
    "numerical stability of fp16 in my custom op",  # no word of the stack
    "fp16 training of a detection model overflows with transformers",  # a vision task's
    "bf16 numerical instability in llama",  # not half precision's float16
    "fp16 inference of llama is slow",  # no instability
])
def test_near_titles_are_not_this_loss_nan_rule(title: str) -> None:
    assert top(title + "\n") != ("loss-nan", "family-keyword")


# ---- 4. A title that says the loss suddenly dropped to 0 ---------------------------------------------------------------

@pytest.mark.parametrize("title", [
    "使用Qlora微调 XVERSE-13B ，模型跑到200步，loss猛升后突降为0",  # yangjianxin1/Firefly#102 (gh corpus)
    "Unsloth项目中LoRA微调时训练损失突降为零的问题分析与解决",  # blog.gitcode.com/a39f84df... (qa-46)
    "llama lora loss suddenly drops to 0 after 300 steps",
    "Loss abruptly becomes zero while fine-tuning mistral with peft",
])
def test_a_title_of_a_loss_that_suddenly_drops_to_zero_is_loss_nan(title: str) -> None:
    assert top(title + "\n") == ("loss-nan", "family-keyword")


@pytest.mark.parametrize("title", [
    "Loss is 0.00000 (Also model not answering after training)",  # no sudden drop: 0 from the start may be no labels
    "qwen sft loss suddenly spikes at epoch 0",  # a counter's 0
    "loss suddenly jumps from 0.5 to 3 with lora",  # 0.5 is no 0
    "detection loss suddenly drops to 0 with transformers",  # a vision task's
])
def test_near_titles_are_not_a_sudden_drop_to_zero(title: str) -> None:
    assert top(title + "\n") != ("loss-nan", "family-keyword")

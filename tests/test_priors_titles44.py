"""The title rules changed for issue #24 item 3 in turn 44 (titles44, tables/priors.toml): "freeze" as a verb with an
object, a negated verb or a method's name is no hang (which parameters train, not a run that froze); a title saying
the Hub repo it pushes to does not exist (or quoting the Hub's "You already created this model repo") is hub-access;
超显存 (exceeded the GPU's memory) is cuda-oom. Each is checked on the title of the corpus report it was found on (its
URL beside it) and on near forms that must keep their answer or stay unclaimed. An answer from a title's words is a
family at the keyword basis, the lowest a rule gives (benchmarks/results/corpus-turn44-titles44-rules.txt has the
measurements)."""

from __future__ import annotations

import pytest
from rules_support import top


@pytest.mark.parametrize("title", [
    "[Usage] Pretrain Script does not freeze LLM",  # https://github.com/haotian-liu/LLaVA/issues/873 (gh-titles-44: hang)
    "InternLM2-chat-7b freeze finetuning error",  # https://github.com/hiyouga/LlamaFactory/issues/2412 (freeze-tuning)
    "Qwen2-VL sft: how to freeze the vision tower and train the LLM with LoRA",
    "llava training doesn't freeze the projector",
    "freeze训练 qwen 报错",
])
def test_freeze_naming_what_trains_is_no_hang(title: str) -> None:
    found = top(title + "\n")
    assert found is None or found[0] != "hang", found


@pytest.mark.parametrize("title", [
    "Llama-3 SFT with DeepSpeed freezes after 100 steps",
    "qwen lora training freezes at step 50",
    "mistral finetuning freezing during evaluation with 2 GPUs",
])
def test_a_run_that_froze_is_still_a_hang(title: str) -> None:
    assert top(title + "\n") == ("hang", "family-keyword")


@pytest.mark.parametrize("title", [
    # https://github.com/huggingface/autotrain-advanced/issues/206 (corpus gh-broad-03, hub-access: silent before)
    "'You already created this model repo' issue with non-existing repos",
    "push_to_hub to a repo that does not exist",  # issue #24's own example
    "trainer.push_to_hub fails: the repository does not exist",
    "Uploading the fine-tuned adapter to a non-existent HF repo",
])
def test_a_hub_repo_that_does_not_exist_is_hub_access(title: str) -> None:
    assert top(title + "\n") == ("hub-access", "family-keyword")


@pytest.mark.parametrize("title", [
    "git repo does not exist after clone",  # a repository, but no Hub and no push
    "Example repo does not exist anymore, link broken",
    "The repo for the paper doesn't exist yet?",
])
def test_a_repo_that_does_not_exist_without_the_hub_is_not_claimed(title: str) -> None:
    found = top(title + "\n")
    assert found is None or found[0] != "hub-access", found


@pytest.mark.parametrize("title", [
    "GLM-4V-9B继续微调报错，显示超显存",  # https://github.com/zai-org/GLM-4/issues/408 (corpus, cuda-oom: silent before)
    "qwen lora 微调 超出显存",
])
def test_exceeding_the_gpus_memory_in_chinese_is_cuda_oom(title: str) -> None:
    assert top(title + "\n") == ("cuda-oom", "family-keyword")

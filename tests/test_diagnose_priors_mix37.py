"""The rules added for issue #24 in turn 37 (mix37), for title-only reports: the hang keyword rules hold only where the
title also names a training run (tables/priors.toml [run], ``needs_run``), "卡着" / "卡…不动" as Chinese words of a run
that stopped moving, peft's "target modules ... not found" as a title paraphrases it, ms-swift's ``remaining_argv`` in a
title, torch's "weight should have at least three dimensions" (a convolution on a flattened FSDP/ZeRO-3 parameter),
transformers' "Could not locate the X inside Y" after Chinese words, and a missing chat template said in Chinese.
Each is checked on the forms the corpus's reports take and on near forms that must stay unclaimed: a program that
merely uses a Llama model or a LoRA and gets stuck, a model stuck producing output, a loss that "does not move", a
question about target modules, another convolution error. The learned fallback is left out: these tests look at what
the rules answer."""

from __future__ import annotations

import pytest
from rules_support import SP, tb, top

from kb.knowledge.registry import load_knowledge


@pytest.mark.parametrize(("text", "family"), [
    # hang titles that name a run (tune reports of the corpus)
    ("accelerate launch stuck forever\n", "hang"),
    ("Qwen3.5 is hanging during GRPO training, getting stuck after step 105 (out of a total of 219 steps).\n", "hang"),
    ("Training with PEFT + Accelerate randomly gets stuck with DeepSpeed after the first epoch\n", "hang"),
    ("`dataset.map` for tokenization hangs at 60%\n", "hang"),
    ("fine-tune: huggingface tranformers.Trainer.train() hangs with Llama3 base model\n", "hang"),
    ("baichuan_lora_tuning运行，为什么一直卡在8%呢？\n", "hang"),
    ("多节点sft一直卡在这里，微调llama3 8b\n", "hang"),
    # "multi gpu" spelt with a space names the stack ([stack]) and a run ([run]) as "multi-gpu" does
    ("[BUG]Single node single GPU work well but single node multi gpu hangs on\n", "hang"),
    # 卡着 / 卡…不动: "stuck, not moving"
    ("Lora微调预训练数据卡着不动\n", "hang"),
    ("qwen2 lora微调训练卡住不动了\n", "hang"),
    # peft's message as a title paraphrases it
    ("Can only train Phi-3-mini models small and medium do not work: Target modules qkv_proj not found in base model.\n",
     "adapter-config"),
    ("target modules not found when fine-tuning gemma with LoRA\n", "adapter-config"),
    # ms-swift's parser's list of unknown arguments, a title without the exception's colon
    ("启用enable_dft_loss时报错ValueError remaining_argv enable_dft_loss\n", "api-drift"),
    # transformers' "Could not locate the X inside Y" after Chinese words (a tune report's title)
    ("微调chatglm3-6b报错Could not locate the tokenization_chatglm.py inside THUDM/chatglm3-6b.\n", "hub-access"),
    # no chat template, said in Chinese (a tune report's title)
    ("llama2-7b微调tokenizer_config.json中没有chat_template\n", "training-data"),
    ("qwen 基座模型 chat_template 缺失，sft 报错\n", "training-data"),
    # a convolution on a flattened parameter (huggingface/accelerate#2301, a title)
    ("RuntimeError: weight should have at least three dimensions\n", "sharding-config"),
    (tb((f"{SP}/transformers/pytorch_utils.py", 107, "forward"), (f"{SP}/torch/nn/functional.py", 300, "conv1d"),
        error="RuntimeError: weight should have at least three dimensions"), "sharding-config"),
])
def test_the_forms_real_reports_take(text: str, family: str) -> None:
    found = top(text)
    assert found is not None and found[0] == family


@pytest.mark.parametrize("text", [
    # the stack's words (LoRA, a Llama model) but no training run: another program stuck (the corpus's out-of-scope
    # OliBomby/Mapperatorinator#121 and ollama/ollama#12676)
    "Some kind of issue where it sometimes gets stuck, and seems to happen when I use a LoRA adapter\n",
    "running the run code for llama3.2 led to stuck\n",
    "LLama 3.1 gets stuck sometimes when producing output\n",
    "qwen2.5 chat window freezes after a few messages\n",
    # no stack word at all: any program's training (a YOLO trainer's "Training stuck after one step")
    "Training stuck after one step\n",
    # a loss that does not move is a training's quality, not a hang (no 卡)
    "lora微调loss一直不动\n",
    # the hang of an install or a download, as before
    "llama-factory install stuck on building wheel for deepspeed\n",
])
def test_hang_words_without_a_run_stay_unclaimed(text: str) -> None:
    found = top(text)
    assert found is None or found[0] != "hang"


@pytest.mark.parametrize(("text", "not_family"), [
    ("Which target modules should I use for Qwen2 LoRA?\n", "adapter-config"),
    ("Support custom target modules for Mixtral\n", "adapter-config"),
    ("How to pass remaining args to the trainer?\n", "api-drift"),
    ("could not locate the file I saved after training\n", "hub-access"),
    ("chat_template 怎么写？\n", "training-data"),
    ("RuntimeError: Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [64, 64]\n",
     "sharding-config"),
    ("RuntimeError: weight should have at least three dimensions in my own numpy port\n", "sharding-config"),
])
def test_near_forms_stay_unclaimed_by_these_rules(text: str, not_family: str) -> None:
    found = top(text)
    assert found is None or found[0] != not_family


def test_the_hang_rules_need_a_run_and_the_run_words_are_one_table() -> None:
    """Both hang keyword rules of generic words say needs_run and needs_stack; the [run] words are defined once and
    name no model and no bare "run" (every program runs)."""
    table = load_knowledge().tables["priors"]
    hang = [r for r in table["keyword"] if r["family"] == "hang" and r["needs_stack"]]
    assert len(hang) == 2 and all(r["needs_run"] for r in hang)
    import re

    run = re.compile(table["run"]["words"], re.IGNORECASE)
    assert run.search("stuck during training") and run.search("微调卡住") and run.search("accelerate launch")
    assert not run.search("I use a LoRA adapter with llama3.2") and not run.search("running the run code")

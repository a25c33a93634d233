"""review44: turn 44's new rules on innocent text they must not claim (each test fails at 323fc2c).

- mix44's torch-printed-nan process rule read any "[nan, nan, nan" as torch's: NumPy's repr (``array([nan, nan, nan])``),
  a Python list printed alone or inside a sentence (a dataset's label column of missing values is the data's, not a
  loss gone NaN).
- titles44's hub-access keyword took any push or upload as the Hub's: docker push to a registry repository that does
  not exist, a git push, a CI action's upload.
"""

from __future__ import annotations

import pytest

from rules_support import ruled


@pytest.mark.parametrize("text", [
    # NumPy's repr, as a notebook or the REPL shows it
    "fine-tuning data check on my training set\n>>> np.array(scores)\narray([nan, nan, nan, nan])\n",
    # a Python list printed alone: a dataset's label column of missing values
    "Training a classifier with the Trainer on my dataset\nprint(ds['train']['label'][:5])\n[nan, nan, nan, nan, nan]\n",
    # a list inside a sentence
    "fine-tuning llama with transformers\ndf['score'].tolist() gives [nan, nan, nan]\n",
    "Trainer evaluate returns rouge [nan, nan, nan] for every epoch\n",
])
def test_numpy_and_python_lists_of_nan_are_not_torchs_printed_tensors(text: str) -> None:
    assert ("loss-nan", "family-prior") not in ruled(text)


def test_a_torch_tensors_rows_of_nan_are_still_read() -> None:
    text = ("fine-tuning Qwen2-VL with LoRA, epoch 1\nlogits: tensor([[ 1.0312, -2.5000,  0.1250],\n"
            "        [    nan,     nan,     nan],\n        [    nan,     nan,     nan]], device='cuda:0')\n")
    assert ruled(text)[:1] == [("loss-nan", "family-prior")]


@pytest.mark.parametrize("title", [
    "docker push fails in CI\nname unknown: The repository with name 'trainer' does not exist in the registry with id '1234'\n",
    "Pushing to a repo that doesn't exist gives a confusing error\n",
    "Action fails when the target repository does not exist on upload\n",
    "docker hub push: repository does not exist or may require 'docker login'\n",
])
def test_a_push_or_upload_that_is_not_the_hubs_is_not_hub_access(title: str) -> None:
    found = ruled(title)
    assert not found or found[0][0] != "hub-access", found


# The "loss is 0" keyword rules (tables/priors.toml, turn 44's a74c430) ruled out a counter's 0 before "loss" by the
# counter's name ("step 0 loss 2.1370"); the other spellings of a training log's record still read as a loss of 0.
# A "0 loss" followed by a number is a record "loss <value>" whose 0 belongs to something before it.
@pytest.mark.parametrize("text", [
    "global_step 0 loss 2.1370 with the HF Trainer\n",
    "Step: 0 loss 2.1370 trainer.train() lora\n",
    "Epoch: 0 loss 2.1370 SFTTrainer\n",
    "step: 0 loss: 2.1 trainer\n",
    "[2024-01-01 10:00:00] Iter: 0 loss 3.2 sft trainer\n",
    "epoch=0 loss 2.1 transformers Trainer\n",
    "fp16 SFTTrainer global_step 0 loss = 1.95\n",
    "FSDP trainer, Epoch: 0 loss 2.1370\n",
])
def test_a_counters_0_before_a_loss_record_is_no_loss_of_0(text: str) -> None:
    assert ruled(text) == []


@pytest.mark.parametrize(("text", "family"), [
    ("the trainer gives 0 loss on my dataset\n", "training-data"),
    ("SFTTrainer: zero loss after the first step\n", "training-data"),
    ("FSDP run shows 0 loss from step 1\n", "sharding-config"),
])
def test_a_loss_of_0_said_in_words_still_answers(text: str, family: str) -> None:
    assert ruled(text)[:1] == [(family, "family-keyword")]


# titles44's 超显存 / 超出显存 (exceeded the GPU's memory) took the words negated too: "没有超显存" (did not exceed it),
# "未超出显存", "不会超显存" say the memory was not the problem.
@pytest.mark.parametrize("title", [
    "qwen lora 微调没有超显存，但是训练速度很慢\n",
    "训练时未超出显存上限，但是训练速度很慢\n",
    "微调时不会超显存吧？推理很慢\n",
])
def test_a_negated_exceeding_of_the_gpus_memory_is_not_cuda_oom(title: str) -> None:
    assert ("cuda-oom", "family-keyword") not in ruled(title)


def test_which_lines_are_asked_for_a_template_is_the_tables() -> None:
    """kb/diagnose/priors.py held the characters a template's line opens with ("#*-") in code: a template form the table
    adds that opens otherwise ("> Describe the bug") was never asked. They are the table's ``openers`` now."""
    from kb.diagnose.priors import LineEvidence

    table = {"process": [], "template": {"lines": r"^\s{0,4}>\s{0,4}describe the bug\s*$", "openers": ">"}}
    evidence = LineEvidence(table)
    text = "> Describe the bug\nllama lora training hangs after 100 steps\n"
    list(evidence.scan([(text, text.splitlines())]))
    assert evidence.keyword_head()[0] == ["llama lora training hangs after 100 steps"]
    assert rules_priors()["template"]["openers"] == "#*-"


def rules_priors() -> dict:
    from rules_support import priors

    return priors()


# qa44's host-oom keyword (a notebook machine that crashed for its RAM) took a crash of memory's other kinds: a CUDA
# kernel's illegal access, a segfault, a corrupted heap
@pytest.mark.parametrize("title", [
    "Kaggle notebook crashes with illegal memory access when loading a bitsandbytes 4bit model\n",
    "Colab crash: segmentation fault, memory corruption when importing transformers\n",
    "Colab notebook crash: core dumped at memory address 0x0 in the transformers tokenizer\n",
])
def test_a_notebook_crash_of_another_memory_fault_is_not_host_oom(title: str) -> None:
    assert ("host-oom", "family-keyword") not in ruled(title)


def test_a_notebook_that_ran_out_of_ram_is_still_host_oom() -> None:
    title = "Colab notebook crashes: RAM memory full while tokenizing with transformers\n"
    assert ruled(title)[:1] == [("host-oom", "family-keyword")]

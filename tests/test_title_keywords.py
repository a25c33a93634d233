"""Title-only and prose reports answered by family (issue #24, item 3): the title vocabularies of tables/priors.toml
([[keyword]] rules), the shared [stack] and [failure] words they need, and silence where the words name a part of
the stack without a failure, or a failure without the stack. The titles are written here in the forms real titles
take, not copied from reports."""

from __future__ import annotations

import pytest

from kb.diagnose import fallback
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.knowledge.model import KnowledgeError
from kb.knowledge.registry import load_knowledge
from kb.knowledge.tables import read_table, read_table_file


def keyword_answer(title: str) -> tuple[str, str, str] | None:
    """(family, basis, confidence) of the top answer when a signature or a prior gave it (the learned fallback off)."""
    kept = fallback._MODEL[:]
    fallback.use_model(None)
    try:
        doc = diagnosis_document(diagnose_lines([title + "\n"], load_knowledge()))
    finally:
        fallback._MODEL[:] = kept
    if not doc["matches"]:
        return None
    top = doc["matches"][0]
    return top["family"], top["basis"], top["confidence"]


@pytest.mark.parametrize(("title", "family"), [
    ("Two-node DeepSpeed run fails with an NCCL error right after init", "multi-gpu-launch"),
    ("multi-node finetuning of qwen on slurm crashes at startup", "multi-gpu-launch"),
    ("load_dataset cannot work in offline mode on the cluster", "hub-access"),
    ("Access token rejected when downloading a gated model with transformers", "hub-access"),
    ("tokenizer.chat_template is not set when running SFT", "training-data"),
    ("Batching fails: the llama tokenizer has no pad_token", "training-data"),
    ("loss is 0 from the first step when fine-tuning mistral with LoRA", "training-data"),
    ("FSDP run shows loss 0 immediately", "sharding-config"),
    ("size mismatch between lora weights and the linear layer during training", "shape-mismatch"),
    ("adapter_config.json missing after training", "adapter-config"),
    ("Trainer fails to resume from checkpoint after an upgrade", "checkpoint-io"),
    ("adapter_model.safetensors is corrupted after save", "checkpoint-io"),
    ("libcudart.so.12 cannot be found when importing torch", "cuda-setup"),
    ("SFTTrainer argument is no longer valid in trl", "api-drift"),
    ("微调qwen时显存不足", "cuda-oom"),
    ("internlm-7b训练出现OOM错误", "cuda-oom"),
    ("loss is nan", "loss-nan"),
    ("NaN loss when finetuning llama with QLoRA on a T4", "loss-nan"),
    ("loss becomes inf after 200 steps", "loss-nan"),
    ("qwen lora fine-tuning: grad norm nan and loss 0.0", "loss-nan"),  # a NaN step logged as 0: not a missing label
    ("loss is 0 with fp16 when fine-tuning llama2", "loss-nan"),  # fp16 overflow logged as 0
    ("微调时使用FP16损失为nan", "loss-nan"),
    # turn 42 (mix42): two real title-only reports (transformers#42489, #28335) say just this and were no-grad-fn
    ("gradient checkpointing with peft crashes in backward", "no-grad-fn"),
])
def test_a_title_names_its_family_by_keyword_at_low_confidence(title: str, family: str) -> None:
    assert keyword_answer(title) == (family, "family-keyword", "low")


@pytest.mark.parametrize(("title", "family"), [
    ("How should NCCL_SOCKET_IFNAME be set for two nodes?", None),  # a part of the stack, no failure
    ("Support resuming from a checkpoint in the example script", None),  # a feature request
    ("JAX multi-node job fails at rendezvous", None),  # another framework
    ("NCCL build fails with nvcc 12.4", None),  # a build, not a launch
    ("Error while running torchrun.py from the examples", None),  # a script's name, not a multi-node launch
    ("gradient checkpointing with peft crashes in backward under deepspeed", None),  # a sharded run: other failures
    ("The server is offline today", None),  # no part of the stack
    ("Loss is nan when training a stable diffusion LoRA", None),  # a diffusion model's NaN: other software
    ("training loss nan with tensorflow 2.12", None),  # another framework
    ("information loss in the tokenizer", None),  # 'inf' inside a word is no infinity
    ("Upgrading trl may introduce breaking changes to the SFT script", None),  # a forecast, not a failure seen
    ("Multi-node training hangs after the first step with torchrun", "hang"),  # a hang, not a launch error
])
def test_a_title_without_a_family_s_failure_is_not_claimed_by_its_words(title: str, family: str | None) -> None:
    got = keyword_answer(title)
    assert (got[0] if got else None) == family


def test_every_rule_that_names_a_part_needs_a_failure_and_the_words_are_defined_once() -> None:
    table = read_table("priors")
    assert table["stack"]["words"] and table["failure"]["words"]
    failure = table["failure"]["words"]
    assert not any(failure in p for r in table["keyword"] for p in r["all"])
    nccl = [r for r in table["keyword"] if any("nccl" in p for p in r["all"]) and r["family"] == "multi-gpu-launch"]
    assert nccl and all(r["needs_failure"] for r in nccl)


@pytest.mark.parametrize(("need", "word", "broken"), [("stack", "stuck", "(?:lora"), ("failure", "nccl", "(?:error")])
def test_a_rule_that_needs_words_fails_to_load_without_them(tmp_path, need: str, word: str, broken: str) -> None:
    """A keyword rule's needs_stack / needs_failure asks for the [stack] / [failure] words table, which must exist
    and compile."""
    path = tmp_path / "priors.toml"
    path.write_text(f'[[keyword]]\nfamily = "hang"\nall = [\'{word}\']\nneeds_{need} = true\nwhy = "x"\n')
    with pytest.raises(KnowledgeError, match=f"needs_{need}"):
        read_table_file(str(path), "priors")
    path.write_text(f"[{need}]\nwords = '{broken}'\n")
    with pytest.raises(KnowledgeError, match=f"{need}.words"):
        read_table_file(str(path), "priors")


def test_ruled_out_asks_all_of_a_rule_s_own_words_but_not_the_stack() -> None:
    """fallback.ruled_out: a family is ruled out where all of a rule's own words and one of its excludes match, the
    stack words not asked (a compiler's "out of memory" names no part of the stack)."""
    priors = load_knowledge().tables["priors"]
    assert "cuda-oom" in fallback.ruled_out("cc1plus: out of memory allocating 65536 bytes", priors)
    # the host-oom rule of RAM words needs both its words: "RAM" alone with an exclude does not rule host-oom out
    assert "host-oom" not in fallback.ruled_out("the GPU has more RAM than this", priors)
    assert "host-oom" in fallback.ruled_out("system RAM runs out on the GPU node", priors)

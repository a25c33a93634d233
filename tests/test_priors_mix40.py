"""The rules added for issue #24 in turn 40 (mix40, tables/priors.toml's mix40 block): a [[frame]] rule's `code`, the
statement a frame ran as the traceback prints it (torch's GradScaler.step asserting that it found gradients to check,
fp16-gradients, in a traceback cut before its exception line); a model's own remote code (transformers_modules/,
api-drift), also where a report shortens its path; a tokenizer's read-only property that the installed transformers
sets (api-drift); DeepSpeed ZeRO-3's summary of a partitioned parameter as an error's message and torch's DeviceMesh
raising (sharding-config); torch's load_state_dict size-mismatch line cut from its header (checkpoint-io). Each is
checked on the error output of the corpus report it was written from (its URL beside it) and on near forms that must
stay unclaimed by it. The learned fallback is left out: these tests look at what the rules answer."""

from __future__ import annotations

import pytest
from rules_support import SP, priors, tb, top

from kb.diagnose.errors import Frame

# https://github.com/Facico/Chinese-Vicuna/issues/47 (corpus gh-mix-13): the paste ends inside GradScaler.step's assert
CHINESE_VICUNA_47 = """\
  0%|          | 0/3 [00:00<?, ?it/s]Traceback (most recent call last):
  File "finetune_multichoice_tt_til0305.py", line 287, in <module>
    trainer.train(resume_from_checkpoint=args.resume_from_checkpoint)
  File "/home/ubuntu/miniconda3/envs/ghostaienv/lib/python3.8/site-packages/transformers/trainer.py", line 1662, in train
    return inner_training_loop(
  File "/home/ubuntu/miniconda3/envs/ghostaienv/lib/python3.8/site-packages/transformers/trainer.py", line 1991, in _inner_training_loop
    self.scaler.step(self.optimizer)
  File "/home/ubuntu/miniconda3/envs/ghostaienv/lib/python3.8/site-packages/torch/cuda/amp/grad_scaler.py", line 368, in step
    assert len(optimizer_state["found_inf_per_device"]) > 0, "No in
"""

# https://github.com/modelscope/ms-swift/issues/2180 (corpus): InternVL2's remote configuration code, its path shortened
MS_SWIFT_2180 = """\
File "transformers_modules/InternVL2-8B/configuration_internvl_chat.py", line 51, in __init__
    if llm_config['architectures'][0] == 'LlamaForCausalLM':
KeyError: 'architectures'
"""

# https://github.com/zai-org/ChatGLM3/issues/1123 (corpus gh-mix-13)
CHATGLM3_1123 = "AttributeError: property 'eos_token' of 'ChatGLMTokenizer' object has no setter\n"

# https://github.com/deepspeedai/DeepSpeedExamples/issues/707 (corpus): the message line of a rich traceback
DEEPSPEED_EXAMPLES_707 = (
    "AssertionError: {'id': 292, 'status': 'NOT_AVAILABLE', 'numel': 0, 'ds_numel': 0, 'shape': (0,), "
    "'ds_shape': (0, 4096), 'requires_grad': True, 'grad_shape': None, 'persist': True, 'act\n")

# https://github.com/huggingface/accelerate/issues/3804 (corpus): a multi-rank log flattened onto one line
ACCELERATE_3804 = (
    'File "/opt/conda/lib/python3.11/site-packages/torch/distributed/device_mesh.py", line 132, in create_sub_mesh '
    "[rank1]: device_mesh._dim_group_infos[mesh_dim_indices[0]] [rank1]: [rank1]: IndexError: l\n")

# https://github.com/opendatalab/VIGC/issues/18 (corpus gh-mix-13): the mismatch lines without their header
VIGC_18 = (
    " size mismatch for llm_proj.weight: copying a param with shape torch.Size([5120, 768]) from checkpoint, the shape "
    "in current model is torch.Size([4096, 768]).\n"
    "        size mismatch for llm_proj.bias: copying a param with shape torch.Size([5120]) from checkpoint, the shape in "
    "current model is torch.Size([4096]).\n")


@pytest.mark.parametrize(("text", "family"), [
    (CHINESE_VICUNA_47, "fp16-gradients"),
    (MS_SWIFT_2180, "api-drift"),
    # remote code under the cache's full path reading a config key the installed transformers names otherwise
    (tb(("/root/.cache/huggingface/modules/transformers_modules/glm-4-9b-chat/modeling_chatglm.py", 30, "forward"),
        error="KeyError: 'rope_type'"), "api-drift"),
    (CHATGLM3_1123, "api-drift"),
    ("AttributeError: can't set attribute 'eos_token'\n", "api-drift"),  # the same before Python 3.11
    (DEEPSPEED_EXAMPLES_707, "sharding-config"),
    (ACCELERATE_3804, "sharding-config"),
    (VIGC_18, "checkpoint-io"),
])
def test_the_forms_real_reports_take(text: str, family: str) -> None:
    found = top(text)
    assert found is not None and found[0] == family, found


@pytest.mark.parametrize(("text", "not_family"), [
    # GradScaler.step cut at another statement (the optimizer's own step, where any optimizer error passes)
    ("Traceback (most recent call last):\n"
     f'  File "{SP}/transformers/trainer.py", line 1991, in _inner_training_loop\n'
     "    self.scaler.step(self.optimizer)\n"
     f'  File "{SP}/torch/cuda/amp/grad_scaler.py", line 370, in step\n'
     "    retval = self._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)\n", "fp16-gradients"),
    # remote code raising a ValueError about its input (not an API it calls), and a user's own module of that name
    (tb((f"{SP}/../transformers_modules/qwen/modeling_qwen.py", 80, "forward"),
        error="ValueError: The input sequence is longer than 32768 tokens"), "api-drift"),
    (tb(("/home/ana/proj/my_transformers_modules_notes.py", 3, "<module>"), error="KeyError: 'architectures'"),
     "api-drift"),
    # a read-only property of a class that is not a tokenizer, config or processor; another attribute
    ("AttributeError: property 'length' of 'MyDataset' object has no setter\n", "api-drift"),
    ("AttributeError: can't set attribute 'learning_rate'\n", "api-drift"),
    # a dict as an assertion's message that is not ZeRO-3's parameter summary
    ("AssertionError: {'id': 3, 'status': 'done', 'name': 'eval'}\n", "sharding-config"),
    # torch.distributed's process group, not its device mesh
    (tb((f"{SP}/torch/distributed/distributed_c10d.py", 1200, "barrier"), error="IndexError: list index out of range"),
     "sharding-config"),
    # an adapter's weights in the same torch line: adapter-config's, not this rule's
    (" size mismatch for base_model.model.model.layers.0.self_attn.q_proj.lora_A.default.weight: copying a param with "
     "shape torch.Size([8, 4096]) from checkpoint, the shape in current model is torch.Size([16, 4096]).\n",
     "checkpoint-io"),
])
def test_near_forms_stay_unclaimed_by_these_rules(text: str, not_family: str) -> None:
    found = top(text)
    assert found is None or found[0] != not_family, found


def test_a_frame_rule_reads_the_statement_the_frame_ran() -> None:
    """The `code` field is what tells GradScaler.step's assert from the rest of its body: the rule names it, and no
    rule holds for the step frame without it (the negative case above is the same frame at another statement)."""
    rules = [r for r in priors()["frame"] if r.get("code")]
    assert any("grad_scaler" in r["file"] and r["family"] == "fp16-gradients" for r in rules)
    assert not any("grad_scaler" in r["file"] and r["function"] == "^step$" and not r.get("code")
                   for r in priors()["frame"])


def test_a_remote_code_path_is_library_code_however_it_is_shortened() -> None:
    assert Frame("transformers_modules/InternVL2-8B/configuration_internvl_chat.py", 51, "__init__").is_library
    assert Frame("/root/.cache/huggingface/modules/transformers_modules/m/modeling_m.py", 1, "f").is_library
    assert not Frame("/home/ana/proj/train.py", 1, "main").is_library

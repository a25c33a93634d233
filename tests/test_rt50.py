"""rt50 (turn 50, issue #24): runtime-52's misses (corpus/reports-runtime-52.jsonl), each by a rule that generalises,
with the near forms each rule must leave alone (benchmarks/results/runtime-turn50.txt).

1. tables/priors.toml (rt50 block): datasets 4 returns a `Column` where 3.x returned a list (dataset["text"]); list
   arithmetic on it fails with a TypeError naming the class ("unsupported operand type(s) for +: 'Column' and
   'Column'", "can only concatenate list (not "Column") to list"): api-drift. PySpark's Column ("'Column' object is
   not callable") stays unclaimed.
2. tables/priors.toml (rt50 block): a wrapper refusing a checkpoint folder because it is not an adapter ("The given
   checkpoint is not a LoRA checkpoint", "... is not a PEFT model/adapter folder"): adapter-config.
3. tables/priors.toml (rt50 block): transformers' "You have to specify either (decoder_)input_ids or
   (decoder_)inputs_embeds" raised inside a training step (Trainer frames, a collator, a training loop's words):
   training-data (the batch reached the model without the inputs or labels). Called outside a run (a forward pass
   of an encoder-decoder without decoder inputs) it stays unanswered.
4. tables/priors.toml checkpoint-io's "Trying to set a tensor of shape ... in "weight" (which has shape ...)": not
   when the model's parameter is a packed 4-bit one (shape [N, 1]): the checkpoint is fine, the quantized model is
   loaded with offloading (qlora#135); no answer rather than a wrong one.
"""

from __future__ import annotations


import pytest

from corpus_support import report_text as report
from runtime_support import top_answer


# 1. datasets 4's Column in list arithmetic ---------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    report("gh:HandsOnLLM/Hands-On-Large-Language-Models#99"),
    "TypeError: can only concatenate list (not \"Column\") to list\n",
    "TypeError: unsupported operand type(s) for +: 'Column' and 'list'\n",
    "TypeError: unsupported operand type(s) for +=: 'list' and 'Column'\n",
])
def test_datasets_column_in_list_arithmetic_is_api_drift(text: str) -> None:
    assert top_answer(text) == ("family", "api-drift")


@pytest.mark.parametrize("text", [
    "TypeError: 'Column' object is not callable\n",  # PySpark
    "TypeError: unsupported operand type(s) for +: 'int' and 'str'\n",
])
def test_other_column_or_operand_errors_stay_unanswered(text: str) -> None:
    assert top_answer(text) is None


# 2. a wrapper saying the folder is not an adapter --------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    report("gh:hiyouga/LlamaFactory#34"),  # title only
    "Traceback (most recent call last):\n  File \"src/train_sft.py\", line 20, in <module>\n    main()\n"
    "AssertionError: The given checkpoint is not a LoRA checkpoint, please specify `--finetuning_type full/freeze` "
    "instead.\n",
    "ValueError: ./output/checkpoint-500 is not a PEFT adapter folder\n",
])
def test_checkpoint_that_is_not_an_adapter_is_adapter_config(text: str) -> None:
    assert top_answer(text) == ("family", "adapter-config")


def test_not_a_checkpoint_of_another_kind_stays_unanswered() -> None:
    assert top_answer("AssertionError: The given checkpoint is not a valid YOLO checkpoint\n") is None


# 3. no inputs / no decoder inputs in a training step -----------------------------------------------------------------

TRAIN_STEP = (
    "Traceback (most recent call last):\n"
    "  File \"train.py\", line 88, in <module>\n    trainer.train()\n"
    "  File \"/usr/lib/python3.10/site-packages/transformers/trainer.py\", line 1664, in train\n"
    "    return inner_training_loop(\n"
    "  File \"/usr/lib/python3.10/site-packages/transformers/trainer.py\", line 2649, in compute_loss\n"
    "    outputs = model(**inputs)\n"
    "  File \"/usr/lib/python3.10/site-packages/transformers/models/m2m_100/modeling_m2m_100.py\", line 1108, in forward\n"
    "    raise ValueError(\"You have to specify either decoder_input_ids or decoder_inputs_embeds\")\n"
    "ValueError: You have to specify either decoder_input_ids or decoder_inputs_embeds\n"
)


@pytest.mark.parametrize("text", [
    TRAIN_STEP,
    TRAIN_STEP.replace("decoder_input_ids or decoder_inputs_embeds", "input_ids or inputs_embeds"),
])
def test_missing_inputs_in_a_training_step_is_training_data(text: str) -> None:
    assert top_answer(text) == ("family", "training-data")


def test_missing_decoder_inputs_outside_a_run_stays_unanswered() -> None:
    text = (
        "Traceback (most recent call last):\n"
        "  File \"embed.py\", line 9, in <module>\n    out = model(input_ids=ids)\n"
        "  File \"/usr/lib/python3.10/site-packages/transformers/models/t5/modeling_t5.py\", line 1003, in forward\n"
        "    raise ValueError(f\"You have to specify either {err_msg_prefix}input_ids or {err_msg_prefix}inputs_embeds\")\n"
        "ValueError: You have to specify either decoder_input_ids or decoder_inputs_embeds\n"
    )
    assert top_answer(text) is None


# 4. a packed 4-bit parameter is not a checkpoint that does not fit ---------------------------------------------------

def test_packed_4bit_target_shape_is_not_checkpoint_io() -> None:
    assert top_answer(report("gh:artidoro/qlora#135")) != ("family", "checkpoint-io")


def test_checkpoint_tensor_of_another_shape_is_still_checkpoint_io() -> None:
    text = ('ValueError: Trying to set a tensor of shape torch.Size([32000, 4096]) in "weight" (which has shape '
            'torch.Size([32001, 4096])), this looks incorrect.\n')
    assert top_answer(text) == ("family", "checkpoint-io")

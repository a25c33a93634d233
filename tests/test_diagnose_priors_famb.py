"""The priors of tables/priors.toml's famB block (issue #24: families kb was silent on in natural reports) and the
title that names an exception inside its sentence (kb/diagnose/priors.py). Each rule is checked on the forms real
reports take (written here, not copied) and on near forms that must stay unclaimed: another program's assert, the
warning's other wordings, titles of questions or of other failures. The learned fallback is left out: these tests
look at what the rules answer."""

from __future__ import annotations

import pytest
from rules_support import top


SP = "/home/ana/.venv/lib/python3.10/site-packages"


# ---- exception classes and messages ------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "RuntimeError: Assertion `cur_target >= 0 && cur_target < n_classes' failed.  at /pytorch/aten/src/THNN/generic/ClassNLLCriterion.c:94",
    "Assertion `srcIndex < srcSelectDimSize` failed.",
    "Assertion `t >= 0 && t < n_classes` failed.",
    "Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed.",
])
def test_torchs_range_check_assertions_are_device_side_assert(line: str) -> None:
    assert top(line + "\n") in {("device-side-assert", "family-prior"), ("device-side-assert", "family-evidence")}


def test_another_programs_c_assert_is_not_device_side_assert() -> None:
    line = ("python: /opt/csrc/aio/common/aio_common.cpp:125: int _do_io_complete(long long int): "
            "Assertion `n_completes >= min_completes' failed.\n")
    got = top(line)
    assert got is None or got[0] != "device-side-assert"


@pytest.mark.parametrize(("text", "family"), [
    ("ValueError: Unable to create tensor..\n", "training-data"),
    (f"{SP}/torch/utils/checkpoint.py:91: UserWarning: None of the inputs have requires_grad=True. "
     "Gradients will be None\n  warnings.warn(\n", "no-grad-fn"),
])
def test_cut_off_library_messages_name_their_family(text: str, family: str) -> None:
    assert top(text) == (family, "family-prior")


def test_other_value_errors_and_warnings_are_not_claimed_by_these_rules() -> None:
    assert top("ValueError: Unable to parse the config file\n") is None
    assert top("UserWarning: None of the handlers were configured\n") is None


def _rope_keyerror(frame_file: str) -> str:
    return ("Traceback (most recent call last):\n"
            '  File "/home/ana/proj/train.py", line 12, in <module>\n'
            "    model = AutoModelForCausalLM.from_pretrained(path)\n"
            f'  File "{frame_file}", line 110, in __init__\n'
            '    self.rope_type = config.rope_scaling.get("rope_type", config.rope_scaling["type"])\n'
            "KeyError: 'type'\n")


def test_a_keyerror_in_a_models_init_is_model_unsupported() -> None:
    got = top(_rope_keyerror(f"{SP}/transformers/models/llama/modeling_llama.py"))
    assert got is not None and got[0] == "model-unsupported"


def test_the_same_keyerror_in_other_code_is_not_model_unsupported() -> None:
    got = top(_rope_keyerror(f"{SP}/mylib/models/rotary.py"))
    assert got is None or got[0] != "model-unsupported"


# ---- titles --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("title", "family"), [
    ("Device assert failure when fine-tuning Mistral with QLoRA", "device-side-assert"),
    ("Error fine-tuning T5 with a new tokenizer", "device-side-assert"),
    ("Crash after adding special tokens to the Llama tokenizer", "device-side-assert"),
    ("internlm2 with trust_remote_code fails to load", "model-unsupported"),
    ("GPT-J throws an error on load after finetuning", "checkpoint-io"),
    ("the previously trained model fails to load after upgrading transformers", "checkpoint-io"),
    ("LoRA saving is broken since the last release", "checkpoint-io"),
    ("GPU memory keeps increasing every step with SFTTrainer", "cuda-oom"),
    ("JSON Lines file fails with load_dataset", "training-data"),
])
def test_a_title_of_these_families_names_it(title: str, family: str) -> None:
    assert top(title + "\n") == (family, "family-keyword")


@pytest.mark.parametrize("title", [
    "How to add new special tokens?",  # a question, no failure
    "resize_token_embeddings after adding new tokens gives wrong results",  # the resize itself, another story
    "What does trust_remote_code do?",
    "Load a checkpoint saved by Lightning",  # no failure, no trained model
    "Memory leak in the data loader of my detector",  # no GPU, no stack
    "GPU memory keeps increasing in my game engine",  # no stack word
    "Convert CSV to JSON Lines",
])
def test_near_titles_stay_unclaimed_by_these_rules(title: str) -> None:
    assert top(title + "\n") is None


# ---- a title that names an exception inside its sentence -------------------------------------------------------------

def test_a_title_naming_an_exception_is_read_for_its_words() -> None:
    title = "use accelerate to resume checkpoint raise IndexError: tuple index out of range\n"
    assert top(title) == ("checkpoint-io", "family-keyword")


@pytest.mark.parametrize("text", [
    "IndexError: tuple index out of range while resuming from checkpoint failed\n",  # the error line itself
    "[rank0]: IndexError: tuple index out of range resume from checkpoint fails\n",  # a log line, a rank prefix
    "cannot resume from checkpoint\nIndexError: tuple index out of range\n",  # two lines: not a title
])
def test_an_error_line_is_not_read_as_a_title(text: str) -> None:
    got = top(text)
    assert got is None or got[1] != "family-keyword"


# ---- frames --------------------------------------------------------------------------------------------------------

def _in(frames: list[tuple[str, str]], error: str) -> str:
    lines = ["Traceback (most recent call last):", '  File "/home/ana/proj/train.py", line 30, in <module>',
             "    model = build()"]
    for file, function in frames:
        lines += [f'  File "{SP}/{file}", line 200, in {function}', "    ..."]
    return "\n".join([*lines, error]) + "\n"


@pytest.mark.parametrize(("frames", "error", "family"), [
    ([("peft/mapping.py", "get_peft_model"), ("peft/tuners/tuners_utils.py", "inject_adapter")],
     "ValueError: the layers named by the config were not found among proj_in, proj_out", "adapter-config"),
    ([("peft/tuners/lora/model.py", "_create_and_replace"), ("peft/tuners/lora/model.py", "_create_new_module")],
     "ValueError: cannot wrap a layer of type Conv3d", "adapter-config"),
    ([("peft/peft_model.py", "set_adapter")], "ValueError: Adapter 'sql' is not loaded", "adapter-config"),
    ([("transformers/modeling_utils.py", "from_pretrained"), ("transformers/modeling_utils.py", "_load_pretrained_model")],
     "RuntimeError: a key of the shard names no parameter of the model", "checkpoint-io"),
    ([("transformers/modeling_utils.py", "save_pretrained")], "RuntimeError: the tensors could not be written", "checkpoint-io"),
])
def test_frames_of_adapter_injection_and_weight_loading_name_their_family(frames: list, error: str, family: str) -> None:
    assert top(_in(frames, error)) == (family, "family-prior")


@pytest.mark.parametrize(("frames", "error"), [
    # a peft layer's forward: the dtype or shape error of the computation passes through it
    ([("peft/tuners/lora/layer.py", "forward")], "RuntimeError: the two operands have different element types"),
    # the merge's arithmetic: the weights, not the adapter's configuration
    ([("peft/tuners/lora/model.py", "_unload_and_optionally_merge"), ("peft/tuners/lora/layer.py", "merge")],
     "ValueError: NaNs detected in the merged weights"),
    # transformers' other functions: a model's forward, generation
    ([("transformers/modeling_utils.py", "get_input_embeddings")], "NotImplementedError: no embeddings"),
])
def test_other_frames_of_the_same_files_are_not_claimed_by_these_rules(frames: list, error: str) -> None:
    got = top(_in(frames, error))
    assert got is None or got[0] not in ("adapter-config", "checkpoint-io")


def test_a_nameerror_through_datasets_map_workers_is_training_data() -> None:
    frames = [("datasets/arrow_dataset.py", "wrapper"), ("datasets/arrow_dataset.py", "map"),
              ("multiprocess/pool.py", "get")]
    # KB0048's signature (the worker's NameError re-raised through multiprocess's pool) now names the case itself
    assert top(_in(frames, "NameError: name 'tokenizer' is not defined")) == ("training-data", "case")
    in_process = [("datasets/arrow_dataset.py", "wrapper"), ("datasets/arrow_dataset.py", "map"),
                  ("datasets/arrow_dataset.py", "_map_single")]  # no worker pool: the prior decides
    assert top(_in(in_process, "NameError: name 'tokenizer' is not defined")) == ("training-data", "family-prior")
    # the same NameError raised elsewhere, and another error through map, are not this rule's
    assert top(_in([("mylib/tokenize.py", "run")], "NameError: name 'tokenizer' is not defined")) is None
    got = top(_in(frames, "OSError: [Errno 24] Too many open files"))
    assert got is None or got[0] != "training-data"

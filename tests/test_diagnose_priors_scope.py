"""What the corpus's wrong answers taught (benchmarks/corpus_wrongs.py): title words every deep-learning project uses
answer only when the title also names the fine-tuning stack; signatures that claimed another cause's (or another
program's) error are narrowed; silent known families get the library's own wordings. Inputs are written in the forms
real reports take, not copied from them. The learned fallback (kb/diagnose/fallback.py) is another mechanism: these
tests look at what the rules answer, so they hold whatever it is trained on."""

from __future__ import annotations

import pytest

from kb.knowledge.tables import read_table
from rules_support import ruled, top

SP = "/home/ana/.venv/lib/python3.10/site-packages"


# ---- title keywords need the stack ----------------------------------------------------------------------------

@pytest.mark.parametrize("title", [
    "Training stuck after one step",
    "Training: stuck",
    "The training is stuck",
    "TFTrainer stuck in evaluation",
    "Out of memory when finetuning model",
    "out of memory for fine tuning",
    "fine tuning successfully but inference oom",
    "training gets killed after a few epochs",
])
def test_a_title_that_names_no_part_of_the_stack_is_not_claimed(title: str) -> None:
    assert ruled(title + "\n") == []


@pytest.mark.parametrize(("title", "family"), [
    ("Multi-node training hangs at accelerator.prepare(model)", "hang"),
    ("Deepspeed hangs on multi-gpu / works fine on single gpu", "hang"),
    ("qlora_finetune gets killed while loading", "host-oom"),
    ("OOM error while running LoRa", "cuda-oom"),
    ("Out of Memory Error: DPO Trainer", "cuda-oom"),
    ("load_checkpoint_and_dispatch gets OOM on Tesla P4", "cuda-oom"),
    ("training progress stuck at 0% for three days", "hang"),
])
def test_a_title_that_names_the_stack_is_answered_by_keyword(title: str, family: str) -> None:
    assert top(title + "\n") == (family, "family-keyword")


def test_a_warning_that_something_can_cause_a_hang_is_no_hang() -> None:
    line = ("[rank0]:[W717 13:43:26 ProcessGroupNCCL.cpp:4115] using GPU 0 to perform barrier as devices used by this "
            "process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.\n")
    assert ("hang", "family-keyword") not in ruled("Error in multi-GPU LoRA fine-tuning\n" + line)
    assert ("hang", "family-keyword") not in ruled(line)


def test_the_stack_words_are_defined_once_and_the_generic_rules_need_them() -> None:
    """The rules of generic words (a hang, an OOM, a kill) say ``needs_stack`` and read the one [stack] definition;
    no rule carries a copy of it in ``all`` (a copy edited alone would answer some titles under one family and not
    under another)."""
    table = read_table("priors")
    rules, words = table["keyword"], table["stack"]["words"]
    generic = [r for r in rules if r["family"] in ("hang", "cuda-oom", "host-oom")
               and "0 ?%" not in r["all"][0] and any(w in r["all"][0] for w in ("hang", "out of memory", "killed", "ram"))]
    assert words and len(generic) == 6 and all(r["needs_stack"] for r in generic)  # host RAM leaking (famA), growing GPU memory (famB)
    assert not any(words in r["all"] or "llms?|q?lora" in p for r in rules for p in r["all"])


# ---- signatures narrowed ------------------------------------------------------------------------------------------

def test_a_host_assert_of_an_extension_is_no_device_side_assert() -> None:
    host = (f"python: {SP}/deepspeed/ops/csrc/aio/common/deepspeed_aio_common.cpp:125: int _do_io_complete(long long int): "
            "Assertion `n_completes >= min_completes' failed.\n")
    kernel = ("/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1141: indexSelectLargeIndex: block: [1,0,0], thread: [0,0,0] "
              "Assertion `srcIndex < srcSelectDimSize` failed.\n")
    assert all(family != "device-side-assert" for family, _ in ruled(host))
    assert top(kernel) == ("device-side-assert", "family-evidence")


def test_empty_tensors_in_a_checkpoint_are_checkpoint_io_not_an_adapter_of_another_shape() -> None:
    def mismatch(shape: str) -> str:
        return ("RuntimeError: Error(s) in loading state_dict for PeftModelForCausalLM:\n"
                f"\tsize mismatch for base_model.model.model.layers.3.mlp.up_proj.lora_B.default.weight: copying a param "
                f"with shape torch.Size([{shape}]) from checkpoint, the shape in current model is torch.Size([11008, 8]).\n")
    assert top(mismatch("0")) == ("checkpoint-io", "family-evidence")
    assert top(mismatch("11008, 16")) != ("checkpoint-io", "family-evidence")


def test_a_model_config_read_as_an_adapter_config_is_adapter_config() -> None:
    wrong_file = "TypeError: PeftConfig.__init__() got an unexpected keyword argument '_name_or_path'\n"
    newer_option = "TypeError: LoraConfig.__init__() got an unexpected keyword argument 'use_dora'\n"
    assert top(wrong_file) == ("adapter-config", "family-evidence")
    assert top(newer_option) == ("api-drift", "family-evidence")


def test_a_tensorflow_model_without_weights_is_not_claimed() -> None:
    def load(file: str, code: str) -> str:
        return ("Traceback (most recent call last):\n"
                '  File "<stdin>", line 1, in <module>\n'
                f'  File "{SP}/transformers/{file}", line 653, in from_pretrained\n    {code}\n'
                "OSError: Error no file named ['pytorch_model.bin', 'tf_model.h5'] found in directory /models/exp1 "
                "or `from_pt` set to False\n")
    assert ruled(load("modeling_tf_utils.py", "[WEIGHTS_NAME, TF2_WEIGHTS_NAME], pretrained_model_name_or_path")) == []
    assert top(load("modeling_utils.py", "raise EnvironmentError(")) == ("checkpoint-io", "family-evidence")


def test_device_map_auto_in_distributed_mode_without_backticks() -> None:
    # (case50) KB0053 device-map-auto-under-distributed-launch answers accelerate's sentence (its family is the same)
    line = ("ValueError: You can't train a model that has been loaded with device_map='auto' in any distributed mode. "
            "Please rerun your script specifying --num_processes=1\n")
    assert top(line) == ("multi-gpu-launch", "case")


# ---- silent known families ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "family"), [
    ("RuntimeError: Unable to proceed, no GPU resources available\n", "cuda-setup"),
    ("StopIteration: Caught StopIteration in replica 0 on device 0.\n", "multi-gpu-launch"),
    ("ValueError: The model you want to train is loaded in 8-bit precision.  if you want to fine-tune an 8-bit model, "
     "please make sure that you have installed `bitsandbytes>=0.37.0`.\n", "adapter-config"),
    ("ValueError: You have set args.eval_strategy to steps but you didn't pass an eval_dataset to Trainer. Either set "
     "args.eval_strategy to no or pass an eval_dataset.\n", "training-data"),
    ("AssertionError: No inf checks were recorded for this optimizer.\n", "fp16-gradients"),
    ("RuntimeError: output with shape [8, 12, 1, 1] doesn't match the broadcast shape [8, 12, 1, 8]\n", "shape-mismatch"),
    ('raise Exception("Could not find the transformer layer class to wrap in the model.")\n', "sharding-config"),
])
def test_library_wordings_of_known_families(text: str, family: str) -> None:
    assert top(text) == (family, "family-evidence")


def test_a_worker_segfault_under_torchrun_is_multi_gpu_launch() -> None:
    text = ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -11) local_rank: 0 (pid: 15084) of "
            "binary: /opt/conda/bin/python\n")
    assert top(text) == ("multi-gpu-launch", "family-prior")
    assert top("Segmentation fault (core dumped)\n") is None


def test_an_import_guard_naming_a_stack_package_is_package_install() -> None:
    stack = 'ImportError: Unsloth: Please install unsloth_zoo via `pip install unsloth-zoo`\n'
    other = "ImportError: Please install the plotting extras via `pip install matplotlib`\n"
    assert top(stack) == ("package-install", "family-prior")
    assert ("package-install", "family-prior") not in ruled(other)


def test_powershell_cannot_find_a_stack_cli() -> None:
    line = ("swift : The term 'swift' is not recognized as the name of a cmdlet, function, script file, or operable "
            "program.\n")
    assert top(line) == ("package-install", "family-prior")

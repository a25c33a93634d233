"""The err39 rules (issue #24): each on the forms of the real reports it was built from (corpus batch gh-err-04 and the
dev corpus) and on the near forms it must decline.

- tables/priors.toml, block "err39": transformers' and trl's lazy import failing on a package that is not installed
  (package-install); MPS's placeholder-storage error in a run of the stack (device-mismatch);
- families/shape-mismatch.md conv-input-channels; families/model-unsupported.md attention-implementation-unsupported
  and sdpa-unsupported.
"""

from __future__ import annotations

import pytest

from rules_support import ruled


def _top(text: str) -> tuple[str, str] | None:
    found = ruled(text)
    return found[0] if found else None


# -- the lazy import of a stack module ----------------------------------------------------------------------------------
LAZY = ("{prefix}RuntimeError: Failed to import {module} because of the following error (look up to see its traceback):\n"
        "{prefix}No module named '{missing}'\n")


@pytest.mark.parametrize(("module", "missing", "prefix"), [
    ("trl.trainer.ppo_config", "tyro", ""),  # LlamaFactory#6061
    ("trl.trainer.grpo_trainer", "mergekit", "[rank0]: "),  # ms-swift#9261, under torchrun (each line prefixed)
    ("transformers.models.qwen2_vl.modeling_qwen2_vl", "qwen_omni_utils.v2", ""),
])
def test_a_stack_module_whose_dependency_is_not_installed(module: str, missing: str, prefix: str) -> None:
    assert _top(LAZY.format(module=module, missing=missing, prefix=prefix)) == ("package-install", "family-prior")


@pytest.mark.parametrize(("module", "missing"), [
    ("transformers.trainer", "torch._six"),  # the stack's own module, gone in a newer torch: not this rule
    ("trl.trainer.sft_trainer", "transformers.models.llama.tokenization_llama_fast"),
])
def test_the_stacks_own_modules_are_not_a_missing_package(module: str, missing: str) -> None:
    assert _top(LAZY.format(module=module, missing=missing, prefix="")) != ("package-install", "family-prior")


def test_another_programs_lazy_import_is_not_claimed() -> None:
    text = LAZY.format(module="mmdet.models.detectors", missing="mmcv._ext", prefix="")
    assert _top(text) != ("package-install", "family-prior")


# -- MPS's placeholder storage -----------------------------------------------------------------------------------------
MPS = "RuntimeError: Placeholder storage has not been allocated on MPS device!\n"


def test_mps_placeholder_storage_in_a_trainer_run_is_device_mismatch() -> None:
    # Domain-Specific-Small-Language-Models#4: the notebook's traceback after the error names transformers' Trainer
    text = (MPS + "\n" + "-" * 75 + "\nRuntimeError                              Traceback (most recent call last)\n"
            "Cell In[12], line 1\n----> 1 trainer.train()\n\n"
            "File ~/miniforge3/envs/default/lib/python3.11/site-packages/transformers/trainer.py:1932, in Trainer.train(self)\n")
    assert _top(text) == ("device-mismatch", "family-prior")


def test_mps_placeholder_storage_pasted_alone_stays_unclaimed() -> None:
    # the same line from a web UI's extension (out of scope) and from a course's notebook: nothing says which program
    assert _top(MPS) is None


def test_mps_placeholder_storage_in_another_program_stays_unclaimed() -> None:
    text = (MPS + "Traceback (most recent call last):\n"
            '  File "/Users/me/stable-diffusion-webui/modules/processing.py", line 732, in process_images\n'
            "    res = process_images_inner(p)\n")
    assert _top(text) is None


# -- a convolution's input channels -------------------------------------------------------------------------------------
CONV = ("Given groups=1, weight of size [768, 80, 3], expected input[8, 70, 3000] to have 80 channels, "
        "but got 70 channels instead")


def test_conv_input_channels_is_a_shape_mismatch() -> None:
    assert _top(f"RuntimeError: {CONV}\n") == ("shape-mismatch", "family-evidence")


def test_conv_input_channels_pasted_after_a_logger_prefix() -> None:
    # whisper_ai_finetune#1: "RuntimeError occurred during training: ..." (no exception line the parser reads)
    assert _top(f"RuntimeError occurred during training: {CONV}\n") == ("shape-mismatch", "family-evidence")


def test_a_conv_error_of_other_words_is_not_this_signature() -> None:
    text = "RuntimeError: Given groups=1, weight of size [64, 3, 7, 7], expected 4D input, but got 3D input instead\n"
    assert _top(text) != ("shape-mismatch", "family-evidence")


# -- an attention implementation the installed transformers lacks for the model ------------------------------------------
@pytest.mark.parametrize("message", [
    # LLM-Workshop#4 (StarCoder before transformers had its flash-attention path)
    "ValueError: The current architecture does not support Flash Attention 2.0. Please open an issue on GitHub to "
    "request support for this architecture: https://github.com/huggingface/transformers/issues/new",
    "ValueError: Phi3VForCausalLM does not support Flash Attention 2.0 yet. Please request to add support where the model "
    "is hosted, on its model hub page: https://huggingface.co/microsoft/Phi-3-vision-128k-instruct/discussions/new",
    "ValueError: GPT2LMHeadModel does not support an attention implementation through "
    "torch.nn.functional.scaled_dot_product_attention yet. Please request the support for this architecture",
])
def test_an_attention_implementation_the_model_class_lacks(message: str) -> None:
    assert _top(message + "\n") == ("model-unsupported", "family-evidence")


def test_flash_attention_not_installed_stays_its_cases() -> None:
    text = ("ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: the "
            "package flash_attn seems to be not installed.\n")
    assert _top(text) == ("package-install", "case")  # KB0042, not model-unsupported's new signatures


# -- a traceback cut inside bitsandbytes' import ------------------------------------------------------------------------
WIN = r"C:\Users\me\anaconda3\envs\ft\Lib\site-packages"
BNB_IMPORT = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 3, in <module>\n'
    "    from accelerate import Accelerator\n"
    f'  File "{WIN}\\accelerate\\utils\\bnb.py", line 42, in <module>\n'
    "    import bitsandbytes as bnb\n"
    f'  File "{WIN}\\bitsandbytes\\__init__.py", line 6, in <module>\n'
    "    from . import cuda_setup, utils, research\n"
    f'  File "{WIN}\\bitsandbytes\\research\\nn\\__init__.py", line 1, in <module>\n'
    "    from .modules import LinearFP8Mixed, LinearFP8Global\n"
)


def test_a_traceback_cut_inside_bitsandbytes_import_is_cuda_setup() -> None:
    assert _top(BNB_IMPORT) == ("cuda-setup", "family-prior")  # bitsandbytes#648


def test_a_traceback_cut_where_transformers_imports_bitsandbytes_stays_unanswered() -> None:
    # autotrain-advanced#429 (the dev set's natural-14-autotrain-advanced-429, labelled "none": the cause is not shown)
    text = ("Traceback (most recent call last):\n"
            f'  File "{WIN}\\transformers\\utils\\import_utils.py", line 1382, in _get_module\n'
            '    return importlib.import_module("." + module_name, self.__name__)\n'
            f'  File "{WIN}\\transformers\\integrations\\bitsandbytes.py", line 11, in <module>\n'
            "    import bitsandbytes as bnb\n")
    assert _top(text) is None


def test_an_import_that_names_what_it_cannot_import_is_not_this_rule() -> None:
    text = BNB_IMPORT + ("ImportError: cannot import name 'LinearFP8Mixed' from 'bitsandbytes.research.nn.modules' "
                         f"({WIN}\\bitsandbytes\\research\\nn\\modules.py)\n")
    assert _top(text) != ("cuda-setup", "family-prior")


def test_a_frame_inside_a_bitsandbytes_function_is_not_an_import() -> None:
    text = ("Traceback (most recent call last):\n"
            f'  File "{WIN}\\bitsandbytes\\__init__.py", line 30, in get_special_format_str\n'
            "    return 'col_turing'\n")
    assert _top(text) != ("cuda-setup", "family-prior")

"""The err41 rules (issue #24): each on the error output of the real report it was built from (dev-corpus batch gh-err-06
and the earlier err batches; the URL beside each) and on the near forms it must decline.

- tables/priors.toml [other_code]: AutoAWQ's own quantizer, kernels and model classes are other software (an error they
  raise is not the fine-tuning stack's shape mismatch); a missing `awq` package is still an install problem; GPUtil's
  parse of nvidia-smi's output is GPUtil's;
- tables/priors.toml block "err41": a CUDA kernel assertion cut before "failed" (device-side-assert), transformers' flash-attn
  check raising ImportError under a cut message (package-install), the same ImportError's first words alone;
- families/api-drift.md kwarg-stack-class / positional-stack-class: transformers' GenerationMixin is a class of the stack;
- families/device-mismatch.md nccl-tensor-not-on-gpu: NCCL's refusal of a tensor that is not on a GPU;
- kb/diagnose/drift.py: a line of a warning's own message is not the report's words (a warnings-only log);
- kb/diagnose/parser.py: a traceback pasted with its indentation stripped keeps its frames' code lines.
"""

from __future__ import annotations

import pytest

from rules_support import ruled

SP = "/home/ana/.venv/lib/python3.11/site-packages"  # a site-packages folder for the frames tests build


def _top(text: str) -> tuple[str, str] | None:
    found = ruled(text)
    return found[0] if found else None


# -- AutoAWQ's own code is other software ------------------------------------------------------------------------------
BROADCAST = "RuntimeError: output with shape [8388608, 1] doesn't match the broadcast shape [8388608, 4096]\n"


def test_an_error_autoawqs_quantizer_raises_is_not_claimed() -> None:
    # casper-hansen/AutoAWQ#440: AWQ quantization of a model merged from a QLoRA run, raised in AutoAWQ's quantizer
    text = (f'  File "{SP}/awq/quantize/quantizer.py", line 274, in _search_best_scale\n'
            "    best_scales = self._compute_best_scale(\n"
            f'  File "{SP}/awq/quantize/quantizer.py", line 329, in _compute_best_scale\n'
            "    fc.weight.mul_(scales_view)\n" + BROADCAST)
    assert _top(text) is None


def test_the_same_message_raised_in_the_users_code_still_answers() -> None:
    text = ('Traceback (most recent call last):\n  File "/home/ana/train.py", line 12, in <module>\n'
            "    w.mul_(s)\n" + BROADCAST)
    assert _top(text) == ("shape-mismatch", "family-evidence")


def test_a_missing_awq_package_is_still_an_install_problem() -> None:
    text = ('Traceback (most recent call last):\n  File "/home/ana/quant.py", line 1, in <module>\n'
            "    from awq import AutoAWQForCausalLM\nModuleNotFoundError: No module named 'awq'\n")
    assert _top(text) == ("package-install", "family-evidence")


def test_transformers_own_awq_integration_is_the_stacks() -> None:
    # the rule names AutoAWQ's package folders only: transformers/integrations/awq.py is not other software's code
    text = ('Traceback (most recent call last):\n  File "/home/ana/train.py", line 5, in <module>\n'
            "    model = get_peft_model(model, config)\n"
            f'  File "{SP}/transformers/integrations/awq.py", line 120, in replace_with_awq_linear\n'
            "    w.mul_(s)\n" + BROADCAST)
    assert _top(text) == ("shape-mismatch", "family-evidence")


@pytest.mark.parametrize(("error", "family"), [
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 14.74 GiB "
     "of which 1.02 GiB is free. Process 1234 has 13.72 GiB memory in use.", "cuda-oom"),
    ("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: float != c10::Half", "dtype-mismatch"),
])
def test_autoawqs_kernels_under_a_lora_training_step_are_the_stacks(error: str, family: str) -> None:
    # (review41) peft's LoRA layer over an AWQ model calls AutoAWQ's WQLinear kernel (awq/modules/) in the training
    # step: an OOM or a dtype clash raised there is the run's, as it was before awq/ was named other software
    text = ('Traceback (most recent call last):\n  File "/home/ana/train.py", line 80, in <module>\n'
            "    trainer.train()\n"
            f'  File "{SP}/transformers/trainer.py", line 1859, in train\n    return inner_training_loop(\n'
            f'  File "{SP}/peft/tuners/lora/awq.py", line 70, in forward\n    result = self.quant_linear_module(x)\n'
            f'  File "{SP}/awq/modules/linear/gemm.py", line 48, in forward\n    out = torch.matmul(x, out)\n'
            + error + "\n")
    found = _top(text)
    assert found is not None and found[0] == family, found


# -- GPUtil's parse of nvidia-smi's output is other software's --------------------------------------------------------
NVML = "Failed to initialize NVML: Unknown Error"


def test_gputil_reading_nvidia_smis_error_as_a_number_is_not_claimed() -> None:
    # h2oai/h2o-llmstudio#446: a web UI's GPU-load tile; GPUtil parsed nvidia-smi's error line as a GPU id
    text = ("2023-10-15 17:20:00,029 - ERROR: Unknown exception\nTraceback (most recent call last):\n"
            '  File "/workspace/./llm_studio/app_utils/utils.py", line 1933, in get_gpu_usage\n'
            "    all_gpus = GPUtil.getGPUs()\n"
            f'  File "{SP}/GPUtil/GPUtil.py", line 102, in getGPUs\n    deviceIds = int(vals[i])\n'
            f"ValueError: invalid literal for int() with base 10: '{NVML}'\n")
    assert _top(text) is None


def test_nvidia_smis_own_error_line_still_answers() -> None:
    assert _top(f"$ nvidia-smi\n{NVML}\n") == ("cuda-setup", "family-prior")


# -- a CUDA kernel assertion cut before "failed" -----------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    # huggingface/transformers#30464: the reporter's terminal wrapped the assertion inside its condition
    "../aten/src/ATen/native/cuda/Indexing.cu:1292: indexSelectLargeIndex: block: [126,0,0], thread: [32,0,0] "
    "Assertion `srcIndex < srcSelectDim\nSize` failed.\n",
    # the same shape from a loss kernel, cut at the line's end by a concurrent thread's output
    "/opt/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
    "thread: [5,0,0] Assertion `t >= 0 && t < n_cla\n",
])
def test_a_cut_kernel_assertion_is_a_device_side_assert(text: str) -> None:
    assert _top(text) == ("device-side-assert", "family-prior")


def test_a_c_programs_cut_assertion_is_not_a_kernels() -> None:
    # glibc's assert() of a host program (DeepSpeed's async I/O op): no block and thread of a CUDA kernel
    text = "python: csrc/aio/common/deepspeed_aio_common.cpp:125: int _do_io_complete(long long int): Assertion `n_comp\n"
    assert _top(text) is None


# -- transformers' flash-attn check -------------------------------------------------------------------------------------
def _flash_check(exc: str, message: str, function: str = "_check_and_enable_flash_attn_2") -> str:
    return ('Traceback (most recent call last):\n  File "/home/ana/train.py", line 3, in <module>\n'
            '    model = AutoModelForCausalLM.from_pretrained(m, attn_implementation="flash_attention_2")\n'
            f'  File "{SP}/transformers/modeling_utils.py", line 3544, in from_pretrained\n'
            "    config = cls._autoset_attn_implementation(\n"
            f'  File "{SP}/transformers/modeling_utils.py", line 1551, in {function}\n'
            f"    raise {exc}(\n{exc}: {message}\n")


def test_the_flash_attn_checks_import_error_cut_short_is_an_install_problem() -> None:
    # hiyouga/LlamaFactory#3464: the traceback shows the frame that raised, the message is cut at "ImportError: Fla"
    assert _top(_flash_check("ImportError", "Fla")) == ("package-install", "family-prior")
    assert _top(_flash_check("ImportError", "Fla", "_check_and_enable_flash_attn_3")) == ("package-install",
                                                                                          "family-prior")


def test_the_flash_attn_checks_value_error_is_not_this_rule() -> None:
    # the same function's ValueErrors are an architecture without flash-attn support or a dtype: other families'
    assert _top(_flash_check("ValueError", "Fla")) is None


def test_another_import_error_of_modeling_utils_is_not_this_rule() -> None:
    assert _top(_flash_check("ImportError", "Usi", "from_pretrained")) is None


def test_the_flash_attn_import_errors_first_words_alone() -> None:
    # zhangfaen/finetune-Qwen2-VL#20: the message as its title carried it
    assert _top("ImportError: FlashAttention2 has been toggled\n") == ("package-install", "family-prior")


# -- transformers' GenerationMixin is a class of the stack -------------------------------------------------------------
def test_a_generation_mixin_helper_given_an_old_keyword_is_api_drift() -> None:
    # AI4Finance-Foundation/FinGPT#197: a ChatGLM2 LoRA's remote code on a newer transformers
    text = ("TypeError: GenerationMixin._extract_past_from_model_output() got an unexpected keyword argument "
            "'standardize_cache_format'\n")
    assert _top(text) == ("api-drift", "family-evidence")


def test_a_users_own_mixin_is_not_the_stacks() -> None:
    text = ("TypeError: MyMixin._extract_past_from_model_output() got an unexpected keyword argument "
            "'standardize_cache_format'\n")
    assert _top(text) is None


# -- NCCL refuses a tensor that is not on a GPU -------------------------------------------------------------------------
def test_nccl_given_a_cpu_tensor_is_a_device_mismatch() -> None:
    # huggingface/trl#451: the policy model was left on the CPU when DDP wrapped it
    assert _top("RuntimeError: Tensors must be CUDA and dense\n") == ("device-mismatch", "family-evidence")


def test_another_tensor_requirement_is_not_this_signature() -> None:
    assert _top("RuntimeError: Tensors must be contiguous\n") is None


# -- a warning's own second line is not the report's words (kb/diagnose/drift.py) ----------------------------------------
FS_WARNING = ("/home/ana/.local/lib/python3.8/site-packages/datasets/dataset_dict.py:1241: FutureWarning: 'fs' was is "
              "deprecated in favor of 'storage_options' in version 2.8.0 and will be removed in 3.0.0.\n"
              "You can remove this warning by passing 'storage_options=fs.storage_options' instead.\n"
              "  warnings.warn(\n"
              "07/01/2023 12:57:17 - INFO - __main__ - training datasets-017 has been loaded from disk\n")


def test_a_log_of_a_warning_alone_is_not_answered_by_its_own_words() -> None:
    # ymcui/Chinese-LLaMA-Alpaca#681: datasets' FutureWarning and the run's INFO lines; the error that stopped the run is
    # not shown. The warning's second line ("You can remove this warning ...") is the warning's, not the reporter's.
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.knowledge.registry import load_knowledge

    assert diagnose_lines(FS_WARNING.splitlines(keepends=True), load_knowledge()).answers == []


def test_a_report_that_speaks_of_the_warning_is_still_answered() -> None:
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.knowledge.registry import load_knowledge

    log = "How do I get rid of this deprecation warning when saving the dataset?\n" + FS_WARNING
    answers = diagnose_lines(log.splitlines(keepends=True), load_knowledge()).answers
    assert answers and answers[0].match.entry.key == "api-drift"


# -- a traceback pasted with its indentation stripped (kb/diagnose/parser.py) -------------------------------------------
def test_a_flat_tracebacks_code_lines_do_not_end_it() -> None:
    # h2oai/h2o-llmstudio#447: the same GPUtil error as #446, pasted with every line's indentation stripped; each frame's
    # code line ended the traceback, so the error had no frames and NVML's process line answered cuda-setup
    text = ("2023-10-15 17:20:00,029 - ERROR: Unknown exception\nTraceback (most recent call last):\n"
            'File "/workspace/./llm_studio/app_utils/handlers.py", line 76, in handle\nawait home(q)\n'
            'File "/workspace/./llm_studio/app_utils/utils.py", line 1933, in get_gpu_usage\n'
            "all_gpus = GPUtil.getGPUs()\n"
            f'File "{SP}/GPUtil/GPUtil.py", line 102, in getGPUs\ndeviceIds = int(vals[i])\n'
            f"ValueError: invalid literal for int() with base 10: '{NVML}'\n")
    assert _top(text) is None


def test_a_flat_tracebacks_frames_and_code_are_read() -> None:
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.knowledge.registry import load_knowledge

    text = ('Traceback (most recent call last):\nFile "/home/ana/train.py", line 9, in <module>\ntrainer.train()\n'
            f'File "{SP}/transformers/trainer.py", line 1555, in train\nreturn inner_training_loop(\n'
            "ZeroDivisionError: division by zero\n")
    root = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).root_error
    assert root is not None and root.type == "ZeroDivisionError"
    assert [f.code for f in root.frames] == ["trainer.train()", "return inner_training_loop("]


def test_a_flat_frame_without_source_takes_no_code_line() -> None:
    """(review41) Python prints no source line under a frozen module's or an exec'd string's frame: the line after one,
    in a stripped traceback, is the error itself (here pasted without its type), not the frame's code."""
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.knowledge.registry import load_knowledge

    text = (f'Traceback (most recent call last):\nFile "{SP}/transformers/trainer.py", line 10, in train\n'
            'loss.backward()\nFile "<frozen torch>", line 5, in backward\n'
            "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 14.75 GiB total capacity; 13.9 GiB already "
            "allocated; 10.81 MiB free; 14.1 GiB reserved in total by PyTorch)\n")
    answers = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers
    assert answers and answers[0].match.entry.key == "cuda-oom", answers


def test_a_log_line_after_an_indented_frame_still_ends_a_cut_traceback() -> None:
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.knowledge.registry import load_knowledge

    text = ('Traceback (most recent call last):\n  File "/home/ana/train.py", line 9, in <module>\n'
            "step 10 loss 2.31\nZeroDivisionError: division by zero\n")
    root = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).root_error
    assert root is not None and root.type == "ZeroDivisionError" and not root.frames

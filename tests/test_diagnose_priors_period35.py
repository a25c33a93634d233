"""The priors added from batch gh-period-35's first score (tables/priors.toml): unsloth's model dispatch refusing a
checkpoint, unsloth_zoo's rewritten copy of a library module failing to load, transformers' "Could not locate the
<file> inside <repo>" line before a network error, Lightning finding no GPU backend, and bitsandbytes' bare
"cublasLt ran into an error!". Each is checked on forms real reports take (written here, not copied) and on near
forms of other software that must stay unclaimed. The learned fallback is left out: these tests look at what the
rules answer."""

from __future__ import annotations

import pytest
from rules_support import top


SP = "/opt/conda/lib/python3.11/site-packages"


def traceback(frames: list[tuple[str, str]], last: str) -> str:
    body = "".join(f'  File "{f}", line 10, in {fn}\n    pass\n' for f, fn in frames)
    return f'Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n    main()\n{body}{last}\n'


UNSLOTH_LOAD = [(f"{SP}/unsloth/models/loader.py", "from_pretrained")]


@pytest.mark.parametrize("last", [
    "NotImplementedError: Unsloth: google/gemma-4-31B-it is not supported in your current Unsloth version! "
    "Please update Unsloth via:",
    "NotImplementedError: Unsloth: ./outputs/merged-qwen3 not supported yet!",
    "NotImplementedError: Unsloth: /root/.cache/huggingface/hub/models--org--m-7b not supported yet!",
])
def test_unsloth_dispatch_refusing_a_checkpoint_is_model_unsupported(last: str) -> None:
    assert top(traceback(UNSLOTH_LOAD, last)) == ("model-unsupported", "family-prior")
    assert top(last + "\nMaybe you're doing vision finetuning? Please use FastVisionModel instead!\n") == (
        "model-unsupported", "family-prior")


@pytest.mark.parametrize("last", [
    "NotImplementedError: Unsloth: Tensor parallelism is not supported yet!",  # a feature, not a checkpoint
    "NotImplementedError: Model google/gemma-2b not supported yet!",  # another program's dispatch
    "NotImplementedError: onnx/opset18 not supported yet!",
])
def test_other_not_supported_refusals_are_not_model_unsupported_by_the_prior(last: str) -> None:
    got = top(last + "\n")
    assert got is None or got != ("model-unsupported", "family-prior")


@pytest.mark.parametrize("last", [
    "RuntimeError: Direct module loading failed for unsloth_compiled_module_qwen3_vl: invalid syntax "
    "(unsloth_compiled_module_qwen3_vl.py, line 612)",
    "RuntimeError: Direct module loading failed for Linear_peft_forward: name 'Any' is not defined",
    "RuntimeError: Direct module loading failed for UnslothDPOTrainer: unexpected indent (UnslothDPOTrainer.py, line 90)",
])
def test_unsloth_compiled_copy_failing_to_load_is_drift(last: str) -> None:
    frames = [(f"{SP}/unsloth_zoo/compiler.py", "unsloth_compile_transformers")]
    assert top(traceback(frames, last)) == ("api-drift", "family-prior")
    assert top(last + "\n") == ("api-drift", "family-prior")


@pytest.mark.parametrize("last", [
    "RuntimeError: Module loading failed for plugin audio_sink: file not found",
    "ImportError: Direct module loading failed for mymod: no such file",  # another class
    "RuntimeError: direct module loading failed",
])
def test_other_module_loading_failures_are_not_drift_by_the_prior(last: str) -> None:
    got = top(last + "\n")
    assert got is None or got != ("api-drift", "family-prior")


@pytest.mark.parametrize("first", [
    "Could not locate the configuration_chatglm.py inside THUDM/chatglm2-6b.",
    "[ERROR|dynamic_module_utils.py:420] 2024-03-01 >> Could not locate the modeling_qwen.py inside Qwen/Qwen-7B-Chat.",
])
def test_transformers_could_not_locate_a_hub_file_is_hub_access(first: str) -> None:
    frames = [(f"{SP}/urllib3/util/connection.py", "create_connection")]
    assert top(first + "\n" + traceback(frames, "OSError: [Errno 101] Network is unreachable")) == (
        "hub-access", "family-prior")


@pytest.mark.parametrize("first", [
    "Could not locate the executable inside PATH.",  # no repo id
    "Could not locate the file model.bin inside the archive.",
    "warning: could not locate the header inside include/third_party for zlib",  # more after the path
])
def test_other_could_not_locate_lines_are_not_hub_access(first: str) -> None:
    got = top(first + "\nOSError: [Errno 2] No such file or directory\n")
    assert got is None or got[0] != "hub-access"


@pytest.mark.parametrize("last", [
    "pytorch_lightning.utilities.exceptions.MisconfigurationException: No supported gpu backend found!",
    "lightning_fabric.utilities.exceptions.MisconfigurationException: No supported gpu backend found!",
])
def test_lightning_without_a_gpu_backend_is_cuda_setup(last: str) -> None:
    assert top(last + "\n") == ("cuda-setup", "family-prior")


@pytest.mark.parametrize("last", [
    "pytorch_lightning.utilities.exceptions.MisconfigurationException: No TPU devices were found.",
    "MisconfigurationException: `val_check_interval` (100) must be less than or equal to the number of the "
    "training batches (20).",
])
def test_other_lightning_misconfigurations_are_not_cuda_setup(last: str) -> None:
    got = top(last + "\n")
    assert got is None or got[0] != "cuda-setup"


def test_bitsandbytes_cublaslt_failure_is_cuda_setup() -> None:
    frames = [(f"{SP}/bitsandbytes/autograd/_functions.py", "forward"),
              (f"{SP}/bitsandbytes/functional.py", "igemmlt")]
    text = traceback(frames, "Exception: cublasLt ran into an error!")
    assert top(text) == ("cuda-setup", "family-prior")
    assert top("Exception: cublasLt ran into an error!\n") == ("cuda-setup", "family-prior")


@pytest.mark.parametrize("line", [
    "ERROR: cublasLt ran into an error while tuning the GEMM (status 15)",  # another program's log
    "cublasLt ran into an error in the fused kernel; retrying with cuBLAS",
])
def test_other_cublaslt_lines_are_not_claimed(line: str) -> None:
    got = top(line + "\n")
    assert got is None or got[0] != "cuda-setup"

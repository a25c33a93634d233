"""The priors and signatures added for issue #24's silent families (cuda-setup, package-install, multi-gpu-launch,
sharding-config, host-oom): bitsandbytes' unloaded library and its setup lines, DeepSpeed's run-time op builds and
ZeRO's own errors, the sharders' configuration frames, torchrun's argument checks, a MemoryError in the stack, a
notebook kernel restarted, and title words. Each is checked on the forms real reports take (written here, not
copied) and on near forms of other software that must stay unclaimed. The learned fallback is left out: these tests
look at what the rules answer."""

from __future__ import annotations

import pytest
from rules_support import tb, top


SP = "/home/ana/.venv/lib/python3.11/site-packages"


@pytest.mark.parametrize(("text", "family", "basis"), [
    # bitsandbytes' library object is None: its C entry points
    ("AttributeError: 'NoneType' object has no attribute 'cquantize_blockwise_bf16_nf4'\n", "cuda-setup", "family-prior"),
    ("AttributeError: 'NoneType' object has no attribute 'cget_col_row_stats'\n", "cuda-setup", "family-prior"),
    ("RuntimeError: Attempted to use bitsandbytes native library functionality but it's not available.\n",
     "cuda-setup", "family-evidence"),
    ("ERROR:bitsandbytes.cextension:Could not load bitsandbytes native library: libcusparse.so.12: no such file\n"
     "Traceback (most recent call last):\n", "cuda-setup", "family-prior"),
    ("CUDA SETUP: CUDA detection failed! Possible reasons:\n1. CUDA driver not installed\n", "cuda-setup", "family-prior"),
    # DeepSpeed building its ops at run time
    ("deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 12.6 "
     "does not match the version torch was compiled with 12.4\n", "cuda-setup", "family-prior"),
    ("RuntimeError: Ninja is required to load C++ extensions (pip install ninja)\n", "cuda-setup", "family-prior"),
    ("AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'\n", "cuda-setup", "family-prior"),
    # ZeRO's own errors and DeepSpeed's configuration
    ("deepspeed.runtime.zero.utils.ZeRORuntimeException: ZeRO-Offload with a client optimizer is not supported here\n",
     "sharding-config", "family-prior"),
    ("AttributeError: 'Parameter' object has no attribute 'ds_status'\n", "sharding-config", "family-prior"),
    ("AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
     "gradient_acc_step * world_size 32 != 4 * 4 * 1\n", "sharding-config", "family-prior"),
    ("ValueError: When using DeepSpeed, `accelerate.prepare()` requires you to pass at least one of training or "
     "evaluation dataloaders with `batch_size` attribute returning an integer value\n", "sharding-config", "family-prior"),
    # FSDP's device check: a rank that never selected its own GPU
    ("ValueError: Inconsistent compute device and `device_id` on rank 2: cuda:0 vs cuda:2\n", "multi-gpu-launch",
     "family-evidence"),
    # a quantization extension without its kernels
    ("NameError: name 'autogptq_cuda_64' is not defined\n", "package-install", "family-prior"),
    # a notebook kernel that died with no Python error
    ("[I 10:02:11.511 NotebookApp] KernelRestarter: restarting kernel (1/5), keep random ports\n", "host-oom",
     "family-prior"),
])
def test_the_stacks_own_errors_name_their_family(text: str, family: str, basis: str) -> None:
    assert top(text) == (family, basis)


@pytest.mark.parametrize(("frames", "error", "family"), [
    (((f"{SP}/transformers/trainer.py", 2200, "train"), (f"{SP}/transformers/integrations/deepspeed.py", 410, "deepspeed_init")),
     "ValueError: the optimizer block names a type this build does not register", "sharding-config"),
    (((f"{SP}/deepspeed/__init__.py", 180, "initialize"), (f"{SP}/deepspeed/runtime/engine.py", 1350, "_configure_zero_optimizer")),
     "AssertionError: stage 3 needs a partitioned optimizer", "sharding-config"),
    (((f"{SP}/accelerate/accelerator.py", 1400, "prepare"), (f"{SP}/accelerate/accelerator.py", 1600, "_prepare_fsdp2")),
     "ValueError: the model holds parameters of two dtypes", "sharding-config"),
    (((f"{SP}/torch/distributed/run.py", 800, "run"), (f"{SP}/torch/distributed/run.py", 700, "config_from_args")),
     "ValueError: nnodes 2:1 is not a valid range", "multi-gpu-launch"),
    (((f"{SP}/accelerate/state.py", 200, "__init__"),), "RuntimeError: the backend could not be set up on this process",
     "multi-gpu-launch"),
    (((f"{SP}/datasets/arrow_dataset.py", 3000, "map"), (f"{SP}/datasets/table.py", 90, "concat_tables")),
     "MemoryError", "host-oom"),
])
def test_the_sharders_and_launchers_setup_frames_name_their_family(frames: tuple, error: str, family: str) -> None:
    assert top(tb(*frames, error=error)) == (family, "family-prior")


@pytest.mark.parametrize("text", [
    "AttributeError: 'NoneType' object has no attribute 'config'\n",  # any None: not bitsandbytes' library
    "AttributeError: 'NoneType' object has no attribute 'clone'\n",
    "AttributeError: 'Dataset' object has no attribute 'ds_name'\n",  # not a ZeRO parameter
    "RuntimeError: Ninja build stopped: subcommand failed in /home/ana/game/build\n",
])
def test_near_forms_of_other_software_stay_unclaimed(text: str) -> None:
    assert top(text) is None


def test_a_memoryerror_in_the_users_own_code_or_other_software_is_not_claimed() -> None:
    pandas = tb((f"{SP}/pandas/io/parsers/readers.py", 600, "read_csv"), error="MemoryError")
    assert top(pandas) is None


def test_deepspeeds_checkpoint_functions_are_not_its_configuration() -> None:
    frames = ((f"{SP}/transformers/integrations/deepspeed.py", 440, "deepspeed_load_checkpoint"),)
    got = top(tb(*frames, error="ValueError: no checkpoint folder found under output/"))
    assert got is None or got[0] != "sharding-config"


@pytest.mark.parametrize(("title", "family"), [
    ("accelerate test fails on a 4 GPU machine", "multi-gpu-launch"),
    ("notebook_launcher broken on Kaggle with 2 T4s", "multi-gpu-launch"),
    ("Trainer leaks CPU memory every epoch", "host-oom"),
    ("Could not find libbitsandbytes_cuda121.so", "cuda-setup"),
    ("Cannot install unsloth on Windows", "package-install"),
])
def test_titles_name_their_family(title: str, family: str) -> None:
    assert top(title + "\n") == (family, "family-keyword")


@pytest.mark.parametrize("title", [
    "DataParallel question: how to pick the GPUs",  # no failure
    "notebook_launcher runs out of memory on 2 GPUs",  # an OOM: not the launch
    "Cannot install pycocotools on Windows",  # other software
    "flash-attn install error",  # a compiled extension alone: as often another project's
])
def test_titles_of_other_failures_or_software_stay_silent(title: str) -> None:
    got = top(title + "\n")
    assert got is None or got[0] not in ("multi-gpu-launch", "package-install")


def test_fsdps_own_state_enums_name_sharding_config() -> None:
    text = ("AssertionError: Expects `BACKWARD_PRE` state but got HandleTrainingState.IDLE\n")
    assert top(text) == ("sharding-config", "family-prior")
    assert top("AssertionError: Expects TrainerState.TRAINING but got TrainerState.IDLE\n") is None  # another trainer's enum

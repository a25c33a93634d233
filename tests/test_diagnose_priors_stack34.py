"""The priors added from batch gh-stack-34's first score (tables/priors.toml): a training-loop hook or a patched
function called with more arguments than it takes, an extension missing a symbol of torch's C++ API, torchrun's
exit -11 line without its logger prefix, a KeyError naming a dataset column, ms-swift's remaining_argv. Each is
checked on the forms real reports take (written here, not copied) and on near forms of other software that must
stay unclaimed. The learned fallback is left out: these tests look at what the rules answer."""

from __future__ import annotations

import pytest
from rules_support import top


SP = "/home/ana/.venv/lib/python3.11/site-packages"


def trainer_traceback(last: str) -> str:
    return (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 88, in <module>\n'
        "    trainer.train()\n"
        f'  File "{SP}/transformers/trainer.py", line 2241, in train\n'
        "    return inner_training_loop(\n"
        f'  File "{SP}/transformers/trainer.py", line 2548, in _inner_training_loop\n'
        "    tr_loss_step = self.training_step(model, inputs, num_items_in_batch)\n"
        f"{last}\n"
    )


@pytest.mark.parametrize("last", [
    "TypeError: CustomTrainer.training_step() takes 3 positional arguments but 4 were given",
    "TypeError: MyTrainer.compute_loss() takes from 3 to 4 positional arguments but 5 were given",
    "TypeError: _unsloth_get_batch_samples() takes 3 positional arguments but 4 were given",
    "TypeError: _patched_get_init_context() takes 4 positional arguments but 5 were given",
    "TypeError: DPOTrainer.log() takes 2 positional arguments but 3 were given",
])
def test_hook_called_with_more_arguments_is_drift(last: str) -> None:
    assert top(trainer_traceback(last)) is not None
    assert top(trainer_traceback(last))[0] == "api-drift"  # type: ignore[index]
    assert top(last + "\n") is not None and top(last + "\n")[0] == "api-drift"  # type: ignore[index]


@pytest.mark.parametrize("last", [
    "TypeError: forward() takes 2 positional arguments but 3 were given",  # a model's own forward
    "TypeError: collate() takes 1 positional argument but 2 were given",  # the user's function
    "TypeError: Logger.log() takes 3 positional arguments but 4 were given",  # not a Trainer's log
    "TypeError: training_step_end() got multiple values for argument 'outputs'",  # another wording
])
def test_other_positional_argument_errors_are_not_drift_by_the_prior(last: str) -> None:
    got = top(last + "\n")
    assert got is None or got != ("api-drift", "family-prior")


@pytest.mark.parametrize("line", [
    f"OSError: {SP}/torchaudio/lib/libtorchaudio.so: undefined symbol: _ZN2at4_ops6conv1d4callERKNS_6TensorE",
    f"ImportError: {SP}/torchvision/_C.so: undefined symbol: _ZN3c1017RegisterOperatorsD1Ev",
    f"ImportError: {SP}/my_kernels/fused.cpython-311-x86_64-linux-gnu.so: undefined symbol: _ZNK3c1010TensorImpl4sizeEl",
])
def test_extension_missing_a_torch_symbol_is_package_install(line: str) -> None:
    assert top(line + "\n") == ("package-install", "family-prior")


@pytest.mark.parametrize("line", [
    "OSError: /usr/lib/x86_64-linux-gnu/libpng16.so.16: undefined symbol: png_set_longjmp_fn",  # not torch's API
    f"ImportError: {SP}/cv2/cv2.abi3.so: undefined symbol: _ZN2cv3MatC1Ev",  # OpenCV's own C++ symbol
])
def test_other_undefined_symbols_are_not_claimed_by_the_prior(line: str) -> None:
    got = top(line + "\n")
    assert got is None or got[0] != "package-install"


def test_torch_own_library_symbol_stays_cuda_setup() -> None:
    line = f"OSError: {SP}/torch/lib/libtorch_cuda.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"
    got = top(line + "\n")
    assert got is not None and got[0] == "cuda-setup"


@pytest.mark.parametrize("text", [
    "failed (exitcode: -11) local_rank: 0 (pid: 4242) of binary: /opt/conda/bin/python\n",
    "> failed (exitcode: -11) local_rank: 3 (pid: 77) of binary: /usr/bin/python3\n",  # quoted in an issue
])
def test_torchrun_segfault_line_without_prefix(text: str) -> None:
    assert top(text) == ("multi-gpu-launch", "family-prior")


def test_other_exit_minus_11_is_not_claimed() -> None:
    assert top("Segmentation fault (core dumped), exitcode: -11 in my renderer\n") is None


@pytest.mark.parametrize("line", ["KeyError: 'text'", "KeyError: 'messages'", 'KeyError: "chosen"',
                                  "KeyError: 'conversations'"])
def test_keyerror_naming_a_dataset_column(line: str) -> None:
    assert top(line + "\n") == ("training-data", "family-prior")


@pytest.mark.parametrize("line", ["KeyError: 'texture'", "KeyError: 'weight'", "KeyError: 'context_text'"])
def test_other_keyerrors_are_not_claimed_by_the_column_rule(line: str) -> None:
    got = top(line + "\n")
    assert got is None or got[0] != "training-data"


def test_ms_swift_remaining_argv_is_drift() -> None:
    assert top("ValueError: remaining_argv: ['--lora_dtype', 'bf16']\n") == ("api-drift", "family-prior")
    assert top("ValueError: remaining arguments are not allowed\n") is None


@pytest.mark.parametrize("text", [
    "CUDA SETUP: Setup Failed!\nTraceback (most recent call last):\n"
    f'  File "{SP}/bitsandbytes/__init__.py", line 6, in <module>\n    from . import cuda_setup\n',
    "CUDA SETUP: Something unexpected happened. Please compile from source:\ncd bitsandbytes\n",
])
def test_bitsandbytes_setup_giving_up_is_cuda_setup(text: str) -> None:
    got = top(text)
    assert got is not None and got[0] == "cuda-setup"


def test_other_setup_failures_are_not_cuda_setup_by_the_prior() -> None:
    assert top("SETUP: Setup Failed! (the installer of my game)\n") is None


# ---- title keywords next to CJK text (kb/diagnose/priors.py CJK_SEAM) --------------------------------------------

@pytest.mark.parametrize("title", ["Windows多卡微调训练产生NCCL错误", "多机训练NCCL报错", "用deepspeed多卡跑NCCL error"])
def test_keyword_next_to_cjk_text_still_holds(title: str) -> None:
    assert top(title + "\n") == ("multi-gpu-launch", "family-keyword")


def test_cjk_seam_keeps_the_rules_excludes() -> None:
    assert top("NCCL安装install失败\n") is None  # an install: the NCCL rule's excludes still rule it out


def test_cjk_seam_does_not_split_latin_words() -> None:
    assert top("ncclx报错\n") is None  # not the word NCCL

"""Precision (issue #24: a wrong answer costs more than silence): the mechanisms that claimed another program's error or
a report of no known failure are narrowed, each beside the answer it must keep. Inputs are written in the forms real
reports take, not copied from them. ``families`` leaves the learned fallback out (these are the rules' answers);
``answered`` keeps it, where the change is the fallback's own."""

from __future__ import annotations

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge
from rules_support import RULES, families

SP = "/home/ana/.venv/lib/python3.10/site-packages"


# ---- keyword rules: words of another framework or of inference -----------------------------------------------------

def test_nccl_under_xla_is_not_a_multi_gpu_launch_of_the_stack() -> None:
    line = ("2024-03-01 10:00:00.123456: E external/xla/xla/service/gpu/nccl_utils.cc:191] Aborting communicator: "
            "0x55550000 due to async NCCL error: remote process exited or there was a network error\n")
    assert "multi-gpu-launch" not in families(line)
    assert families("Multi-node training fails due to NCCL error\n")[:1] == ["multi-gpu-launch"]


def test_a_model_stuck_while_producing_output_is_inference_not_a_hang() -> None:
    assert families("8bit quantized Llama 3 gets stuck sometimes when producing output\n") == []
    assert families("qwen2.5 lora hangs during inference\n") == []
    assert families("GRPO training with vllm hangs during generation\n")[:1] == ["hang"]
    assert families("accelerate launch stuck forever\n")[:1] == ["hang"]


def test_incompatible_with_a_model_is_no_release_that_broke_the_script() -> None:
    assert "api-drift" not in families("`DPOTrainer` incompatible with Mistral models and gradient checkpointing\n")
    assert families("trl 0.9 incompatible with transformers 4.44\n")[:1] == ["api-drift"]


def test_loss_of_zero_after_a_version_bound_is_a_regression_not_the_data() -> None:
    assert "training-data" not in families("When peft>0.7.0, fine-tuning Qwen-7B gives a loss of 0\n")
    assert families("loss is 0 when fine-tuning qwen with lora\n")[:1] == ["training-data"]


@pytest.mark.parametrize("title", [
    "SDXL LoRA training out of memory",
    "Flux LoRA training stuck with accelerate",
    "ComfyUI lora loader killed, 16GB RAM on the host with llama",
    "ollama qwen lora out of memory",
    "yolov8 ddp training stuck at 0%",
    "keras bert fine-tuning loss is 0",
])
def test_run_words_of_another_kind_of_model_or_program_are_not_claimed(title: str) -> None:
    assert families(title + "\n") == []


@pytest.mark.parametrize(("title", "family"), [
    ("Llama 7B LoRA training out of memory", "cuda-oom"),
    ("Qwen 7B LoRA gets killed while loading", "host-oom"),
    ("Deepspeed hangs on multi-gpu", "hang"),
])
def test_the_same_words_of_the_stack_still_answer(title: str, family: str) -> None:
    assert families(title + "\n")[:1] == [family]


# ---- signatures and error priors: an error raised under other software's code ----------------------------------------

def oom_traceback(outer: str, inner: str) -> str:
    return (
        "Traceback (most recent call last):\n"
        f'  File "{outer}", line 151, in run\n'
        "    out = step(batch)\n"
        f'  File "{inner}", line 380, in load\n'
        "    model.to(device)\n"
        f'  File "{SP}/torch/nn/modules/module.py", line 1160, in to\n'
        "    return self._apply(convert)\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
        "23.65 GiB of which 3.06 MiB is free. Including non-PyTorch memory, this process has 23.6 GiB memory in use.\n"
    )


@pytest.mark.parametrize("inner", [
    "/home/ana/ComfyUI/comfy/model_management.py",
    f"{SP}/diffusers/pipelines/stable_diffusion_xl/pipeline_stable_diffusion_xl.py",
    "/home/ana/kohya_ss/sd-scripts/train_network.py",
])
def test_an_oom_raised_under_other_software_is_not_claimed(inner: str) -> None:
    assert "cuda-oom" not in families(oom_traceback("/home/ana/run.py", inner))


def test_an_oom_raised_under_the_stack_is_still_cuda_oom() -> None:
    assert families(oom_traceback("/home/ana/train.py", f"{SP}/transformers/modeling_utils.py"))[:1] == ["cuda-oom"]


def test_a_cpu_only_torch_build_is_not_a_renamed_api() -> None:
    text = ("Traceback (most recent call last):\n"
            '  File "train.py", line 17, in <module>\n'
            "    torch.cuda.set_device(args.gpu)\n"
            '  File "/usr/local/lib/python2.7/dist-packages/torch/cuda/__init__.py", line 264, in set_device\n'
            "    torch._C._cuda_setDevice(device)\n"
            "AttributeError: 'module' object has no attribute '_cuda_setDevice'\n")
    assert "api-drift" not in families(text)
    assert families(text)[:1] == ["cuda-setup"]


def test_hip_invalid_device_function_in_vllms_serving_engine_is_not_claimed() -> None:
    served = ("ERROR 03-17 03:57:17 [engine.py:411] RuntimeError: HIP error: invalid device function\n"
              "ERROR 03-17 03:57:17 [engine.py:411] HIP kernel errors might be asynchronously reported at some other "
              "API call, so the stacktrace below might be incorrect.\n"
              "ERROR 03-17 03:57:17 [engine.py:411] For debugging consider passing AMD_SERIALIZE_KERNEL=3\n")
    assert "cuda-setup" not in families(served)
    plain = ("RuntimeError: HIP error: invalid device function\n"
             "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might "
             "be incorrect.\n")
    assert families(plain)[:1] == ["cuda-setup"]


# ---- the learned fallback ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("title", ["https://github.com/TimDettmers/bitsandbytes/issues",
                                   "https://github.com/huggingface/transformers/issues/12345 www.example.org/x"])
def test_a_title_that_is_only_links_is_not_asked(title: str) -> None:
    assert families(title + "\n", RULES + ("family-learned",)) == []


@pytest.mark.parametrize("last", [
    "RuntimeError: The size of tensor a (4096) must match the size of tensor b (5120) at non-singleton dimension 2",
    "RuntimeError: \"LayerNormKernelImpl\" not implemented for 'Half'",
    "RuntimeError: CUDA error: device-side assert triggered",
])
def test_a_generic_torch_error_raised_under_other_software_is_not_claimed(last: str) -> None:
    def text(inner: str) -> str:
        return oom_traceback("/home/ana/run.py", inner).rsplit("\n", 2)[0] + "\n" + last + "\n"

    assert families(text("/home/ana/ComfyUI/comfy/ldm/modules/attention.py")) == []
    assert families(text(f"{SP}/transformers/models/llama/modeling_llama.py")) != []


def test_the_fallback_does_not_answer_a_family_whose_signature_was_excluded() -> None:
    from kb.diagnose.fallback import excluded_families

    knowledge = load_knowledge()

    def root(inner: str):  # noqa: ANN202 (a ParsedError)
        return diagnose_lines(oom_traceback("/home/ana/run.py", inner).splitlines(keepends=True), knowledge).root_error

    assert "cuda-oom" in excluded_families(root("/home/ana/ComfyUI/comfy/model_management.py"), knowledge)
    assert excluded_families(root(f"{SP}/transformers/modeling_utils.py"), knowledge) == set()

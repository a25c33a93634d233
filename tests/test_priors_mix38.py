"""The title rules added for issue #24 in turn 38 (mix38, tables/priors.toml's mix38 block) and the words it added to
[other]: a title that quotes an argument the installed library does not take (api-drift), bitsandbytes' own setup
failing (cuda-setup; not the banner old releases print at every import), a version mismatch said in Chinese (api-drift),
a model that returned no loss and a completion-only response template not found (training-data), a multi-GPU run that
used one GPU only (multi-gpu-launch), a trainer's PackageNotFoundError (package-install); and the other-software words
(image and video generators and their trainers' words, super-resolution and restoration models, detectors,
classifiers, TTS, MLX, ONNX/TensorRT/OpenVINO) that leave such a report unclaimed. Each rule is checked on the forms
the corpus's reports take and on near forms that must stay unclaimed. The learned fallback is left out: these tests
look at what the rules answer."""

from __future__ import annotations

import re

import pytest
from rules_support import priors, top


@pytest.mark.parametrize(("text", "family"), [
    # an argument the installed release does not take, named without its exception line (corpus titles)
    ("Unexpected keyword argument 'beta' in DPOTrainer initialization\n", "api-drift"),
    ("Training on V100 failed, unexpected argument 'position_ids'\n", "api-drift"),
    # bitsandbytes' setup failing (corpus titles)
    ('keep get Error while "python -m bitsandbytes"\n', "cuda-setup"),
    ("python -m bitsandbytes error message\n", "cuda-setup"),
    ("Installation Failing - Is there any recommended environment to install bitsandbytes for specific hardware?\n",
     "cuda-setup"),
    ("New update breaks T5, gpt2, opt models (probably all models actually) if bitsandbytes is installed\n",
     "cuda-setup"),
    ("bitsandbytes import error in colab\n", "cuda-setup"),
    # a version mismatch said in Chinese (corpus titles)
    ("注意和InterLM匹配库版本，不是transformers库不对就是加速库版本不匹配？\n", "api-drift"),
    ("swift包版本不对，导致执行训练demo时报错\n", "api-drift"),
    ("peft和transformers版本冲突，lora训练报错\n", "api-drift"),
    # no loss returned; the completion-only collator's template not found
    ("Summarize RLHF Reward Model example fails to return loss\n", "training-data"),
    ("[Bug] The response marker '<|turn>model\\n' was not found in any sample\n", "training-data"),
    ("SFTTrainer: could not find response key in my Llama 3 dataset\n", "training-data"),
    # one GPU used of several
    ("Accelerate not using multiple gpus\n", "multi-gpu-launch"),
    ("Fine-tuning with 4 GPUs only uses one GPU\n", "multi-gpu-launch"),
    ("lora微调时只用了一张卡\n", "multi-gpu-launch"),
    # a trainer's version lookup finding no installed distribution (a corpus title)
    ("importlib.metadata.PackageNotFoundError: No package metadata was found for xtuner\n", "package-install"),
    ("PackageNotFoundError: No package metadata was found for llamafactory\n", "package-install"),
])
def test_the_forms_real_reports_take(text: str, family: str) -> None:
    found = top(text)
    assert found is not None and found[0] == family


@pytest.mark.parametrize(("text", "not_family"), [
    # a question about an argument, no call that failed on it
    ("What does the beta argument of DPOTrainer do?\n", "api-drift"),
    # bitsandbytes: its banner alone (printed at every import of old releases), a question without a failure, a
    # quantized model that misbehaves at inference (an inference engine's), bitsandbytes named with no setup word
    ("===================================BUG REPORT===================================\nWelcome to bitsandbytes. "
     "For bug reports, please run\n\npython -m bitsandbytes\n", "cuda-setup"),
    ("> pip install bitsandbytes\n", "cuda-setup"),
    ("[Bug]: BitsandBytes quantization is not working as expected with CUDA graphs\n", "cuda-setup"),
    ("bitsandbytes 8-bit inference is slow on cuda 12\n", "cuda-setup"),
    # a version named without a mismatch; a mismatch without the stack
    ("请问需要什么版本的transformers？\n", "api-drift"),
    ("游戏版本不兼容\n", "api-drift"),
    # a loss that is there but large, or a question about the loss
    ("loss is very large when training llama with LoRA\n", "training-data"),
    ("How is the loss computed in SFTTrainer?\n", "training-data"),
    # a response template that was found but masks too much; a file not found
    ("response template masks the whole answer in SFTTrainer\n", "training-data"),
    # one GPU by choice, or one GPU of a single-GPU machine; no run at all
    ("How do I train on only one GPU of two with accelerate?\n", "multi-gpu-launch"),
    ("Inference only uses one GPU\n", "multi-gpu-launch"),
    # a package that is neither a library nor a trainer of the stack; a name that only starts like one
    ("importlib.metadata.PackageNotFoundError: No package metadata was found for mypkg\n", "package-install"),
    ("importlib.metadata.PackageNotFoundError: No package metadata was found for swiftclient\n", "package-install"),
])
def test_near_forms_stay_unclaimed_by_these_rules(text: str, not_family: str) -> None:
    found = top(text)
    assert found is None or found[0] != not_family


@pytest.mark.parametrize("text", [
    # the corpus's out-of-scope titles of other software (diffusion and video LoRA trainers, detectors, MLX)
    "Crash during LoRA training with Krea 2 RAW at the point of saving the first version (at 250 steps for example)\n",
    "[Bug]: Onetrainer keeps crashing\n",
    "Training failed exitcode : 1 (pid: 34080) / train_db.py FAILED\n",
    "Unable to Train a LoRA on MPS/MLX\n",
    "Error in finetuning mistralai/Mixtral-8x7B-v0.1 using mlx_lm.lora\n",
    "multi-GPU finetune faster rcnn out of memory\n",
    # the family words of a keyword rule, in another program's report
    "Real-ESRGAN training loss is nan after 10k iterations\n",
    "SwinIR fine-tuning: resume from checkpoint fails\n",
    "qwen-image-edit lora微调显存不足\n",
    "HunyuanVideo LoRA training stuck at 0%\n",
    "network_dim 128 lora training out of memory on 24GB\n",
    "TTS fine-tuning cuda out of memory\n",
    "TensorRT engine build killed (out of memory)\n",
])
def test_other_software_reports_stay_unclaimed(text: str) -> None:
    assert top(text) is None


@pytest.mark.parametrize(("text", "family"), [
    # near words of the stack's own reports that must not read as other software
    ("Segmentation fault during training Llama 3 with deepspeed zero3, Killed\n", None),
    ("CNN/DailyMail summarization fine-tuning of t5-large: CUDA out of memory\n", "cuda-oom"),
    ("Llama 3 8B LoRA loss is nan after 100 steps\n", "loss-nan"),
    ("Qwen2-VL LoRA fine-tuning on image captions: CUDA out of memory\n", "cuda-oom"),
])
def test_the_stack_s_own_words_are_not_other_software(text: str, family: str | None) -> None:
    from kb.diagnose.priors import names_other_software

    assert names_other_software(text, priors()) is None
    if family is not None:
        found = top(text)
        assert found is not None and found[0] == family


def test_other_words_hold_the_new_programs_and_not_the_stack_s() -> None:
    """The [other] words name the programs this block added and none of the stack's words they border on."""
    words = re.compile(priors()["other"]["words"], re.IGNORECASE)
    for other in ("OneTrainer", "train_network.py", "Real-ESRGAN", "SwinIR", "Mask R-CNN", "Ultralytics", "mlx_lm",
                  "onnxruntime", "TensorRT", "OpenVINO", "CogVideoX", "qwen-image", "txt2img", "IP-Adapter"):
        assert words.search(other), other
    for stack in ("cnn_dailymail", "Segmentation fault", "device mesh", "denoising objective", "Qwen2-VL",
                  "image captions", "whisper speech recognition", "text encoder"):
        assert not words.search(stack), stack

"""Defects review45 found in what turn 45 merged, each pinned by a test that fails before its fix.

1. qa45's [other_code] paths (tables/priors.toml) took any folder named exllama/, exllamav2/ or exllamav3/ for
   ExLlama's own code. GPTQModel, a quantization library of the stack (transformers' GPTQ backend; its kernels' build
   and install failures are cuda-setup and package-install knowledge), ships ExLlamaV3's kernels as its own subpackage
   gptqmodel/exllamav3/ (ext.py builds them with torch's cpp_extension): a failure to build them in a QLoRA run on a
   GPTQ model was no longer claimed. Only ExLlama as a program of its own (its package, text-generation-webui's
   repositories/ clone) is other software.
"""

from __future__ import annotations

import pytest
from rules_support import SP, families, tb

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.redact import redact
from kb.knowledge.registry import load_knowledge

# transformers loading a GPTQ checkpoint through GPTQModel, whose ExLlamaV3 kernels fail to build on this machine
GPTQMODEL_EXLLAMAV3_BUILD = tb(
    (f"{SP}/transformers/modeling_utils.py", 3900, "from_pretrained"),
    (f"{SP}/transformers/quantizers/quantizer_gptq.py", 90, "_process_model_before_weight_loading"),
    (f"{SP}/optimum/gptq/quantizer.py", 300, "convert_model"),
    (f"{SP}/gptqmodel/nn_modules/exllamav3.py", 40, "<module>"),
    (f"{SP}/gptqmodel/exllamav3/ext.py", 30, "<module>"),
    (f"{SP}/torch/utils/cpp_extension.py", 1312, "load"),
    (f"{SP}/torch/utils/cpp_extension.py", 2111, "_run_ninja_build"),
    error="RuntimeError: Error building extension 'exllamav3_ext'")


def test_gptqmodels_own_exllamav3_kernels_are_the_stacks() -> None:
    assert families(GPTQMODEL_EXLLAMAV3_BUILD)[:1] == ["cuda-setup"]


def test_exllamav3_as_its_own_package_is_still_other_software() -> None:
    text = GPTQMODEL_EXLLAMAV3_BUILD.replace(f"{SP}/gptqmodel/exllamav3/", f"{SP}/exllamav3/")
    assert families(text) == []


# 2. titles45 made "missing" one of the [failure] words (tables/priors.toml), which every keyword rule that
#    needs_failure reads so that a question or a feature request about a part of the stack is not claimed. "missing"
#    also opens feature requests ("missing support for ...") and negated statements ("nothing missing"): both were
#    claimed checkpoint-io after titles45, silent before.
@pytest.mark.parametrize("title", [
    "Feature request: missing support for saving the checkpoint with FSDP",
    "Missing documentation for resuming from checkpoint with the llama recipe",
    "Model loaded after training with LoRA; nothing missing",
    "LoRA model loaded after training, no missing keys",
])
def test_missing_in_a_feature_request_or_negated_says_nothing_failed(title: str) -> None:
    assert families(title + "\n") == []


@pytest.mark.parametrize(("title", "family"), [
    ("adapter_config.json missing after training", "adapter-config"),
    ("Resuming from checkpoint with the Trainer: optimizer.pt missing", "checkpoint-io"),
])
def test_missing_that_says_a_file_is_not_there_is_still_a_failure(title: str, family: str) -> None:
    assert families(title + "\n")[:1] == [family]


# 3. runtime45's wrapped frame lines (kb/diagnose/parser.py _frame_head/_join_frame) took any next line without a space
#    for the rest of a cut path: an exception line of a class alone ("MemoryError", "KeyboardInterrupt") after a frame
#    line cut short (a paste cut inside the line, "File" alone) was swallowed, and the traceback read as cut before its
#    exception line: host-oom's MemoryError while torch loads a checkpoint went silent (it was answered before).
LOAD = ('Traceback (most recent call last):\n  File "/content/train.py", line 30, in <module>\n'
        "    model = AutoModelForCausalLM.from_pretrained(name)\n"
        '  File "/usr/local/lib/python3.10/dist-packages/transformers/modeling_utils.py", line 3531, in from_pretrained\n'
        "    state_dict = load_state_dict(resolved_archive_file)\n")


@pytest.mark.parametrize("cut", ['  File "/usr/local/lib/python3.10/dist-packages/torch/serialization.py\n', "  File\n"],
                         ids=["path-cut", "file-alone"])
def test_an_exception_line_of_a_class_alone_is_no_piece_of_a_cut_frame_line(cut: str) -> None:
    text = LOAD + cut + "MemoryError\n"
    root = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).root_error
    assert root is not None and root.type == "MemoryError"
    assert families(text)[:1] == ["host-oom"]


def test_a_wrapped_frame_line_is_still_joined() -> None:
    text = LOAD + ('  File "/usr/local/lib/python3.10/dist-packages/torch/serializa\ntion.py", line 1014, in load\n'
                   "    return _load(\nMemoryError\n")
    root = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).root_error
    assert root is not None and root.type == "MemoryError"
    assert [f.function for f in root.frames][-1] == "load"


# 4. leaks45's random-path-segment rule (tables/secrets.toml) masked a path's or a URL's segment of 32 characters or more
#    with both cases and a digit that reads random: a training run's name made of a model's name and its settings (an
#    output_dir, a hub_model_id pushed to the Hub), which the rule itself says it keeps ("not a repository's or a model's
#    name"), was shown as *** in a checkpoint's path and a Hub URL.
@pytest.mark.parametrize("text", [
    "FileNotFoundError: '/home/ana/out/Llama-3-8B-QLoRA-r16-a32-lr2e-4-ep3-bs4/checkpoint-10/adapter_model.safetensors'",
    "saving to /home/ana/checkpoints/Mixtral-8x7B-Instruct-v0-1-LoRA-r16-alpha32-lr2e-4/checkpoint-500",
    "Repository Not Found for url: https://huggingface.co/api/models/ana/Qwen2-7B-SFT-LoRA-r64-a128-ep3-seed42/revision/main.",
    "upload failed: s3://runs/experiments/Phi3-mini-4k-LoRA-r8-dropout005-seed42/ckpt",
])
def test_a_runs_name_of_words_and_settings_in_a_path_is_kept(text: str) -> None:
    assert redact(text) == text.replace("/home/ana/", "/home/~/")


@pytest.mark.parametrize("key", ["Zq7RfX2mKb9LwT4vNc8HyP3sJd6GaE1u", "Aq7RfX2mKb9LwT4v-Nc8HyP3sJd6GaE1uQ0w",
                                 "k9Xb2_LmQ7rT4vNc8HyP3sJd-6GaE1uZq7RfX"])
def test_a_random_key_as_a_segment_is_still_masked(key: str) -> None:
    assert key not in redact(f"POST https://api.example.test/v1/{key}/complete 401\n")

"""qa45's mechanism (issue #24, forum reports of corpus/reports-qa-45.jsonl): ExLlama and ExLlamaV2/V3 are inference
engines with loaders of their own (text-generation-webui's repositories/exllama, site-packages/exllamav2), so an error
their code raises is other software's (tables/priors.toml [other_code] ``paths``, read by kb/diagnose/match.py
``other_software_frame``), as llama_cpp's is. The batch's only wrong was such a report: airoboros-7b-gpt4-1.2/2, a
"SafetensorError: Error while deserializing header: HeaderTooLarge" raised under exllama/model.py, answered
checkpoint-io. The same errors raised in the stack's own code, and text-generation-webui's LoRA training (its
modules/training.py calling peft), are answered as before."""

from __future__ import annotations

import pytest
from rules_support import answers, families

WEBUI = "/home/ana/text-generation-webui"
SP = "/home/ana/text-generation-webui/installer_files/env/lib/python3.10/site-packages"
HEADER_TOO_LARGE = "safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge"
OOM = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 172.00 MiB (GPU 0; 23.69 GiB total capacity; "
       "22.91 GiB already allocated; 50.94 MiB free; 23.04 GiB reserved in total by PyTorch)")


def webui_traceback(*frames: tuple[str, int, str], last: str) -> str:
    """A traceback as text-generation-webui's server prints it for a model load, through ``frames``."""
    lines = ["Traceback (most recent call last):",
             f'  File "{WEBUI}/modules/ui_model_menu.py", line 201, in load_model_wrapper',
             "    shared.model, shared.tokenizer = load_model(shared.model_name, loader)",
             f'  File "{WEBUI}/modules/models.py", line 79, in load_model',
             "    output = load_func_map[loader](model_name)"]
    for file, line, function in frames:
        lines += [f'  File "{file}", line {line}, in {function}', "    x = call()"]
    return "\n".join([*lines, last]) + "\n"


# The ExLlama loader of qa-45's airoboros-7b-gpt4-1.2/2 with its frames whole (the page cut the report's excerpt
# before "File"): exllama's model.py opens the weights with safetensors' safe_open, whose Rust code raises.
EXLLAMA_HEADER = webui_traceback((f"{WEBUI}/modules/exllama.py", 33, "from_pretrained"),
                                 (f"{WEBUI}/repositories/exllama/model.py", 554, "__init__"), last=HEADER_TOO_LARGE)
# ExLlamaV2 installed as a package, running out of GPU memory while it loads its own weights (torch's frames are code
# every program runs on and are passed over: exllamav2's frame raised).
EXLLAMAV2_OOM = webui_traceback((f"{WEBUI}/modules/exllamav2.py", 60, "from_pretrained"),
                                (f"{SP}/exllamav2/model.py", 248, "load_gen"),
                                (f"{SP}/exllamav2/linear.py", 73, "load"),
                                (f"{SP}/torch/nn/parameter.py", 40, "__new__"), last=OOM)


@pytest.mark.parametrize("text", [EXLLAMA_HEADER, EXLLAMAV2_OOM], ids=["exllama-safetensors", "exllamav2-oom"])
def test_an_error_raised_in_exllamas_loader_is_not_claimed(text: str) -> None:
    # before: checkpoint-io's 'safetensors-header' signature and cuda-oom answered
    assert answers(text) == []


def test_the_same_file_error_in_the_stacks_loader_is_still_checkpoint_io() -> None:
    text = webui_traceback((f"{WEBUI}/modules/models.py", 155, "huggingface_loader"),
                           (f"{SP}/transformers/modeling_utils.py", 3694, "from_pretrained"),
                           (f"{SP}/transformers/modeling_utils.py", 501, "load_state_dict"), last=HEADER_TOO_LARGE)
    assert families(text)[:1] == ["checkpoint-io"]


def test_webuis_lora_training_is_still_the_stacks() -> None:
    # text-generation-webui's training tab calls peft: an adapter whose target modules the model lacks is adapter-config
    text = webui_traceback((f"{WEBUI}/modules/training.py", 513, "do_train"),
                           (f"{SP}/peft/mapping.py", 133, "get_peft_model"),
                           (f"{SP}/peft/tuners/tuners_utils.py", 371, "inject_adapter"),
                           last="ValueError: Target modules ['q_proj', 'v_proj'] not found in the base model. Please check "
                                "the target modules and try again.")
    assert families(text)[:1] == ["adapter-config"]


def test_an_exllama_folder_of_the_users_own_is_only_a_folder_name_with_its_slash() -> None:
    # the table names the package folder (exllama/, exllamav2/); a user's script called exllama_test.py is not it
    text = ("Traceback (most recent call last):\n"
            '  File "/home/ana/exllama_test.py", line 12, in <module>\n    model.to("cuda")\n'
            f'  File "{SP}/transformers/modeling_utils.py", line 2460, in to\n    return super().to(*args, **kwargs)\n'
            f"{OOM}\n")
    assert families(text)[:1] == ["cuda-oom"]

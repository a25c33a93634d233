"""Errors raised in other software's code stay unclaimed (issue #24): the code paths of other software (ComfyUI and its
custom nodes, SD web UIs and trainers, diffusers' pipelines, detectors, TensorFlow, JAX, llama.cpp's bindings...) live in
ONE table, tables/priors.toml [other_code], read through kb/knowledge by kb/diagnose/match.py
``other_software_frame``; every consumer honours it:

- every signature of every case and family (the matcher's ``_excluded``);
- the [[error]] and [[frame]] priors, process evidence and the learned fallback (kb/diagnose/priors.py
  ``other_software_report``, which the fallback asks too);

and the frame that decides is the one that raised: the innermost frame once wrappers and code every program runs on
(torch, Python's standard library) are passed over, or, for an import or a module's attribute, the module it names. A
ComfyUI custom node calling transformers, which raises inside transformers, is still answered. A signature's or a
prior's ``excludes`` must not repeat a path the table holds (the copies this replaced): the copy check fails when one
does. The "real" inputs below are lines from reports of the corpus (corpus/reports-*.jsonl), each named."""

from __future__ import annotations

import re

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.match import code_path, other_software_frame
from kb.knowledge.model import KnowledgeError
from kb.knowledge.registry import load_knowledge
from rules_support import answers, priors, zorblax_model  # noqa: F401 (zorblax_model: a fixture)
from kb.knowledge.tables import check_prior_regexes

SP = "/home/u/venv/lib/python3.10/site-packages"
COMFY = "/home/u/ComfyUI"


def traceback(*frames: str, last: str) -> str:
    """A traceback through ``frames`` (outermost first), ending in the exception line ``last``."""
    body = "".join(f'  File "{f}", line {10 + i}, in f{i}\n    x = g(y)\n' for i, f in enumerate(frames))
    return "Traceback (most recent call last):\n" + body + last + "\n"


def root(text: str):  # noqa: ANN201 (a ParsedError)
    return diagnose_lines(text.splitlines(keepends=True), load_knowledge()).root_error


def deciding(text: str) -> str | None:
    """The file of the other software's frame that decided, or None (the stack's or the user's)."""
    frame = other_software_frame(root(text), priors())
    return frame.file if frame is not None else None


# ---- real reports of the corpus (lines as posted) ------------------------------------------------------------------------

# gh:Thund3rPat/kohya_ss-linux#9: kohya's script asks bitsandbytes for a name it lacks (its import half failed)
KOHYA_BNB_ATTRIBUTE = """Traceback (most recent call last):
  File "/home/anon/Git/kohya_ss-linux/train_db.py", line 346, in <module>
    train(args)
  File "/home/anon/Git/kohya_ss-linux/train_db.py", line 126, in train
    optimizer_class = bnb.optim.AdamW8bit
AttributeError: module 'bitsandbytes' has no attribute 'optim'
"""
# gh:bitsandbytes-foundation/bitsandbytes#289: bitsandbytes raising in kohya's venv (the path names kohya twice)
KOHYA_VENV_BNB = r"""Traceback (most recent call last):
  File "D:\Kohya-ss\kohya_ss\library\train_util.py", line 3616, in get_optimizer
    import bitsandbytes as bnb
  File "D:\Kohya-ss\kohya_ss\venv\lib\site-packages\bitsandbytes\__init__.py", line 6, in <module>
    from . import cuda_setup, utils, research
  File "D:\Kohya-ss\kohya_ss\venv\lib\site-packages\bitsandbytes\cextension.py", line 5, in <module>
    from .cuda_setup.main import evaluate_cuda_setup
  File "D:\Kohya-ss\kohya_ss\venv\lib\site-packages\bitsandbytes\cuda_setup\main.py", line 21, in <module>
    from .paths import determine_cuda_runtime_lib_path
ModuleNotFoundError: No module named 'bitsandbytes.cuda_setup.paths'
"""
# gh:InternLM/xtuner#998: xtuner's runner is mmengine (OpenMMLab's), which is no other software's code here
XTUNER_MMENGINE = """Traceback (most recent call last):
  File "/workspace/xtuner/xtuner/tools/train.py", line 360, in <module>
    main()
  File "/opt/conda/lib/python3.10/site-packages/mmengine/runner/runner.py", line 1777, in train
    model = self.train_loop.run()  # type: ignore
  File "/opt/conda/lib/python3.10/site-packages/mmengine/runner/runner.py", line 1841, in call_hook
    raise TypeError(f'{e} in {hook}') from None
TypeError: Qwen2RotaryEmbedding.forward() got an unexpected keyword argument 'seq_len' in <xtuner.engine.hooks.evaluate_chat_hook.EvaluateChatHook object at 0x7f74c5cd8a60>
"""
# tests/fixtures/diagnose/dev/drift-35-ComfyUI_bitsandbytes_NF4-11.txt: a ComfyUI node importing a name bitsandbytes
# gained later (the dev set's api-drift)
COMFY_NODE_IMPORT = r"""Traceback (most recent call last):
  File "D:\000AI\00ComfyUI\ComfyUI\nodes.py", line 1941, in load_custom_node
    module_spec.loader.exec_module(module)
  File "<frozen importlib._bootstrap_external>", line 940, in exec_module
  File "<frozen importlib._bootstrap>", line 241, in _call_with_frames_removed
  File "D:\000AI\00ComfyUI\ComfyUI\custom_nodes\ComfyUI_bitsandbytes_NF4\__init__.py", line 11, in <module>
    from bitsandbytes.nn.modules import Params4bit, QuantState
ImportError: cannot import name 'QuantState' from 'bitsandbytes.nn.modules' (D:\000AI\00ComfyUI\python_embeded\Lib\site-packages\bitsandbytes\nn\modules.py)
"""

# ---- messages of families whose copied path excludes this replaced ----------------------------------------------------

OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 23.65 GiB "
       "of which 3.06 MiB is free. Including non-PyTorch memory, this process has 23.6 GiB memory in use.")
FAMILY_MESSAGES = {
    "cuda-oom": OOM,
    "device-mismatch": "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
                       "cuda:0 and cpu! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)",
    "device-side-assert": "RuntimeError: CUDA error: device-side assert triggered",
    "precision-unsupported": "RuntimeError: \"LayerNormKernelImpl\" not implemented for 'Half'",
    "shape-mismatch": "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x4096 and 5120x4096)",
}
STACK_INNER = f"{SP}/transformers/models/llama/modeling_llama.py"
OTHER_INNER = [
    f"{COMFY}/comfy/ldm/modules/attention.py",
    f"{COMFY}/custom_nodes/ComfyUI-Zorb/nodes.py",
    f"{SP}/diffusers/pipelines/stable_diffusion_xl/pipeline_stable_diffusion_xl.py",
    f"{SP}/ultralytics/engine/trainer.py",
    "C:\\stable-diffusion-webui\\modules\\processing.py",
    "/home/u/kohya_ss/sd-scripts/train_network.py",
]


# ---- one table, read through the knowledge -------------------------------------------------------------------------------

def test_the_paths_are_one_table_read_through_the_knowledge() -> None:
    code = priors()["other_code"]
    assert code["paths"] and code["shared"]
    for path in ("ComfyUI/comfy/sd.py", "custom_nodes/x/nodes.py", "ultralytics/engine/trainer.py", "llama_cpp/llama.py",
                 "tensorflow/python/eager/execute.py", "diffusers/pipelines/pipeline_utils.py", "ldm/models/autoencoder.py"):
        assert re.search(code["paths"], path), path
    for path in ("transformers/trainer.py", "peft/tuners/lora/layer.py", "trl/trainer/sft_trainer.py", "diffusers/loaders/peft.py",
                 "mmengine/runner/runner.py", "vllm/worker/worker.py", "bitsandbytes/cextension.py"):
        assert not re.search(code["paths"], path), path


def test_the_loader_rejects_a_path_that_is_no_regex() -> None:
    data = {**priors(), "other_code": {**priors()["other_code"], "paths": "(?:comfy"}}
    with pytest.raises(KnowledgeError, match="other_code.paths"):
        check_prior_regexes(data, "tables/priors.toml")


def test_a_package_is_read_from_its_site_packages_folder_on() -> None:
    assert code_path("C:\\ComfyUI\\python_embeded\\Lib\\site-packages\\transformers\\utils\\hub.py") == "transformers/utils/hub.py"
    assert code_path("/home/u/ComfyUI/comfy/sd.py") == "/home/u/ComfyUI/comfy/sd.py"


# ---- which frame decides ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "decides"), [
    # ComfyUI moving its own model: torch's Module.to is passed over, comfy/ decides
    (traceback("/home/u/run.py", f"{COMFY}/comfy/model_management.py", f"{SP}/torch/nn/modules/module.py", last=OOM),
     f"{COMFY}/comfy/model_management.py"),
    # torch installed in ComfyUI's own folder is torch: the comfy/ldm frame further out decides
    (traceback(f"{COMFY}/comfy/ldm/modules/attention.py", f"{COMFY}/venv/lib/python3.10/site-packages/torch/nn/functional.py",
               last=FAMILY_MESSAGES["shape-mismatch"]), f"{COMFY}/comfy/ldm/modules/attention.py"),
    # a custom node's own code raising
    (traceback(f"{COMFY}/execution.py", f"{COMFY}/custom_nodes/X/nodes.py", last="ValueError: bad seed"),
     f"{COMFY}/custom_nodes/X/nodes.py"),
    # an import of other software's module, whoever asked
    (traceback("/home/u/run.py", last="ModuleNotFoundError: No module named 'comfy.model_management'"), "comfy/model_management/"),
    # a ComfyUI custom node calling transformers, which raises in transformers: the stack's
    (traceback(f"{COMFY}/custom_nodes/X/nodes.py", f"{COMFY}/venv/lib/python3.10/site-packages/transformers/modeling_utils.py",
               f"{SP}/torch/nn/modules/module.py", last=OOM), None),
    # the user's own script calling torch
    (traceback("/home/u/train.py", f"{SP}/torch/nn/functional.py", last=FAMILY_MESSAGES["shape-mismatch"]), None),
    # real reports: the stack's library raising in kohya's venv, a name missing from bitsandbytes asked for by kohya's
    # script or by a ComfyUI node (the module named is the stack's), xtuner's mmengine runner
    (KOHYA_VENV_BNB, None), (KOHYA_BNB_ATTRIBUTE, None), (COMFY_NODE_IMPORT, None), (XTUNER_MMENGINE, None),
], ids=["comfy-moves-model", "torch-in-comfy-venv", "custom-node-raises", "import-of-comfy", "custom-node-calls-transformers",
        "user-script", "real-kohya-venv-bnb", "real-kohya-bnb-attribute", "real-comfy-node-import", "real-xtuner-mmengine"])
def test_the_frame_that_raised_decides(text: str, decides: str | None) -> None:
    assert deciding(text) == decides


# ---- each consumer honours it ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("family", sorted(FAMILY_MESSAGES))
@pytest.mark.parametrize("inner", OTHER_INNER, ids=lambda p: p.rsplit("/", 3)[-3] if "/" in p else p[-30:])
def test_no_family_signature_claims_an_error_raised_in_other_software(family: str, inner: str) -> None:
    """The five families whose signatures held a copy of the paths: answered under the stack, not under other software."""
    message = FAMILY_MESSAGES[family]
    assert answers(traceback("/home/u/train.py", STACK_INNER, f"{SP}/torch/nn/functional.py", last=message))[:1] == \
        [(family, "family-evidence")]
    assert answers(traceback("/home/u/run.py", inner, f"{SP}/torch/nn/functional.py", last=message)) == []


def test_no_case_signature_claims_an_error_raised_in_other_software() -> None:
    gated = ("huggingface_hub.utils._errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-65a1)\n\n"
             "Cannot access gated repo for url https://huggingface.co/meta-llama/Llama-2-7b-hf/resolve/main/config.json.\n"
             "Repo model meta-llama/Llama-2-7b-hf is gated. You must be authenticated to access it.")
    hub = f"{COMFY}/venv/lib/python3.10/site-packages/huggingface_hub/utils/_errors.py"
    assert answers(traceback(f"{COMFY}/custom_nodes/X/nodes.py", hub, last=gated))[:1] == [("hub-access", "case")]
    assert answers(traceback(f"{COMFY}/execution.py", f"{COMFY}/custom_nodes/X/nodes.py", last=gated)) == []


def test_the_error_prior_leaves_an_error_raised_in_other_software() -> None:
    oom = "torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (currently allocated: 23.5 GiB)"
    assert answers(traceback("/home/u/train.py", STACK_INNER, last=oom)) == [("cuda-oom", "family-prior")]
    assert answers(traceback("/home/u/run.py", f"{COMFY}/comfy/model_management.py", f"{SP}/torch/nn/modules/module.py",
                             last=oom)) == []


def test_the_frame_prior_leaves_an_error_raised_in_other_software() -> None:
    load = f"{SP}/torch/serialization.py"
    last = "RuntimeError: zorblax frobnicated the checkpoint"
    assert answers(traceback("/home/u/train.py", load, last=last))[:1] == [("checkpoint-io", "family-prior")]
    assert answers(traceback("/home/u/train.py", f"{SP}/ultralytics/nn/tasks.py", load, last=last)) == []


def test_torch_distributed_is_the_stacks_under_any_program() -> None:
    """torch.distributed and DDP are not shared code: a multi-GPU launch failing under another program's trainer is
    still multi-gpu-launch (the dev set's ncclduplicate-mambair-39, DDP under basicsr, expects it)."""
    c10d = f"{SP}/torch/distributed/distributed_c10d.py"
    last = "RuntimeError: zorblax frobnicated the process group"
    for outer in ("/home/u/train.py", f"{SP}/ultralytics/engine/trainer.py", "/home/u/MambaIR/basicsr/models/base_model.py"):
        assert answers(traceback("/home/u/train.py", outer, c10d, last=last))[:1] == [("multi-gpu-launch", "family-prior")]


def test_process_evidence_leaves_an_error_raised_in_other_software() -> None:
    stack = traceback("/home/u/train.py", STACK_INNER, last="RuntimeError: zorblax frobnicated the weights") + "Killed\n"
    other = traceback("/home/u/run.py", f"{COMFY}/comfy/sd.py", last="RuntimeError: zorblax frobnicated the weights") + "Killed\n"
    assert ("host-oom", "family-prior") in answers(stack)
    assert answers(other) == []



@pytest.mark.usefixtures("zorblax_model")
def test_the_learned_fallback_leaves_an_error_raised_in_other_software() -> None:
    last = "RuntimeError: zorblax frobnicated the weights"
    assert answers(traceback(f"{COMFY}/custom_nodes/X/nodes.py", STACK_INNER, last=last)) == \
        [("shape-mismatch", "family-learned")]
    assert answers(traceback(f"{COMFY}/execution.py", f"{COMFY}/custom_nodes/X/nodes.py", last=last)) == []


@pytest.mark.parametrize(("text", "family"), [(COMFY_NODE_IMPORT, "api-drift"), (XTUNER_MMENGINE, "api-drift")],
                         ids=["comfy-node", "xtuner"])
def test_real_near_misses_are_still_answered(text: str, family: str) -> None:
    """Other software's paths in a real traceback whose deciding frame (or named module) is the stack's."""
    assert answers(text)[:1] == [(family, "family-evidence")]


def test_the_stack_raising_in_kohyas_run_is_out_of_scope() -> None:
    """(wrong49) bitsandbytes raising in kohya_ss's venv: the deciding frame is still bitsandbytes' (above), but the
    lines are kohya's own (library/train_util.py, its kohya_ss folder: tables/priors.toml [[program_line]] whole_run),
    and a kohya run is out of scope whatever library raised in it (the corpus labels its reports out-of-scope)."""
    assert answers(KOHYA_VENV_BNB) == []
    assert answers(KOHYA_VENV_BNB.replace("D:\\Kohya-ss\\kohya_ss\\library\\train_util.py", "D:\\work\\train.py")
                   .replace("D:\\Kohya-ss\\kohya_ss\\venv", "D:\\work\\venv"))[:1] == [("api-drift", "family-evidence")]


# ---- no copies in a signature's or a prior's excludes ---------------------------------------------------------------------

# Paths the table holds, as they appear in tracebacks (the check asserts the table holds each).
PROBE_TAILS = ["ComfyUI/comfy/model_management.py", "comfy/ldm/modules/attention.py", "comfy_extras/nodes_x.py",
               "ComfyUI/custom_nodes/ComfyUI-X/nodes.py", "stable-diffusion-webui/modules/processing.py",
               "stable-diffusion-webui-forge/modules/sd_models.py", "sd-scripts/train_network.py", "kohya_ss/library/train_util.py",
               "diffusers/pipelines/pipeline_utils.py", "diffusers/models/unets/unet_2d_condition.py",
               "diffusers/models/autoencoders/vae.py", "ldm/modules/diffusionmodules/model.py", "sgm/modules/encoders/modules.py",
               "ultralytics/engine/trainer.py", "detectron2/engine/train_loop.py", "mmdet/apis/inference.py",
               "mmcv/ops/nms.py", "llama_cpp/llama.py", "tensorflow/python/eager/execute.py", "keras/src/engine/training.py",
               "jax/_src/dispatch.py", "flax/linen/module.py", "vllm/entrypoints/openai/api_server.py",
               "stable-diffusion-webui/extensions/sd-webui-controlnet/scripts/controlnet.py", "ldm_patched/modules/model_management.py",
               "k_diffusion/sampling.py", "yolov5/models/yolo.py", "insightface/app/face_analysis.py", "basicsr/archs/rrdbnet_arch.py"]


# The stack's code in the same forms: an exclude that matches these too is about something else (any installed
# package, say), not a copy of other software's paths.
# (vLLM is the stack's where trl runs it: an exclude of all of vllm/ is a family's own call, not a copy of its server's path)
CONTROL_TAILS = ["transformers/modeling_utils.py", "peft/tuners/lora/layer.py", "trl/trainer/sft_trainer.py",
                 "vllm/worker/worker.py"]
FORMS = ("/home/u/{}", "C:\\AI\\{}", SP + "/{}")


def in_form(form: str, tail: str) -> str:
    return form.format(tail.replace("/", "\\") if form.startswith("C:") else tail)


def probes() -> list[str]:
    return [in_form(form, tail) for tail in PROBE_TAILS for form in FORMS]


def excludes_of_everything() -> list[tuple[str, str]]:
    """(where, regex) for every ``excludes`` that reads frames: those of every signature of every case and family, and
    of every [[error]] prior (a [[process]] or [[keyword]] rule's read a line or the first lines, never a frame)."""
    knowledge = load_knowledge()
    out = [(f"{e.key}:{s.name}", p.pattern) for e in (*knowledge.cases, *knowledge.families) for s in e.signatures
           for p in s.excludes]
    table = priors()
    out += [(f"priors {section}[{i}] ({rule['family']})", p) for section in ("error",)
            for i, rule in enumerate(table[section]) for p in rule["excludes"]]
    return out


def copies(excludes: list[tuple[str, str]]) -> list[str]:
    """Excludes that single out other software's code: they match a path the table holds, in a form (a script's, a
    Windows folder's, an installed package's) where they match none of the stack's paths."""
    found = []
    for where, pattern in excludes:
        for form in FORMS:
            if any(re.search(pattern, in_form(form, tail)) for tail in CONTROL_TAILS):
                continue
            found += [f"{where}: /{pattern}/ matches {in_form(form, tail)!r}" for tail in PROBE_TAILS
                      if re.search(pattern, in_form(form, tail))]
    return found


def test_the_probes_are_the_tables_paths() -> None:
    code = priors()["other_code"]
    from kb.diagnose.match import code_path as read

    assert all(re.search(code["paths"], read(p)) for p in probes())


def test_the_copy_check_finds_a_copy() -> None:
    old = (r"(?i)(?:^|[\\/])(?:comfy(?:ui)?|comfy_extras|custom_nodes|stable-diffusion-webui[\w-]{0,12}|sd-scripts|"
           r"kohya[_-]ss|diffusers[\\/](?:pipelines|models[\\/](?:unets?|autoencoders))|ldm|sgm|ultralytics|detectron2|mmdet)[\\/]")
    assert copies([("cuda-oom:oom-short", old)])
    assert copies([("x", r"(?i)ultralytics")])
    assert not copies([("x", r"(?i)\b(?:cpu|host)\b"), ("y", "ggml"), ("z", r"llama\.cpp"),
                       ("any installed package", r"(?:site|dist)-packages[\\/](?!datasets[\\/])")])


def test_no_excludes_repeat_a_path_that_the_table_holds() -> None:
    found = copies(excludes_of_everything())
    assert not found, ("other software's code paths belong in tables/priors.toml [other_code] alone, which the matcher "
                       "applies to every signature and prior; drop them from these excludes:\n" + "\n".join(found[:20]))


# ---- an import names the module at fault: no frame needed --------------------------------------------------------------------

@pytest.mark.parametrize(("line", "expected"), [
    ("ImportError: /home/u/venv/lib/python3.8/site-packages/detectron2/_C.cpython-38-x86_64-linux-gnu.so: undefined symbol: "
     "_ZN3foo3barEv", []),
    ("ImportError: /home/u/venv/lib/python3.8/site-packages/vllm/_C.abi3.so: undefined symbol: _ZN3foo3barEv",
     [("package-install", "family-prior")]),
    ("ModuleNotFoundError: No module named 'comfy'", []),
    ("ModuleNotFoundError: No module named 'peft'", [("api-drift", "family-evidence")]),
], ids=["detectron2-extension", "vllm-extension", "no-module-comfy", "no-module-peft"])
def test_an_import_of_other_softwares_module_is_not_claimed(line: str, expected: list) -> None:
    """Other software's compiled extension (a signature's and the undefined-symbol prior's wording) or module: the
    module the message names decides, with or without a traceback; the stack's are still answered."""
    assert answers(line + "\n")[:1] == expected

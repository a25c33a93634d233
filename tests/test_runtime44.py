"""The runtime-44 fixtures as regression examples: real output of the turn-44 programs of benchmarks/runtime_tracebacks/
(their ``set: runtime-44`` header; CPU; torch 2.13, transformers 5.24, peft 0.21, trl 1.16, accelerate 1.15, datasets 5.2,
huggingface_hub 2.4: labels.toml's [versions]), run under the wrappers users use (accelerate launch, torchrun with 2 gloo
ranks, python -c, container log prefixes, jupyter execute, IPython, torch.distributed.launch, a 2-node torchrun whose
second node never starts), and 5 out-of-scope failures (label family "none") that kb must leave unclaimed.

They are not in the dev manifest (its entries are public reports with their address); labels.toml labels them. The
first score (benchmarks/results/devset-runtime-44-first-score.txt) was taken before kb was changed for them. The synthetic
tracebacks below hold the forms each runtime44 mechanism (tables/priors.toml's runtime44 section, kb/diagnose/match.py's
chain_causes) must answer and the near forms it must decline.
"""

from __future__ import annotations

import pytest

from runtime_support import RuntimeSet, top_answer

RUNTIME44 = RuntimeSet("runtime-44")
ENTRIES = RUNTIME44.entries

# Answered otherwise, each for a reason the text gives:
WRONG = {
    # torch.distributed.launch's --local-rank=1 left over for HfArgumentParser: the dev set labels the same line api-drift
    # (drift-14-transformers-22171: transformers before 4.28 did not take torch 2.0's hyphenated flag); the text cannot
    # tell a parser without TrainingArguments (the label, multi-gpu-launch) from an older one
    "mg44_distlaunch_hfargparser_local_rank.txt": "api-drift",
    # a vision encoder handed to SFTTrainer fails at its missing generation_config: an AttributeError of the stack's
    # code, read as api-drift (a field another release has); the label is model-unsupported
    "mu44_sft_model_path_vision_config.txt": "api-drift",
}
# Left unanswered, each for a reason the text gives:
SILENT: dict[str, str] = {
    # (wave 2) anomaly mode's NaN through a single-process Accelerator's backward: accelerate's frames alone do not make a
    # run the stack's (diffusion trainers use accelerate: the dev set's lossnan-unrel-simpletuner-304 is labelled out of
    # scope), and no trainer frame is there
    "ln44b_plain_accelerator_anomaly_sqrt.txt": "accelerate's frames only",
    # (wave 2) a MemoryError from safetensors' safe_open under `python -c`: the C extension leaves no frame of the stack
    # in the traceback (only "<string>"), so nothing says a run of the stack raised it (the MemoryError rule's near)
    "ho44b_pyc_safe_open_rlimit.txt": "no frame of the stack",
}


def test_every_fixture_is_labelled_once_with_a_known_family_or_none() -> None:
    RUNTIME44.check_labelled(out_of_scope=True)
    assert {"pyc", "torchrun", "accelerate", "logprefix", "distlaunch", "torchrun-nnodes2"} <= {e["mode"] for e in ENTRIES}
    assert sum(e["family"] == "none" for e in ENTRIES) >= 5
    assert set(SILENT) | set(WRONG) <= {e["file"] for e in ENTRIES}


@pytest.mark.parametrize("entry", ENTRIES, ids=RUNTIME44.ids)
def test_runtime_fixture(entry: dict, runtime_readings: dict) -> None:
    if entry["file"] in WRONG:
        answers = RUNTIME44.answers(entry["file"], runtime_readings)
        assert answers and answers[0].match.entry.key == WRONG[entry["file"]]
        return
    RUNTIME44.check_fixture(entry, runtime_readings, silent=SILENT)


SITE = "/opt/conda/lib/python3.11/site-packages"

_ECS = '''{first}
Task stopped at: 2026-11-20T10:42:13Z
Stopped reason: Essential container in task exited
Container: {container}
  Reason: OutOfMemoryError: Container killed due to memory usage
  Exit Code: 137
'''


def test_an_ecs_container_killed_for_memory_is_host_oom_not_cuda_oom() -> None:
    """tables/priors.toml [[process]] (runtime44) and the OutOfMemoryError prior's container exclude: ECS's container
    OOM answered cuda-oom at turn 43 (review-turn43.txt)."""
    run = _ECS.format(first="{'loss': 1.9213, 'grad_norm': 0.82, 'learning_rate': 0.0002, 'epoch': 0.42}",
                      container="sft-trainer")
    assert top_answer(run) == ("family", "host-oom")
    # the same report of a web service's task: no run, no stack; neither host-oom nor the GPU's out-of-memory
    service = _ECS.format(first="GET /healthz 200 3ms", container="api-gateway")
    assert top_answer(service) is None


_MEMORY = '''Traceback (most recent call last):
  File "/home/u/merge.py", line 14, in <module>
    state = load_file(path)
  File "{site}/safetensors/torch.py", line 359, in load_file
    result[k] = f.get_tensor(k)
MemoryError: Cannot allocate memory (os error 12)
'''


def test_a_memory_error_raised_in_the_stack_is_host_oom_before_any_frame_rule() -> None:
    """tables/priors.toml [[error]] MemoryError near the stack (runtime44): safetensors' frame rule answered
    checkpoint-io."""
    assert top_answer(_MEMORY.format(site=SITE)) == ("family", "host-oom")
    # raised in other software's code with no frame of the stack: not the run's
    assert top_answer(_MEMORY.format(site=SITE).replace("safetensors/torch.py", "mytool/io.py")) is None


def test_torch_without_its_cuda_library_is_cuda_setup() -> None:
    """tables/priors.toml [[error]] 'without ATen_cuda library' (runtime44)."""
    text = '''Traceback (most recent call last):
  File "/home/u/train.py", line 9, in <module>
    g = torch.Generator(device="cuda")
RuntimeError: Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into two shared libraries: a CPU library and a CUDA library; this error has occurred because you are trying to use some CUDA functionality, but the CUDA library has not been loaded by the dynamic linker for some reason.
'''
    assert top_answer(text) == ("family", "cuda-setup")


_USER_NAN = f'''Traceback (most recent call last):
  File "/home/u/train.py", line 30, in <module>
    trainer.train()
  File "{SITE}/transformers/trainer.py", line 1576, in train
    return inner_training_loop(
  File "{SITE}/transformers/trainer_callback.py", line 545, in call_event
    result = getattr(callback, event)(
  File "/home/u/train.py", line 13, in on_log
    raise ValueError(f"Loss became {{{{logs['loss']}}}} at step {{{{state.global_step}}}}, stopping")
ValueError: {{message}}
'''


@pytest.mark.parametrize("message", ["Loss became nan at step 1, stopping", "NaN loss detected at step 12",
                                     "grad_norm is inf, aborting"])
def test_the_users_own_check_of_a_nan_loss_in_a_trainer_run_is_loss_nan(message: str) -> None:
    """tables/priors.toml [[error]] (runtime44): a callback's or compute_loss's own check, near the trainer's frames."""
    assert top_answer(_USER_NAN.format(message=message)) == ("family", "loss-nan")


def test_a_nan_check_outside_a_run_of_the_stack_is_not_claimed() -> None:
    alone = '''Traceback (most recent call last):
  File "/home/u/fit.py", line 40, in <module>
    raise ValueError(f"Loss became {logs['loss']} at step {step}, stopping")
ValueError: Loss became nan at step 1, stopping
'''
    assert top_answer(alone) is None
    # the trainer's frames with a message that names no non-finite loss stay other rules' business
    assert top_answer(_USER_NAN.format(message="Loss became too large at step 1, stopping")) != ("family", "loss-nan")


def test_torchs_loss_refusing_a_target_shape_is_shape_mismatch() -> None:
    """tables/priors.toml [[error]] 'Expected target size' (runtime44); new and old torch wordings."""
    for message in ("RuntimeError: Expected target size [2, 32], got [2, 8]",
                    "ValueError: Expected target size (2, 32), got torch.Size([2, 8])"):
        text = f'''Traceback (most recent call last):
  File "/home/u/train.py", line 15, in compute_loss
    loss = torch.nn.functional.cross_entropy(outputs.logits, labels)
  File "{SITE}/torch/nn/functional.py", line 3504, in cross_entropy
    return torch._C._nn.cross_entropy_loss(
{message}
'''
        assert top_answer(text) == ("family", "shape-mismatch")


def test_a_masked_write_with_a_non_boolean_mask_is_dtype_mismatch() -> None:
    """tables/priors.toml [[error]] 'only supports boolean masks' (runtime44)."""
    text = '''Traceback (most recent call last):
  File "/home/u/pool.py", line 14, in forward
    hidden = hidden.masked_fill(1 - mask.unsqueeze(-1), 0.0)
RuntimeError: masked_fill_ only supports boolean masks, but got mask with dtype long int
'''
    assert top_answer(text) == ("family", "dtype-mismatch")


_EXTRA = '''Traceback (most recent call last):
  File "/workspace/dpo.py", line 7, in <module>
    callback = MergeModelCallback(MergeConfig("linear"))
  File "{site}/{lib}", line 84, in __init__
    raise ImportError("MergeConfig requires the `mergekit` extra. To install, run `pip install mergekit`.")
ImportError: MergeConfig requires the `mergekit` extra. To install, run `pip install mergekit`.
'''


def test_an_import_guard_naming_an_extra_is_package_install() -> None:
    """tables/priors.toml [[error]] 'requires the `X` extra' near the stack (runtime44)."""
    assert top_answer(_EXTRA.format(site=SITE, lib="trl/experimental/merge_model_callback.py")) == ("family", "package-install")
    assert top_answer(_EXTRA.format(site=SITE, lib="mytool/merge.py")) is None


_PEFT_CONFIG = f'''Traceback (most recent call last):
  File "/home/u/train.py", line 6, in <module>
    config = {{call}}
  File "<string>", line 16, in __init__
  File "{SITE}/{{file}}", line 112, in {{function}}
    raise ValueError("{{message}}")
ValueError: {{message}}
'''


@pytest.mark.parametrize(("file", "message"), [
    ("peft/tuners/ia3/config.py", "`feedforward_modules` should be a subset of `target_modules`"),
    ("peft/tuners/prompt_tuning/config.py", "When prompt_tuning_init='TEXT', tokenizer_name_or_path can't be None."),
    ("peft/tuners/lora/config.py", "When `layers_pattern` is specified, `layers_to_transform` must also be specified. "),
])
def test_peft_refusing_an_adapter_config_when_it_is_built_is_adapter_config(file: str, message: str) -> None:
    """tables/priors.toml [[frame]] peft's config __post_init__ (runtime44)."""
    text = _PEFT_CONFIG.format(call="IA3Config(...)", file=file, function="__post_init__", message=message)
    assert top_answer(text) == ("family", "adapter-config")
    # another package's dataclass check is not peft's
    other = _PEFT_CONFIG.format(call="MyConfig(...)", file="mylib/config.py", function="__post_init__", message=message)
    assert top_answer(other) is None


_STATE = f'''Traceback (most recent call last):
  File "/home/u/train.py", line 17, in <module>
    trainer.train(resume_from_checkpoint=ckpt)
  File "{SITE}/transformers/trainer.py", line 1521, in train
    state = TrainerState.load_from_json(os.path.join(resume_from_checkpoint, TRAINER_STATE_NAME))
  File "{SITE}/transformers/trainer_callback.py", line 154, in load_from_json
    data = json.load(f)
  File "/usr/lib/python3.11/json/__init__.py", line 293, in load
    return loads(fp.read(),
  File "/usr/lib/python3.11/json/decoder.py", line 353, in raw_decode
    obj, end = self.scan_once(s, idx)
json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column 83 (char 82)
'''


def test_a_checkpoints_trainer_state_that_does_not_parse_is_checkpoint_io() -> None:
    """tables/priors.toml [[frame]] transformers' TrainerState.load_from_json (runtime44)."""
    assert top_answer(_STATE) == ("family", "checkpoint-io")
    # a script's own JSON file: not a checkpoint
    own = '''Traceback (most recent call last):
  File "/home/u/train.py", line 9, in <module>
    cfg = json.load(f)
  File "/usr/lib/python3.11/json/__init__.py", line 293, in load
    return loads(fp.read(),
json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 28 (char 27)
'''
    assert top_answer(own) is None


def test_a_shard_the_index_names_missing_from_the_folder_is_checkpoint_io() -> None:
    """tables/priors.toml [[frame]] transformers' _load_pretrained_model opening a weight file (runtime44)."""
    text = f'''Traceback (most recent call last):
  File "/home/u/infer.py", line 12, in <module>
    model = AutoModelForCausalLM.from_pretrained(path)
  File "{SITE}/transformers/modeling_utils.py", line 4444, in from_pretrained
    loading_info, disk_offload_index = cls._load_pretrained_model(
  File "{SITE}/transformers/modeling_utils.py", line 4579, in _load_pretrained_model
    file_pointer = safe_open(file, framework="pt", device=device, backend=backend)
FileNotFoundError: No such file or directory: /data/models/sft/model-00002-of-00002.safetensors
'''
    assert top_answer(text) == ("family", "checkpoint-io")


_ADAPTER_CHAIN = f'''Traceback (most recent call last):
  File "{SITE}/huggingface_hub/utils/_http.py", line 866, in hf_raise_for_status
    response.raise_for_status()
  File "{SITE}/httpx/_models.py", line 841, in raise_for_status
    raise HTTPStatusError(message, request=request, response=self)
httpx.HTTPStatusError: Client error '404 Not Found' for url 'https://huggingface.co/acme/lora/resolve/v2/adapter_config.json'
For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/404

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "{SITE}/peft/config.py", line 321, in _get_peft_type
    config_file = hf_hub_download(
  File "{SITE}/huggingface_hub/utils/_http.py", line 882, in hf_raise_for_status
    raise _format({{cls}}, message, response, repo_type=repo_type, repo_id=repo_id) from e
huggingface_hub.errors.{{cls}}: 404 Client Error. (Request ID: Root=1-6734-5bd1c9)

{{paragraph}}

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/home/u/infer.py", line 11, in <module>
    model = PeftModel.from_pretrained(base, "acme/lora", revision="v2")
  File "{SITE}/peft/config.py", line 327, in _get_peft_type
    raise ValueError(f"Can't find '{{{{CONFIG_NAME}}}}' at '{{{{model_id}}}}'")
ValueError: Can't find 'adapter_config.json' at 'acme/lora'
'''


def test_excludes_read_every_exception_of_the_errors_chain_before_it() -> None:
    """kb/diagnose/match.py chain_causes (runtime44): KB0046's exclude names the Hub's RevisionNotFoundError, a cause in
    peft's ValueError's own chain. Only the root's headline was read before, so the second process's copy of the chain
    (torchrun prints each rank's traceback), outside the root's chain, answered KB0046."""
    revision = _ADAPTER_CHAIN.format(cls="RevisionNotFoundError",
                                     paragraph="Revision Not Found for url: https://huggingface.co/acme/lora/resolve/v2/"
                                               "adapter_config.json.\nInvalid rev id: v2")
    assert top_answer(revision) == ("family", "hub-access")
    assert top_answer(revision + revision) == ("family", "hub-access")
    # a repository that does not exist (a local folder's name tried on the Hub) is the case's own scenario
    missing = _ADAPTER_CHAIN.format(cls="RepositoryNotFoundError",
                                    paragraph="Repository Not Found for url: https://huggingface.co/acme/lora/resolve/"
                                              "main/adapter_config.json.")
    assert top_answer(missing) == ("case", "KB0046")
    assert top_answer(missing + missing) == ("case", "KB0046")


def test_the_real_revision_chain_of_one_process_is_hub_access() -> None:
    """kb/diagnose/match.py chain_causes (runtime44), on the real output: one process's chain of the runtime-44 fixture
    (the HTTP client's 404, the Hub's RevisionNotFoundError with its paragraphs, peft's ValueError), cut after that
    ValueError. Before, only the root's headline (the 404) was read and KB0046 answered."""
    lines = (RUNTIME44.folder / "hub44_torchrun_peft_adapter_revision.txt").read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("ValueError: Can't find 'adapter_config.json'"))
    assert top_answer("\n".join(lines[:first + 1]) + "\n") == ("family", "hub-access")

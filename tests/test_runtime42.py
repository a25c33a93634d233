"""The runtime-42 fixtures as regression examples: real output of the turn-42 programs of benchmarks/runtime_tracebacks/
(their ``set: runtime-42`` header; CPU; torch 2.13, transformers 5.24, peft 0.21, trl 1.16, accelerate 1.15, datasets 5.2,
huggingface_hub 2.4: labels.toml's [versions]), through wrappers runtime-38 to 41 did not use: pytest's failure report
(``E``-prefixed lines, ``path:line: in function`` frames), a thread's ``Exception in thread``, asyncio.TaskGroup's exception
group boxes, JSON log formatters (the traceback in an escaped field), multiprocessing.Pool and ProcessPoolExecutor,
torch.multiprocessing.spawn, accelerate's notebook_launcher, pipelines, DPOTrainer, SFTConfig's dataset_num_proc.

They are not in the dev manifest (its entries are public reports with their address); labels.toml labels them. The
first score (benchmarks/results/runtime-42-first-score.txt) was taken before kb was changed for them.
"""

from __future__ import annotations

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge
from runtime_support import RuntimeSet

RUNTIME42 = RuntimeSet("runtime-42")
ENTRIES = RUNTIME42.entries

# Left unanswered, each for a reason the text gives (an answer there would have to guess):
SILENT = {
    # pytest prints the failing source line behind ">" before the error; the line holds the message's own f-string
    # ("raise AttributeError(f'... has no attribute {key}')"), read as the error, and the E-line after it as its text
    "api42_pytest_batch_encode_plus.txt": "pytest's quoted source line read as the error",
    # a ProcessPoolExecutor's worker killed: only the standard library's words, nothing names the stack
    "ho42_pool_broken.txt": "a pool's worker that died, in a log that does not name the stack",
    # torch's clip_grad_norm_ on non-finite gradients, no frame of the fine-tuning stack (as ln41_nbclient_anomaly)
    "ln42_clip_nonfinite.txt": "any deep-learning program's non-finite gradients",
    # anomaly mode's NaN under pytest: torch's frames only (families/loss-nan.md's signature wants one of the stack's)
    "ln42_pytest_anomaly.txt": "any deep-learning program's NaN",
    # torch's default_collate on a plain DataLoader: priors.toml leaves torch's own DataLoader frames to every project
    "td42_default_collate_none.txt": "a plain torch DataLoader's collate",
}
# Labelled with a case, answered with its family: "expected m1 and m2 to have the same dtype, but got: float !=
# c10::BFloat16" (the CPU kernel's wording, not KB0020's mat1/mat2 signature) and a config of a model type no release
# knows ('qwen9': custom code or a typo, not an old install; families' model_type_known).
FAMILY_ONLY = {"dt42_pytest_bf16_embeds.txt": "KB0020", "mu42_pool_unknown_type.txt": "KB0050"}


def test_every_fixture_is_labelled_once_with_a_known_family() -> None:
    RUNTIME42.check_labelled()
    assert {"pytest", "torchrun", "accelerate"} <= {e["mode"] for e in ENTRIES}
    assert set(SILENT) | set(FAMILY_ONLY) <= {e["file"] for e in ENTRIES}


@pytest.mark.parametrize("entry", ENTRIES, ids=RUNTIME42.ids)
def test_runtime_fixture(entry: dict, runtime_readings: dict) -> None:
    RUNTIME42.check_fixture(entry, runtime_readings, silent=SILENT, family_only=FAMILY_ONLY)


def _answers(text: str) -> list:
    return diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers


def _top(text: str) -> tuple[str, str] | None:
    answers = _answers(text)
    if not answers:
        return None
    entry = answers[0].match.entry
    return (answers[0].kind, entry.id if answers[0].kind == "case" else entry.key)


_REPORT = '''[transformers] LlamaForCausalLM LOAD REPORT from: /content/adapter
Key                                                     | Status   |
--------------------------------------------------------+----------+----------------------------------------------------
{row}

Notes:
- MISMATCH:\tckpt weights were loaded, but they did not match the original empty weight shapes.
Traceback (most recent call last):
  File "/content/infer.py", line 13, in <module>
    model.load_adapter("/content/adapter", adapter_name="chat")
  File "/usr/local/lib/python3.11/dist-packages/transformers/integrations/peft.py", line 344, in load_adapter
    log_state_dict_report(
  File "/usr/local/lib/python3.11/dist-packages/transformers/utils/loading_report.py", line 316, in log_state_dict_report
    raise RuntimeError(
RuntimeError: You set `ignore_mismatched_sizes` to `False`, thus raising an error. For details look at the above report!
'''


def test_transformers5_load_report_of_lora_matrices_of_another_width_is_kb0030() -> None:
    """KB0030's load-report-lora-width-differs: transformers 5's load report names the mismatched keys above its
    RuntimeError; a lora_A of the same rank and another width (or a lora_B of another width and the same rank) is an
    adapter trained on a base of another size. The error alone stays the family's (checkpoint-io)."""
    row = ("model.layers.{{0, 1}}.self_attn.q_proj.lora_{ab}.chat.weight | MISMATCH | Reinit due to size mismatch - "
           "ckpt: torch.Size([{a}, {b}]) vs model:torch.Size([{c}, {d}])")
    lora_a = row.format(ab="A", a=8, b=4096, c=8, d=5120)
    lora_b = row.format(ab="B", a=4096, b=8, c=5120, d=8)
    assert _top(_REPORT.format(row=lora_a)) == ("case", "KB0030")
    assert _top(_REPORT.format(row=lora_b)) == ("case", "KB0030")
    # another rank, the same width: the adapter config rebuilt by hand, not another base
    other_rank = row.format(ab="A", a=16, b=4096, c=8, d=4096)
    assert _top(_REPORT.format(row=other_rank)) == ("family", "checkpoint-io")
    # a resized vocabulary: the family's cause, not this case
    vocab = ("model.embed_tokens.weight | MISMATCH | Reinit due to size mismatch - ckpt: torch.Size([32010, 4096]) "
             "vs model:torch.Size([32000, 4096])")
    assert _top(_REPORT.format(row=vocab)) == ("family", "checkpoint-io")


_GROUP = '''  + Exception Group Traceback (most recent call last):
  |   File "/srv/app/batch.py", line 22, in <module>
  |     asyncio.run(main())
  |   File "/usr/lib/python3.11/asyncio/taskgroups.py", line 145, in __aexit__
  |     raise me from None
  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)
  +-+---------------- 1 ----------------
    | Traceback (most recent call last):
    |   File "/srv/app/batch.py", line 13, in encode
    |     return tok(text)["input_ids"]
    |   File "/usr/lib/python3.11/site-packages/{lib}", line 2553, in __call__
    |     raise ValueError(
    | ValueError: {message}
    +------------------------------------
'''
_TOKENIZE = "text input must be of type `str` (single example), `list[str]` (batch or single pretokenized example)"


def test_an_exception_group_is_noise_its_sub_exception_the_cause() -> None:
    """tables/noise.toml (runtime42): asyncio.TaskGroup's ExceptionGroup only gathers its tasks' errors; it was the root
    error, so the tokenizer's error printed inside its box went unread."""
    text = _GROUP.format(lib="transformers/tokenization_utils_base.py", message=_TOKENIZE)
    assert _top(text) == ("family", "training-data")
    errors = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).errors
    group = [e for e in errors if e.type == "ExceptionGroup"]
    assert group and group[0].noise
    # the group of other software's error stays unanswered: the group itself is no answer
    assert _top(_GROUP.format(lib="mytok/encode.py", message="unsupported payload kind 'blob'")) is None


_GUARD = '''Traceback (most recent call last):
  File "/home/u/train.py", line 30, in <module>
    {user}
  File "/usr/lib/python3.11/site-packages/{lib}", line 120, in {func}
    raise {etype}(
{etype}: {message}
'''


@pytest.mark.parametrize(("lib", "func", "etype", "message"), [
    ("transformers/integrations/integration_utils.py", "__init__", "RuntimeError",
     "ClearMLCallback requires 'clearml' to be installed. Run `pip install clearml`."),
    ("datasets/features/audio.py", "decode_example", "ImportError", "To support decoding audio data, please install 'torchcodec'."),
    ("transformers/trainer_optimizer.py", "_get_torchao_optimizer", "ImportError",
     "You need to have `torchao>=0.4.0` in order to use torch 4-bit optimizers. Install it with `pip install torchao`"),
    ("transformers/utils/peft_utils.py", "check_peft_version", "ValueError",
     "The version of PEFT you are using is not compatible, please use a version >= 0.22.0"),
])
def test_import_guards_and_version_checks_in_the_stack_are_package_install(lib: str, func: str, etype: str,
                                                                        message: str) -> None:
    """tables/priors.toml (runtime42): the import guard's wordings with a quoted package, "please install 'x'", "You
    need to have `x>=v` in order to use", and a version check of a package the stack works with."""
    stack = _GUARD.format(user="trainer.train()", lib=lib, func=func, etype=etype, message=message)
    assert _top(stack) == ("family", "package-install")
    other = _GUARD.format(user="run()", lib="mylogger/backend.py", func=func, etype=etype, message=message)
    assert _top(other) is None


_LAUNCH = '''Traceback (most recent call last):
  File "/content/cell.py", line 9, in <module>
    notebook_launcher(train, num_processes=2)
  File "/usr/local/lib/python3.11/dist-packages/accelerate/launchers.py", line {line}, in {func}
    {code}
{etype}: {message}
'''


def test_accelerates_notebook_launcher_refusing_to_start_is_multi_gpu_launch() -> None:
    """tables/priors.toml [[frame]] (runtime42): an error raised by accelerate's notebook_launcher itself (an
    Accelerator or CUDA initialised in the notebook's process before the launch)."""
    refused = _LAUNCH.format(line=160, func="notebook_launcher", code="raise ValueError(", etype="ValueError",
                             message="To launch a multi-device training from your notebook, the `Accelerator` should "
                                     "only be initialized inside your training function. Restart your notebook.")
    assert _top(refused) == ("family", "multi-gpu-launch")
    # the training function's own error, raised in the user's code the launcher called, is not the launcher's
    user = refused.replace('''    raise ValueError(
''', '''    function(*args)
  File "/content/cell.py", line 5, in train
    check(config)
''')
    assert _top(user) is None


def test_no_accelerator_device_is_cuda_setup() -> None:
    """families/cuda-setup.md no-accelerator-device (runtime42): torch's accelerator API on a machine with none."""
    text = '''Traceback (most recent call last):
  File "/home/u/prefetch.py", line 4, in <module>
    pinned = batch.pin_memory()
RuntimeError: Cannot access accelerator device when none is available.
'''
    assert _top(text) == ("family", "cuda-setup")


def test_generate_model_kwargs_unused_is_api_drift_only_for_a_keyword_with_history() -> None:
    """families/api-drift.md generate-model-kwargs-unused (runtime42): a keyword generate() passes on and the model does
    not take is api-drift when the API history saw its acceptance change (use_auth_token); a typo is not."""
    text = RUNTIME42.folder.joinpath("api42_pipeline_use_auth_token.txt").read_text(encoding="utf-8")
    assert _top(text) == ("family", "api-drift")
    assert _top(text.replace("use_auth_token", "max_lenght")) is None


def test_a_library_error_under_the_launchers_call_of_the_function_is_not_the_launchers() -> None:
    """(review42) notebook_launcher(trainer.train, num_processes=1) calls the function in its own frame (no user frame
    between): an error raised in torch's collate under the Trainer walked out to launchers.py and was answered
    multi-gpu-launch at 683b5a2; only the launcher's own `raise` statement is its refusal."""
    dist = "/usr/local/lib/python3.11/dist-packages"
    text = _LAUNCH.format(line=250, func="notebook_launcher", code="function(*args)", etype="ValueError",
                          message="Frobnicated the widget beyond repair")
    text = text.replace("    function(*args)\n", f'''    function(*args)
  File "{dist}/transformers/trainer.py", line 1838, in _inner_training_loop
    for step, inputs in enumerate(epoch_iterator):
  File "{dist}/torch/utils/data/_utils/fetch.py", line 54, in fetch
    return self.collate_fn(data)
  File "{dist}/torch/utils/data/_utils/collate.py", line 300, in default_collate
    x = convert(batch)
''')
    assert "multi-gpu-launch" not in [a.match.entry.key for a in _answers(text) if a.kind == "family"]

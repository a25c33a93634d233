"""The runtime-43 fixtures as regression examples: real output of the turn-43 programs of benchmarks/runtime_tracebacks/
(their ``set: runtime-43`` header; CPU; torch 2.13, transformers 5.24, peft 0.21, trl 1.16, accelerate 1.15, datasets 5.2,
huggingface_hub 2.4: labels.toml's [versions]), drawn in proportion to the corpus's families (tables/frequency.toml) and run
under the wrappers users use: a notebook-like ``python -c`` (frames read File "<string>"), torchrun with 2 gloo ranks,
accelerate launch, datasets' map with worker processes, container log prefixes, Trainer/SFTTrainer/GRPOTrainer.

They are not in the dev manifest (its entries are public reports with their address); labels.toml labels them. The
first score (benchmarks/results/devset-runtime-43-first-score.txt) was taken before kb was changed for them.
"""

from __future__ import annotations

import pytest

from runtime_support import RuntimeSet, top_answer

RUNTIME43 = RuntimeSet("runtime-43")
ENTRIES = RUNTIME43.entries

# Left unanswered or answered otherwise, each for a reason the text gives:
SILENT = {
    # anomaly mode's NaN in a hand-written loss under accelerate launch: torch's autograd frames and the launcher's
    # summary only (as ln42_pytest_anomaly: families/loss-nan.md wants more than any deep-learning program's NaN)
    "ln43_accelerate_anomaly_log_zero.txt": "any deep-learning program's NaN",
    # (wave 2) the same under torchrun's DDP: torch's frames, the DDP wrapper's and the agent's summary
    "ln43b_torchrun_anomaly_div_zero.txt": "any deep-learning program's NaN",
}
# accelerate's find_executable_batch_size swallows the allocator's error and prints only "No executable batch size
# found, reached zero." (wave 2: so does Trainer's auto_find_batch_size, which uses it), which a GPU's out-of-memory prints word for word: the text cannot tell host RAM (the label)
# from the GPU's, and kb answers cuda-oom, the common reading.
WRONG = {"ho43_accelerate_find_batch_size.txt": "cuda-oom", "ho43b_trainer_auto_find_batch_size.txt": "cuda-oom"}


def test_every_fixture_is_labelled_once_with_a_known_family() -> None:
    RUNTIME43.check_labelled()
    assert {"pyc", "torchrun", "accelerate", "logprefix"} <= {e["mode"] for e in ENTRIES}
    assert set(SILENT) | set(WRONG) <= {e["file"] for e in ENTRIES}


@pytest.mark.parametrize("entry", ENTRIES, ids=RUNTIME43.ids)
def test_runtime_fixture(entry: dict, runtime_readings: dict) -> None:
    if entry["file"] in WRONG:
        answers = RUNTIME43.answers(entry["file"], runtime_readings)
        assert answers and answers[0].match.entry.key == WRONG[entry["file"]]
        return
    RUNTIME43.check_fixture(entry, runtime_readings, silent=SILENT)


_GETATTR = '''Traceback (most recent call last):
  File "/content/prep.py", line 21, in preprocess
    {user}
  File "/usr/local/lib/python3.12/dist-packages/transformers/tokenization_utils_base.py", line {line}, in __getattr__
    {code}
AttributeError: {message}
'''


@pytest.mark.parametrize(("user", "message"), [
    ("enc = tokenizer.encode_plus(text, max_length=64, pad_to_max_length=True)", "TokenizersBackend has no attribute encode_plus"),
    ("with tok.as_target_tokenizer():", "PythonBackend has no attribute as_target_tokenizer"),
    ("ids = tok.batch_encode_plus(texts)", "LlamaTokenizerFast has no attribute batch_encode_plus"),
])
def test_the_tokenizers_own_getattr_refusing_a_name_is_api_drift(user: str, message: str) -> None:
    """tables/priors.toml [[frame]] (runtime43): transformers' tokenizer __getattr__ raising 'X has no attribute Y'."""
    code = 'raise AttributeError(f"{self.__class__.__name__} has no attribute {key}")'
    assert top_answer(_GETATTR.format(user=user, line=1344, code=code, message=message)) == ("family", "api-drift")


def test_batch_encodings_bare_attribute_error_is_not_api_drift() -> None:
    """BatchEncoding's __getattr__ in the same file raises a bare AttributeError for a key the batch lacks: not the
    tokenizer's API, so the rule's statement (code) rules it out."""
    text = _GETATTR.format(user="labels = batch.labels", line=304, code="raise AttributeError", message="")
    assert top_answer(text) != ("family", "api-drift")


_SPLIT = '''Traceback (most recent call last):
  File "/home/u/train.py", line 12, in <module>
    val = load_dataset("json", data_files={{"train": "train.jsonl"}}, split="{split}")
  File "/opt/conda/lib/python3.11/site-packages/datasets/load.py", line 1699, in load_dataset
    ds = builder_instance.as_dataset(split=split, in_memory=keep_in_memory)
  File "/opt/conda/lib/python3.11/site-packages/datasets/{file}", line 130, in {function}
    {code}
{message}
'''


def test_datasets_split_reader_refusing_a_split_is_training_data() -> None:
    """tables/priors.toml [[frame]] (runtime43): datasets' arrow_reader / splits turning a split into files."""
    unknown = _SPLIT.format(split="validation", file="arrow_reader.py", function="to_absolute",
                            code='raise ValueError(f\'Unknown split "{split}". Should be one of {list(name2len)}.\')',
                            message='ValueError: Unknown split "validation". Should be one of [\'train\'].')
    assert top_answer(unknown) == ("family", "training-data")
    sliced = _SPLIT.format(split="train[:150%]", file="arrow_reader.py", function="_rel_to_abs_instr",
                           code="raise ValueError(f\"Requested slice out of range: {rel_instr}\")",
                           message="ValueError: Requested slice out of range")
    assert top_answer(sliced) == ("family", "training-data")
    # the same error raised by other software's reader is not datasets'
    other = unknown.replace("datasets/arrow_reader.py", "mylib/arrow_reader.py")
    assert top_answer(other) != ("family", "training-data")


def test_moving_a_model_with_offloaded_layers_is_device_mismatch() -> None:
    """tables/priors.toml [[frame]] (runtime43): accelerate's guard on .to() of a dispatched model (big_modeling's
    wrapper); an error in the same file's other functions is not read by it."""
    text = '''Traceback (most recent call last):
  File "/content/run.py", line 11, in <module>
    model = model.to("cuda")
  File "/usr/local/lib/python3.11/dist-packages/accelerate/big_modeling.py", line 470, in wrapper
    raise RuntimeError("You can't move a model that has some modules offloaded to cpu or disk.")
RuntimeError: You can't move a model that has some modules offloaded to cpu or disk.
'''
    assert top_answer(text) == ("family", "device-mismatch")
    elsewhere = text.replace("in wrapper", "in infer_auto_device_map").replace(
        "You can't move a model that has some modules offloaded to cpu or disk.", "max_memory has no room left")
    assert top_answer(elsewhere) != ("family", "device-mismatch")


_GUARD = '''Traceback (most recent call last):
  File "/workspace/train.py", line 8, in <module>
    accelerator = Accelerator(mixed_precision="fp8")
  File "/usr/local/lib/python3.11/site-packages/{lib}", line 934, in __init__
    raise ValueError(
ValueError: {message}
'''


def test_an_import_guard_naming_two_packages_is_package_install() -> None:
    """tables/priors.toml [[error]] (runtime43): 'requires `A` or `B` to be installed' raised as a ValueError by the
    stack (accelerate's fp8); first answered multi-gpu-launch by accelerate/state.py's frame rule."""
    message = "Using `fp8` precision requires `transformer_engine` or `MS-AMP` to be installed."
    assert top_answer(_GUARD.format(lib="accelerate/state.py", message=message)) == ("family", "package-install")
    # the words in other software's code are not the stack's guard
    assert top_answer(_GUARD.format(lib="myplugin/state.py", message=message)) is None


_MAP = '''multiprocess.pool.RemoteTraceback:
"""
Traceback (most recent call last):
  File "/usr/lib/python3/dist-packages/datasets/arrow_dataset.py", line 3882, in apply_function
    processed_inputs = function(*fn_args, *additional_args, **fn_kwargs)
  File "/home/u/prep.py", line 9, in split
    import {module}
ModuleNotFoundError: No module named '{module}'
"""
'''


def test_a_module_missing_in_a_function_the_stack_ran_is_package_install() -> None:
    """tables/priors.toml [[error]] (runtime43): a datasets map's function importing a package this environment lacks."""
    assert top_answer(_MAP.format(module="nltk")) == ("family", "package-install")
    # the same import in a script of its own (no frame of the stack) stays unanswered: any program's missing module
    alone = '''Traceback (most recent call last):
  File "/home/u/prep.py", line 9, in <module>
    import nltk
ModuleNotFoundError: No module named 'nltk'
'''
    assert top_answer(alone) is None
    # a class torch.load looks up while unpickling is the checkpoint's, not an install's
    unpickle = _MAP.format(module="models").replace("    import models\n", "    state = torch.load(path)\n").replace(
        "ModuleNotFoundError", '''  File "/usr/lib/python3/dist-packages/torch/serialization.py", line 1500, in find_class
    return super().find_class(mod_name, name)
ModuleNotFoundError''')
    assert top_answer(unpickle) != ("family", "package-install")

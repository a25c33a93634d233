"""The mix43 rules (issue #24): where a traceback cut before its exception line stops (tables/priors.toml block "mix43",
[[frame]] rules with `cut = true`), each on the error output of the real reports it was built from (dev-corpus batch
gh-mix-16 and gh-err-06; the URL beside each) and on the near forms it must decline.

A forum excerpt or a truncated paste often ends inside the library call that failed, with no exception line. A `cut`
rule says what failing in that call means; it holds only for such a traceback and only on its last frame shown.
"""

from __future__ import annotations

import pytest

from kb.knowledge.registry import load_knowledge
from rules_support import ruled

SP = "/home/ana/.venv/lib/python3.10/site-packages"  # a site-packages folder for the frames tests build


def _top(text: str) -> tuple[str, str] | None:
    found = ruled(text)
    return found[0] if found else None


# -- peft putting a saved adapter's weights into the model -----------------------------------------------------------------
# OpenRLHF/OpenRLHF#872 (gh-mix-16): merging a reward model's LoRA onto its base; the paste ends in peft's
# set_peft_model_state_dict, before the exception line
OPENRLHF_872 = """\
Loading the LoRA adapter from ./checkpoint/Qwen2.5-1.5B-rm
Traceback (most recent call last):
  File "/home/c/miniconda3/envs/py310/lib/python3.10/runpy.py", line 196, in _run_module_as_main
    return _run_code(code, main_globals, None,
  File "/home/c/miniconda3/envs/py310/lib/python3.10/runpy.py", line 86, in _run_code
    exec(code, run_globals)
  File "/home/c/miniconda3/envs/py310/lib/python3.10/site-packages/openrlhf/cli/lora_combiner.py", line 46, in <module>
    apply_lora(args.model_path, args.lora_path, args.output_path, args.is_rm, args.bf16)
  File "/home/c/miniconda3/envs/py310/lib/python3.10/site-packages/openrlhf/cli/lora_combiner.py", line 18, in apply_lora
    lora_model = PeftModel.from_pretrained(
  File "/home/c/miniconda3/envs/py310/lib/python3.10/site-packages/peft/peft_model.py", line 545, in from_pretrained
    model.load_adapter(
  File "/home/c/miniconda3/envs/py310/lib/python3.10/site-packages/peft/peft_model.py", line 1117, in load_adapter
    load_result = set_peft_model_state_dict(
  File "/home/c/miniconda3/envs/py310/lib/python3.10/site-packages/peft/utils/save_and_load.py", line 395, in set_peft_model_state_dict
"""


def test_a_paste_cut_in_peft_loading_an_adapters_weights_is_adapter_config() -> None:
    assert _top(OPENRLHF_872) == ("adapter-config", "family-prior")


# -- datasets building a dataset from its files ------------------------------------------------------------------------------
# huggingface/datasets#4306 (gh-err-06): rich's traceback of a notebook, cut at load_dataset's download_and_prepare call
DATASETS_4306 = """\
╭──────────────────────────── Traceback (most recent call last) ────────────────────────────╮
│ <ipython-input-74-97947e92c100>:5 in <module>                                             │
│                                                                                           │
│ /home/tiankang/software/anaconda3/lib/python3.8/site-packages/datasets/load.py:1687 in    │
│ load_dataset                                                                              │
│                                                                                           │
│   1684 │   try_from_hf_gcs = path not in _PACKAGED_DATASETS_MODULES                       │
│   1685 │                                                                                  │
│   1686 │   # Download and prepare data                                                    │
│ ❱ 1687 │   builder_instance.download_and_prepare(
"""
# luyug/Dense#6 (gh-err-06): a training script's dataset class calling load_dataset; the paste ends in the builder
DENSE_6 = """\
Traceback (most recent call last):
  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main
    return _run_code(code, main_globals, None,
  File "/usr/lib/python3.10/runpy.py", line 86, in _run_code
    exec(code, run_globals)
  File "/content/Dense/src/dense/driver/train.py", line 104, in <module>
    main()
  File "/content/Dense/src/dense/driver/train.py", line 79, in main
    train_dataset = TrainDataset(
  File "/content/Dense/src/dense/data.py", line 26, in __init__
    self.train_data = datasets.load_dataset(
  File "/usr/local/lib/python3.10/dist-packages/datasets/load.py", line 607, in load_dataset
    builder_instance.download_and_prepare(
  File "/usr/local/lib/python3.10/dist-packages/datasets/builder.py", line 514, in download_and_prepare
    self._download_and_pr
"""


@pytest.mark.parametrize("text", [DATASETS_4306, DENSE_6], ids=["datasets-4306", "dense-6"])
def test_a_paste_cut_in_datasets_building_the_dataset_is_training_data(text: str) -> None:
    assert _top(text) == ("training-data", "family-prior")


# -- near forms: the rules hold only where a cut traceback stops -------------------------------------------------------------
def _finished(cut: str, exception_line: str) -> str:
    return cut + exception_line


CUT_NEAR = [
    # the same call with its exception line shown: the class and message decide, not the `cut` rule (a user's Ctrl-C
    # while the files downloaded; a class printed without a message)
    _finished(DENSE_6, "KeyboardInterrupt\n"),
    _finished(DENSE_6, "RuntimeError\n"),
    # the traceback goes on past load_dataset into the user's own function and stops there: not where datasets stopped
    DENSE_6.rsplit('  File "/usr/local/lib/python3.10/dist-packages/datasets/builder.py"', 1)[0]
    + '  File "/content/Dense/src/dense/data.py", line 40, in _read\n    rows = self.parse(line)\n',
    # peft's frame further in, the paste stopping in torch's module call under it: set_peft_model_state_dict is not the
    # last frame shown
    OPENRLHF_872 + "    load_result = model.load_state_dict(peft_model_state_dict, strict=False)\n"
    f'  File "{SP}/torch/nn/modules/module.py", line 2153, in load_state_dict\n',
]


@pytest.mark.parametrize("text", CUT_NEAR, ids=["interrupted", "class-only", "stops-in-user-code", "stops-further-in"])
def test_the_cut_rules_hold_only_where_a_cut_traceback_stops(text: str) -> None:
    assert ("adapter-config", "family-prior") not in ruled(text)
    assert ("training-data", "family-prior") not in ruled(text)


def test_cut_rules_name_no_classes() -> None:
    """A `cut` rule reads a traceback whose class is not shown: a class list there could never be checked."""
    rules = [r for r in load_knowledge().tables["priors"]["frame"] if r.get("cut")]
    assert len(rules) >= 2
    assert all(not r["types"] for r in rules)


# (review43) load_dataset's frame decides only where its statement is the build (download_and_prepare): a paste that
# stops where load_dataset resolves the dataset on the Hub (load_dataset_builder, dataset_module_factory: a private,
# gated, misspelt or offline repo) says nothing of the data files, and was answered training-data with the rule's why
# "the traceback stops where datasets builds the dataset from its data files"
LOAD_DATASET_CUT = """\
Traceback (most recent call last):
  File "/content/train.py", line 12, in <module>
    ds = load_dataset("acme/private-sft-data", split="train")
  File "/usr/local/lib/python3.10/dist-packages/datasets/load.py", line 2129, in load_dataset
    {statement}
"""


@pytest.mark.parametrize("statement", ["builder_instance = load_dataset_builder(",
                                       "dataset_module = dataset_module_factory(", ""])
def test_a_paste_cut_where_load_dataset_resolves_the_dataset_is_not_training_data(statement: str) -> None:
    assert ("training-data", "family-prior") not in ruled(LOAD_DATASET_CUT.format(statement=statement))


def test_a_paste_cut_at_load_datasets_build_call_is_training_data() -> None:
    text = LOAD_DATASET_CUT.format(statement="builder_instance.download_and_prepare(")
    assert _top(text) == ("training-data", "family-prior")

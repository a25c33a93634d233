"""The runtime-41 fixtures as regression examples: real output of the turn-41 programs of benchmarks/runtime_tracebacks/
(their ``set: runtime-41`` header; CPU; torch 2.13, transformers 5.24, peft 0.21, trl 1.16, accelerate 1.15, datasets 5.2,
huggingface_hub 2.4: labels.toml's [versions]), through entry points and wrappers runtime-38/39/40 did not use: GRPOTrainer,
RewardTrainer, notebooks run by nbclient's ``jupyter execute`` (the kernel's coloured traceback inside nbclient's
CellExecutionError), rich's traceback handler, ``logger.exception`` wrappers, ``srun --label`` prefixes, torchrun and
accelerate launch (2 gloo processes; wave 2: torchrun --tee 3), IPython cells, tqdm bars, chained errors (a datasets
worker's RemoteTraceback, the Hub's).

They are not in the dev manifest (its entries are public reports with their address); labels.toml labels them. The
first score (benchmarks/results/devset-runtime-41-first-score.txt) was taken before kb was changed for them.
"""

from __future__ import annotations

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge
from runtime_support import RuntimeSet, family

RUNTIME41 = RuntimeSet("runtime-41")
ENTRIES = RUNTIME41.entries

# Left unanswered, each for a reason the text gives (an answer there would have to guess):
SILENT = {
    # plain torch under anomaly mode, no frame of the fine-tuning stack: families/loss-nan.md's signature wants one
    "ln41_nbclient_anomaly.txt": "any deep-learning program's NaN",
    # nbclient's DeadKernelError with nothing else that names the stack (the rule needs_stack; see the test below)
    "ho41_nbclient_kernel_died.txt": "a kernel that died, in a log that does not name the stack",
    # the user's own `import evaluate`: one more module name, no frame of the stack
    "pi41_logging_evaluate.txt": "a module the user's script imports",
    # transformers' config validation (hidden size not a multiple of the heads): no family says it
    "sh41_rich_reshape_heads.txt": "a config validation error kb has no family for",
}
# Answered otherwise than labelled: torch's "DDP expects same model across all ranks ... inconsistent N params" is
# families/multi-gpu-launch.md's own signature (ddp-param-count-mismatch: most often one rank's broken P2P path), and the
# program's cause (a rank-dependent model) is not told apart by the text.
KNOWN_OTHER = {"ddp41_torchrun_param_count.txt": "multi-gpu-launch"}
# Labelled with a case, answered with its family: peft's "No modules were targeted for adaptation" (target modules and
# exclude modules together) and a GRPOTrainer given a folder of an unknown model type (no version evidence in the log).
FAMILY_ONLY = {"ad41_reward_c_attn.txt": "KB0029", "mu41_grpo_unknown_type.txt": "KB0050"}


def test_every_fixture_is_labelled_once_with_a_known_family() -> None:
    RUNTIME41.check_labelled()
    # the wrappers the set is for: each is there
    assert {"torchrun", "torchrun-tee", "accelerate", "nbclient", "ipython", "srunlabel"} <= {e["mode"] for e in ENTRIES}
    assert set(SILENT) | set(KNOWN_OTHER) | set(FAMILY_ONLY) <= {e["file"] for e in ENTRIES}


@pytest.mark.parametrize("entry", ENTRIES, ids=RUNTIME41.ids)
def test_runtime_fixture(entry: dict, runtime_readings: dict) -> None:
    if entry["file"] in KNOWN_OTHER:
        assert family(RUNTIME41.answers(entry["file"], runtime_readings)[0]) == KNOWN_OTHER[entry["file"]]
        return
    RUNTIME41.check_fixture(entry, runtime_readings, silent=SILENT, family_only=FAMILY_ONLY)


def _answers(text: str) -> list:
    return diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers


def _top_family(text: str) -> str | None:
    answers = _answers(text)
    return family(answers[0]) if answers else None


_NBCLIENT = '''Traceback (most recent call last):
  File "/opt/conda/bin/jupyter-execute", line 8, in <module>
    sys.exit(main())
  File "/opt/conda/lib/python3.11/site-packages/nbclient/client.py", line 918, in _check_raise_for_error
    raise CellExecutionError.from_cell_and_msg(cell, exec_reply_content)
nbclient.exceptions.CellExecutionError: An error occurred while executing the following cell:
------------------
{cell}
------------------


---------------------------------------------------------------------------
{etype}                                Traceback (most recent call last)
Cell In[4], line 1
----> 1 {cell}

File /opt/conda/lib/python3.11/site-packages/{lib}:{line}, in {func}
   {line}     raise {etype}(

{etype}: {message}
'''


@pytest.mark.parametrize(("fields", "expected"), [
    (dict(cell='ds = load_dataset("org/private-set")', lib="datasets/load.py", line=1134, func="dataset_module_factory",
          etype="DatasetNotFoundError", message="Dataset 'org/private-set' doesn't exist on the Hub or cannot be accessed."),
     "hub-access"),
    (dict(cell='ds = ds.rename_column("output", "completion")', lib="datasets/arrow_dataset.py", line=2581,
          func="Dataset.rename_column", etype="ValueError",
          message="Original column name output not in the dataset. Current columns in the dataset: ['instruction', 'response']"),
     "training-data"),
])
def test_nbclient_cell_execution_error_is_noise_the_kernels_error_the_cause(fields: dict, expected: str) -> None:
    """tables/noise.toml: nbclient's CellExecutionError only reports that a cell failed (jupyter execute, nbconvert
    --execute); it was the root error, so no prior read the kernel's own error printed after it."""
    text = _NBCLIENT.format(**fields)
    assert _top_family(text) == expected
    errors = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).errors
    wrapper = [e for e in errors if (e.type or "").endswith("CellExecutionError")]
    assert wrapper and wrapper[0].noise


_GUARD = '''Traceback (most recent call last):
  File "/home/u/train.py", line 30, in <module>
    trainer = Trainer(model=model, args=args, train_dataset=ds)
  File "{lib}/integration_utils.py", line 1012, in __init__
    raise RuntimeError("{message}")
RuntimeError: {message}
'''


def test_an_import_guard_that_names_a_version_is_package_install_in_the_stack() -> None:
    message = "CometCallback requires comet-ml>=3.43.2 to be installed. Run `pip install comet-ml>=3.43.2`."
    stack = _GUARD.format(lib="/usr/lib/python3.11/site-packages/transformers/integrations", message=message)
    assert _top_family(stack) == "package-install"
    other = _GUARD.format(lib="/usr/lib/python3.11/site-packages/somelogger", message=message)
    assert _top_family(other) != "package-install"


_IMPORT = '''Traceback (most recent call last):
  File "/home/u/train.py", line 10, in <module>
    {user}
  File "/usr/lib/python3.11/site-packages/{lib}", line 1, in <module>
    {code}
ModuleNotFoundError: No module named '{module}'
'''


def test_a_stack_module_importing_a_missing_dependency_is_package_install() -> None:
    """tables/priors.toml [[frame]] (runtime41): the statement that ran in the stack's frame is an import of a package
    outside the stack (torch.utils.tensorboard's `import tensorboard`)."""
    missing = _IMPORT.format(user="from torch.utils.tensorboard import SummaryWriter", lib="torch/utils/tensorboard/__init__.py",
                             code="import tensorboard", module="tensorboard")
    assert _top_family(missing) == "package-install"
    # one of the stack's own modules missing there is not this rule's (a submodule moved between releases)
    moved = _IMPORT.format(user="from peft import LoraConfig", lib="peft/utils/integrations.py",
                           code="from transformers.integrations.deepspeed_zero import is_zero3", module="transformers.integrations.deepspeed_zero")
    assert _top_family(moved) != "package-install"
    # the same missing package imported by other software's module is not claimed by it
    other = _IMPORT.format(user="import mylogger", lib="mylogger/__init__.py", code="import tensorboard", module="tensorboard")
    assert _top_family(other) is None


_DEAD = '''[NbClientApp] Executing finetune.ipynb
[IPKernelApp] WARNING | Kernel is running over TCP without encryption. Use IPC transport or launch with kernel manager-provisioned CurveZMQ keys
{extra}[NbClientApp] ERROR | Kernel died while waiting for execute reply.
Traceback (most recent call last):
  File "/opt/conda/lib/python3.11/site-packages/nbclient/client.py", line 1009, in async_execute_cell
    raise DeadKernelError("Kernel died") from None
nbclient.exceptions.DeadKernelError: Kernel died
'''


def test_a_dead_notebook_kernel_is_host_oom_only_where_the_log_names_the_stack() -> None:
    """nbclient's "Kernel died while waiting for execute reply" (process evidence, needs_context): the kernel banner's
    "launch" is a run word of every notebook's output, so the rule counts only the [stack] words (needs_stack)."""
    assert _top_family(_DEAD.format(extra="Loading checkpoint shards for LlamaForCausalLM (transformers)\n")) == "host-oom"
    assert _top_family(_DEAD.format(extra="")) is None

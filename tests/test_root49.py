"""root49 (review49b's risk 6): an error that only huggingface_hub's retry warning quotes is not the failure of a run that
went on past the warning.

huggingface_hub logs "'(ReadTimeoutError(...), '(Request ID: ...)')' thrown while requesting HEAD https://..." as a
WARNING before each retry (utils/_http.py) and goes on when a retry succeeds. The parser reads the error the warning
quotes as an error of the input; where the run then trained and died of something else (a bare ``Killed``, torchrun's
``exitcode: -9``, a segfault), that error was the root and the answer hub-access (medium), host-oom demoted or lost.
Now (kb/diagnose/priors.py LineEvidence.went_on_past, tables/priors.toml's retry rule ``went_on``) such an error is
follow-on noise when a line just after it shows the run went on (training progress, a death no rule names) or another
family's process evidence holds on a later line; the warning alone, or followed by a network error, is still hub-access.
"""

from __future__ import annotations

import pytest
from rules_support import answers, top

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.knowledge.registry import load_knowledge

READ_TIMEOUT = (
    "'(ReadTimeoutError(\"HTTPSConnectionPool(host='huggingface.co', port=443): Read timed out. (read timeout=10)\"), "
    "'(Request ID: 8a1c2d3e-1f2a-4b5c-9d8e-7f6a5b4c3d2e)')' thrown while requesting HEAD "
    "https://huggingface.co/meta-llama/Llama-2-7b-hf/resolve/main/tokenizer_config.json\n"
    "Retrying in 1s [Retry 1/5].\n")
MAX_RETRY = (
    "'(MaxRetryError(\"HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded with url: "
    "/Qwen/Qwen2-7B/resolve/main/config.json (Caused by ConnectTimeoutError(<urllib3.connection.HTTPSConnection object "
    "at 0x7f1c2a3b4c10>, 'Connection to huggingface.co timed out. (connect timeout=10)'))\"), '(Request ID: "
    "3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b)')' thrown while requesting HEAD "
    "https://huggingface.co/Qwen/Qwen2-7B/resolve/main/config.json\n"
    "Retrying in 1s [Retry 1/5].\n")
CONNECTION = (
    "'(ConnectionError(ProtocolError('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))), "
    "'(Request ID: 0c7d1e2f-aa11-4b22-9c33-d44e55f66a77)')' thrown while requesting GET "
    "https://huggingface.co/datasets/tatsu-lab/alpaca/resolve/main/data/train-00000-of-00001.parquet\n"
    "Retrying in 2s [Retry 2/5].\n")
LOADING = "Loading checkpoint shards: 100%|██████████| 2/2 [00:05<00:00,  2.61s/it]\n"
PROGRESS = """\
Map: 100%|██████████| 5000/5000 [00:02<00:00, 2103.55 examples/s]
{'loss': 1.8734, 'grad_norm': 0.4121, 'learning_rate': 1.98e-04, 'epoch': 0.04}
{'loss': 1.6512, 'grad_norm': 0.3877, 'learning_rate': 1.96e-04, 'epoch': 0.08}
 10%|█         | 52/500 [03:12<27:40,  3.71s/it]
"""
TRAINING = """\
[rank0]:[W reducer.cpp:1389] Warning: find_unused_parameters=True was specified in DDP constructor
{'loss': 2.0312, 'grad_norm': 0.8125, 'learning_rate': 1.99e-05, 'epoch': 0.02}
  3%|▎         | 30/1000 [02:41<1:26:55,  5.38s/it]
"""
TORCHRUN_KILLED = """\
W0612 10:22:41.123000 140234 torch/distributed/elastic/multiprocessing/api.py:890] Sending process 2212 closing signal SIGTERM
E0612 10:22:41.456000 140234 torch/distributed/elastic/multiprocessing/api.py:862] failed (exitcode: -9) local_rank: 0 (pid: 2211) of binary: /usr/bin/python3
Traceback (most recent call last):
  File "/usr/local/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", line 919, in main
    run(args)
  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", line 910, in run
    elastic_launch(
  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 138, in __call__
    return launch_agent(self._config, self._entrypoint, list(args))
  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 269, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
========================================================
train.py FAILED
--------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
--------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-06-12_10:22:41
  host      : 7c9e2f1a0b3d
  rank      : 0 (local_rank: 0)
  exitcode  : -9 (pid: 2211)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 2211
========================================================
"""


def _document(text: str) -> dict:
    return diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_knowledge()))


@pytest.mark.parametrize("retry", [READ_TIMEOUT, MAX_RETRY, CONNECTION])
def test_retried_then_trained_then_killed_is_host_oom(retry: str) -> None:
    """Was hub-access (family-evidence, medium) on the error the warning quotes; host-oom lost."""
    text = LOADING + retry + PROGRESS + "Killed\n"
    assert top(text) == ("host-oom", "family-prior")
    assert [f for f, _basis in answers(text)] == ["host-oom"]


@pytest.mark.parametrize("retry", [READ_TIMEOUT, MAX_RETRY])
def test_retried_then_torchrun_exitcode_9_is_host_oom(retry: str) -> None:
    """Was hub-access first, host-oom second (low): torchrun's ChildFailedError table with exitcode -9 / SIGKILL."""
    assert [f for f, _basis in answers(retry + TRAINING + TORCHRUN_KILLED)] == ["host-oom"]


def test_retried_then_killed_right_after_the_retry_line() -> None:
    """No progress shown: the later process evidence (a bare Killed) alone says the run went on past the warning."""
    assert [f for f, _basis in answers(READ_TIMEOUT + "Killed\n")] == ["host-oom"]


def test_retried_then_trained_then_segfault_is_not_hub_access() -> None:
    """Was hub-access (medium). A segfault names no family (the same log without the warning is silent)."""
    text = LOADING + READ_TIMEOUT + PROGRESS + "Segmentation fault (core dumped)\n"
    assert answers(text) == []
    assert answers(text.replace(READ_TIMEOUT, "")) == []


def test_the_error_passed_over_is_listed_with_its_reason() -> None:
    doc = _document(LOADING + READ_TIMEOUT + PROGRESS + "Killed\n")
    quoted = [e for e in doc["errors"] if e["type"] == "ReadTimeoutError"]
    assert len(quoted) == 1 and "went on past" in quoted[0]["noise"]
    assert doc["root_error"] is None


@pytest.mark.parametrize("text", [
    READ_TIMEOUT,  # the warning alone: the run ended there
    LOADING + READ_TIMEOUT,
    PROGRESS + READ_TIMEOUT,  # progress before the warning (a run streaming its data, SmerkyG/gptcore#2), not after
    READ_TIMEOUT + READ_TIMEOUT.replace("Retry 1/5", "Retry 2/5"),
    # the retries ran out: the library raised the network error
    READ_TIMEOUT + "Traceback (most recent call last):\n  File \"/content/train.py\", line 12, in <module>\n"
    "    tok = AutoTokenizer.from_pretrained(name)\nrequests.exceptions.ReadTimeout: (ReadTimeoutError(\"HTTPSConnectionPool"
    "(host='huggingface.co', port=443): Read timed out. (read timeout=10)\"), '(Request ID: 8a1c)')\n",
])
def test_a_retry_the_run_did_not_go_on_past_stays_hub_access(text: str) -> None:
    assert [f for f, _basis in answers(text)][:1] == ["hub-access"]
    assert all(e["noise"] is None for e in _document(text)["errors"] if e["type"])


def test_a_progress_line_does_not_pass_over_a_traceback() -> None:
    """Only an error a retry warning quotes is passed over: the same words in a traceback's last line stay the root."""
    text = (PROGRESS + "Traceback (most recent call last):\n  File \"/content/train.py\", line 12, in <module>\n"
            "    ds = load_dataset(name, streaming=True)\nrequests.exceptions.ConnectionError: (ProtocolError('Connection "
            "aborted.', ConnectionResetError(104, 'Connection reset by peer')), '(Request ID: 0c7d)')\n" + PROGRESS)
    doc = _document(text)
    assert doc["root_error"] is not None and doc["root_error"]["type"] == "requests.exceptions.ConnectionError"


CHUNKED = ("Traceback (most recent call last):\n  File \"/content/train.py\", line 88, in <module>\n    for batch in loader:\n"
           "requests.exceptions.ChunkedEncodingError: ('Connection broken: IncompleteRead(0 bytes read, 512 more expected)',"
           " IncompleteRead(0 bytes read, 512 more expected))\n")
TORCH_CAT = """\
Traceback (most recent call last):
  File "/content/train.py", line 88, in <module>
    x = torch.cat([pooled, hidden], dim=1)
RuntimeError: Tensors must have same number of dimensions: got 2 and 3
"""


@pytest.mark.parametrize("text", [READ_TIMEOUT + CHUNKED, READ_TIMEOUT + PROGRESS + CHUNKED])
def test_a_network_error_after_the_retry_stays_hub_access(text: str) -> None:
    """The run went on, then a network error ended it: the warning's own failure (review49's after_types)."""
    assert [f for f, _basis in answers(text)][:1] == ["hub-access"]


def test_a_later_error_of_another_kind_is_answered_on_its_own() -> None:
    """Was hub-access alone (the quoted ReadTimeoutError's signature match kept the RuntimeError's own prior out)."""
    assert answers(READ_TIMEOUT + TORCH_CAT) == [("shape-mismatch", "family-prior")]

"""review50: defects found in turn 49's change, each test failing before its fix (benchmarks/results/review-turn50.txt)."""

from __future__ import annotations

import pytest
from rules_support import answers
from test_root49 import CONNECTION, MAX_RETRY, PROGRESS, READ_TIMEOUT, TORCHRUN_KILLED

# A download's own progress bars (huggingface_hub's snapshot_download, transformers' shards, datasets' files): the
# download the retry warning is about, still running; not a run that went on past it
DOWNLOAD_BARS = [
    "Fetching 4 files:  25%|██▌       | 1/4 [00:31<01:33, 31.02s/it]\n",
    "Downloading shards:  50%|█████     | 1/2 [00:35<00:35, 35.20s/it]\n",
    "Downloading data files:  50%|█████     | 1/2 [01:02<01:02, 62.10s/it]\n",
]
CTRL_C = """\
Traceback (most recent call last):
  File "/content/train.py", line 12, in <module>
    path = snapshot_download("Qwen/Qwen2-7B")
  File "/usr/local/lib/python3.10/dist-packages/huggingface_hub/_snapshot_download.py", line 290, in snapshot_download
    thread_map(
  File "/usr/lib/python3.10/threading.py", line 1116, in _wait_for_tstate_lock
    if lock.acquire(block, timeout):
KeyboardInterrupt
"""


@pytest.mark.parametrize("bar", DOWNLOAD_BARS, ids=["fetching", "shards", "data-files"])
@pytest.mark.parametrize("retry", [READ_TIMEOUT, MAX_RETRY, CONNECTION], ids=["read-timeout", "max-retry", "connection"])
@pytest.mark.parametrize("end", ["", CTRL_C], ids=["stalled", "ctrl-c"])
def test_a_download_bar_after_the_retry_is_not_the_run_going_on(retry: str, bar: str, end: str) -> None:
    """root49's ``went_on`` read any tqdm bar with a count as the run going on past the warning, the download's own
    bar too: a download that stalls after a retry (the bar, then nothing or the user's Ctrl-C) was silent (hub-access
    before root49)."""
    assert [f for f, _basis in answers(retry + bar + end)][:1] == ["hub-access"]


def test_progress_past_the_download_still_goes_on() -> None:
    """The fix keeps root49's reading where the run trained or loaded past the download."""
    text = (READ_TIMEOUT + DOWNLOAD_BARS[0].replace(" 25%|██▌       | 1/4 [00:31<01:33", "100%|██████████| 4/4 [01:02<00:00")
            + PROGRESS + "Killed\n")
    assert [f for f, _basis in answers(text)] == ["host-oom"]
    assert [f for f, _basis in answers(READ_TIMEOUT + PROGRESS + TORCHRUN_KILLED)] == ["host-oom"]


# ---- kb verify's stacks folder (kb/reproduce/matrix.py ensure_stack)

def test_a_folder_kb_did_not_build_is_not_deleted(tmp_path, monkeypatch) -> None:
    """audit49 made ensure_stack delete the stack's folder whenever it held no readable kb-stack.json (a build cut
    short): under a KB_STACKS_DIR the user chose, a folder of the user's that happens to bear a stack's name (lowest,
    newest, latest) was deleted with everything in it. Before audit49 it was built over, never deleted. Now kb refuses
    it; a folder kb began (its venv's pyvenv.cfg) or an empty one is still cleared and rebuilt."""
    from test_hostile_audit49 import _ensure

    from kb.reproduce.matrix import StackError

    root = tmp_path / "mine"
    (root / "lowest").mkdir(parents=True, mode=0o700)
    root.chmod(0o700)
    (root / "lowest" / "notes.txt").write_text("the user's own file\n")
    with pytest.raises(StackError, match="not a venv kb built"):
        _ensure(tmp_path, monkeypatch, root)
    assert (root / "lowest" / "notes.txt").read_text() == "the user's own file\n"


@pytest.mark.parametrize("begun", ["pyvenv.cfg", None])
def test_a_build_cut_short_is_cleared_and_rebuilt(begun: str | None, tmp_path, monkeypatch) -> None:
    from test_hostile_audit49 import _ensure

    root = tmp_path / "stacks"
    (root / "lowest").mkdir(parents=True, mode=0o700)
    root.chmod(0o700)
    if begun:
        (root / "lowest" / begun).write_text("home = /usr/bin\n")
    assert _ensure(tmp_path, monkeypatch, root) == [str(root / "lowest")]


# ---- loguru's values under a secret-like name, each line with a log shipper's prefix (kb/diagnose/redact)

LOGURU_SECRET = "SxySnQTEaNT5xaNDQ5kyArn9"
LOGURU = ["    client.login(user, password, retries)\n", "    │            │     │         └ 3\n",
          f"    │            │     └ '{LOGURU_SECRET}'\n", "    │            └ 'alice'\n", "    └ <Client object>\n"]


def _prefixed(prefix: str) -> str:
    return "".join(prefix + line for line in LOGURU)


@pytest.mark.parametrize("text", [
    # docker's json-file driver: one record a line, each line of the traceback a record of its own
    "".join('{"log":"' + line[:-1] + '\\n","stream":"stderr","time":"2024-05-01T10:00:00.123Z"}\n' for line in LOGURU),
    _prefixed("trainer-1  | "),  # docker compose
    _prefixed("pod/trainer-0-7f9c "),  # kubectl logs --prefix
    _prefixed("0: "),  # srun -l
], ids=["docker-json", "compose", "kubectl", "srun"])
def test_a_value_loguru_prints_under_a_secret_name_with_each_lines_prefix(text: str) -> None:
    """turn 49's _marked_values says a log record's prefix shifts the markers (its test: one JSON record holding the
    whole traceback), but a marker line with any prefix was skipped as "not a marker line": the value under
    `password` was printed in every log shipper's shape that prefixes each line."""
    from kb.diagnose.redact import redact

    out = redact(text)
    assert LOGURU_SECRET not in out
    assert "'alice'" in out and "└ 3" in out  # (the values under other names stay)


def test_a_prefixed_marker_line_is_read_only_under_its_own_prefix() -> None:
    """A prefix is the one the line above shares: lines of different programs keep their values."""
    from kb.diagnose.redact import redact

    text = ("a | client.login(password)\n" "b |    └ 'notunderthename'\n")
    assert redact(text) == text


# ---- HfArgumentParser handed a notebook kernel's argv (families/api-drift.md, review49b's exclusion)

VSCODE_KERNEL_ARGV = ("['--ip=127.0.0.1', '--stdin=9008', '--control=9006', '--hb=9005', "
                      "'--Session.signature_scheme=\"hmac-sha256\"', '--Session.key=b\"4f1c2a9e-7d3b-4c2a-8e1f-9a0b7c6d\"', "
                      "'--shell=9007', '--transport=\"tcp\"', '--iopub=9009', "
                      "'--f=/home/ana/.local/share/jupyter/runtime/kernel-v2-2955uoSNA3mZD8wp.json']")


def test_a_raw_kernels_whole_argv_is_not_api_drift() -> None:
    """review49b excluded a kernel's argv only as `['-f', '...kernel....json']` or `['--f=...kernel....json']`; VS Code's
    Jupyter extension launches its raw kernels with the ports, the session's scheme and key before `--f=` (the argv
    ipykernel_launcher is handed, which parse_args_into_dataclasses() reads in a notebook): api-drift at HIGH
    confidence ("tokenizer= passed after trl renamed it..."), where no release of anything changed."""
    from test_review49b import NOTEBOOK_ARGV, top_answer

    assert top_answer(NOTEBOOK_ARGV.replace("LEFTOVER", VSCODE_KERNEL_ARGV)) is None
    with_flag = VSCODE_KERNEL_ARGV.replace("['", "['--evaluation_strategy', 'steps', '", 1)
    assert top_answer(NOTEBOOK_ARGV.replace("LEFTOVER", with_flag)) == ("family", "api-drift")

"""kb check's ``unread`` rule (kb/tidy/unread.py): a signature with no exception type whose form the parser never reads
on a line of its own, and the signatures it found (hang's faulthandler timeout, host-oom's exit status 137 and shell
job report, KB0036's torchrun lines), restated so that they fire on the real outputs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.priors import basis
from kb.knowledge.model import KNOWN_MESSAGE_MIN, Signature
from kb.knowledge.paths import CHECKOUT_ROOT
from kb.knowledge.registry import load_knowledge
from kb.tidy import Roots, check
from kb.tidy.unread import unread_forms

REPO = Path(CHECKOUT_ROOT)
KNOWN = ("CUDA out of memory", "failed (exitcode: -9) local_rank")  # as Knowledge.literals() gives them


def _signature(message: str, exception: tuple[str, ...] = ()) -> Signature:
    raw = {"name": "s", "exception": list(exception), "message": message, "requires_frame": False,
           "requires_type": False, "compare": [], "specific": False}
    return Signature(raw)


@pytest.mark.parametrize(("message", "unread"), [
    (r"Timeout \((?P<after>\d+:\d\d:\d\d)\)!", ["Timeout ("]),  # the literal is 9 characters
    (r"line \d+: {1,4}(?P<pid>\d+) Killed\b", [" Killed"]),
    (r"CUDA out of memory\. Tried to allocate", []),  # a run holds a known literal
    (r"(?:returned non-zero exit status|exit code) 137\b", ["returned non-zero exit status 137", "exit code 137"]),
    # one alternative holds a known literal, the other does not: only the other is reported
    (r"failed \(exitcode: -9\) local_rank: \d+|exitcode\s{0,4}: -9 \(pid: \d+\)", [": -9 (pid: "]),
    # an optional part ends a run: "CUDA out of " + an optional "memory" does not hold the literal for sure
    (r"CUDA out of (?:memory)?\. Tried", ["CUDA out of "]),
    # a repeat of one or more holds its content once, between breaks
    (r"(?:CUDA out of memory)+", []),
])
def test_the_forms_no_known_literal_marks(message: str, unread: list[str]) -> None:
    assert unread_forms(_signature(message), KNOWN) == unread


def test_a_signature_with_exception_types_is_written_for_typed_lines() -> None:
    assert unread_forms(_signature(r"Timeout \(\d+:\d\d:\d\d\)!", ("RuntimeError",)), KNOWN) == []


def test_a_message_it_cannot_take_apart_is_not_reported() -> None:
    assert unread_forms(_signature(r"(?i)timeout"), KNOWN) == []  # case-insensitive: no literal is certain
    many = "".join(f"(?:a{i}|b{i})" for i in range(9))  # 2**9 ways through it, more than MAX_FORMS
    assert unread_forms(_signature(many), KNOWN) == []


def test_the_minimum_is_the_parsers() -> None:
    known = load_knowledge().literals()
    assert known and min(map(len, known)) >= KNOWN_MESSAGE_MIN


def test_the_knowledge_has_no_unread_signature() -> None:
    knowledge = load_knowledge()
    known = knowledge.literals()
    found = [(e.key, s.name, unread_forms(s, known)) for e in (*knowledge.cases, *knowledge.families)
             for s in e.signatures if unread_forms(s, known)]
    assert found == []


def test_kb_check_reports_an_unread_signature(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "families").mkdir()
    shutil.copy(REPO / "families" / "exception-types.toml", tmp_path / "families")
    text = (REPO / "families" / "hang.md").read_text(encoding="utf-8")
    text = text.replace("[fix]\n", "[[signatures]]\nname = \"short-typeless\"\nunexercised = \"a test's\"\n"
                                   "exception = []\nmessage = 'Timeout \\((?P<after>\\d+:\\d\\d:\\d\\d)\\)!'\n\n[fix]\n", 1)
    (tmp_path / "families" / "hang.md").write_text(text, encoding="utf-8")
    problems = [p for p in check(Roots(tmp_path / "cases", tmp_path / "families", None, None, signatures=False)).problems
                if p.rule == "unread"]
    assert [(Path(p.path).name, p.message.split("'")[1]) for p in problems] == [("hang.md", "short-typeless")]
    assert "'Timeout ('" in problems[0].message


def _top(text: str) -> tuple[str, str]:
    answers = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers
    assert answers, text
    entry = answers[0].match.entry
    return (entry.slug if answers[0].kind == "case" else entry.key), basis(answers[0])


def test_the_faulthandler_timeout_of_a_stuck_rendezvous_is_a_hang() -> None:
    # tests/fixtures/diagnose/runtime-38/hang_faulthandler.txt: torch 2.13's rendezvous, dumped after 5 s
    text = (REPO / "tests/fixtures/diagnose/runtime-38/hang_faulthandler.txt").read_text(encoding="utf-8")
    assert _top(text) == ("hang", "family-prior")
    assert _top("Timeout (0:10:00.500000)!\n") == ("hang", "family-prior")  # a timeout of a fraction of a second


def test_the_shell_job_report_of_a_killed_script_is_host_oom() -> None:
    assert _top("run.sh: line 39: 2810536 Killed                  python train.py --model x\n") == (
        "host-oom", "family-prior")
    assert _top("/home/u/ft/train.sh: line 5:  1234 Killed  torchrun --nproc_per_node 2 sft.py\n")[0] == "host-oom"


def test_exit_status_137_reads_with_and_without_a_type() -> None:
    assert _top("subprocess.CalledProcessError: Command '['python', 'train.py']' returned non-zero exit status 137.\n"
                ) == ("host-oom", "family-evidence")
    assert _top("Process finished with exit code 137\n") == ("host-oom", "family-evidence")


def test_torchrun_worker_killed_while_loading_in_each_form() -> None:
    loading = "Loading checkpoint shards:  50%|#####     | 1/2 [00:31<00:31, 31.2s/it]\n"
    agent = "failed (exitcode: -9) local_rank: 0 (pid: 564788) of binary: /usr/bin/python3\n"
    table = ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
             "============================================================\ntrain.py FAILED\n"
             "Root Cause (first observed failure):\n[0]:\n  rank      : 0 (local_rank: 0)\n"
             "  exitcode  : -9 (pid: 2134572)\n  error_file: <N/A>\n")
    assert _top(loading + agent)[0] == "model-load-exceeds-host-ram"
    assert _top(loading + table)[0] == "model-load-exceeds-host-ram"
    assert _top(table) == ("host-oom", "family-evidence")  # no loading line: the family's table signature

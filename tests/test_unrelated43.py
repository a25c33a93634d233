"""Reports that are not fine-tuning stack failures stay unclaimed (issue #24: a wrong answer costs more than a silent
one), the turn-43 batch. corpus/reports-gh-unrelated-43.jsonl holds 108 real reports WITH error output gathered by broad
queries in software outside the stack (jax, MLX, onnxruntime, vLLM, Ray Tune, TensorFlow, Keras, pip builds of other
projects, Kubernetes, flax, llama-cpp-python apps, mmcv, Triton server, Paddle, TensorRT-LLM, docker's GPU runtime,
OpenCV): all out-of-scope; its first score claimed none (benchmarks/results/corpus-turn43-unrelated43-first-score.txt).

Two mechanisms, for the OOM killer's evidence that other programs print too (gh-unrelated-38's two claims left):

- a process rule's ``excludes_before`` (tables/priors.toml): the record the line belongs to names what it is. kubelet
  writes a container's state with its reason above its exit code; "Reason: Error" over "Exit Code: 137" is a SIGKILL
  that kubelet does not report as the OOM killer's ("Reason: OOMKilled").
- [other_code] ``message`` read on the line as printed (ParsedError.lead: the text the parser found before a typeless
  message on its line): the kernel's OOM record names the process ("java invoked oom-killer"), and a process that is
  never Python (a JVM, a database, a browser, a container runtime) is not a fine-tuning run's.
"""

from __future__ import annotations

from pathlib import Path

from kb.diagnose.stream import CHUNK_LINES
from unrelated_support import check_out_of_scope, claimed_only_known, records, top

REPO = Path(__file__).resolve().parent.parent
BATCH = REPO / "corpus" / "reports-gh-unrelated-43.jsonl"
BATCH_38 = REPO / "corpus" / "reports-gh-unrelated-38.jsonl"


def _error(rid: str, batch: Path = BATCH) -> str:
    return next(r["error"] for r in records(batch) if r["id"] == rid)


def test_batch_is_out_of_scope_with_error_output_and_its_first_score_kept() -> None:
    rows = records(BATCH)
    check_out_of_scope(rows, 108)
    assert len({r["id"] for r in rows}) == 108
    assert all(r["first_score"]["answer"] is None for r in rows)  # the first score claimed none, never rewritten


def test_batch_unclaimed() -> None:
    assert claimed_only_known(records(BATCH), {}) == {}


# --- excludes_before: kubelet's reason above a container's exit code -------------------------------------------

KUBECTL = "gh:kubernetes/kubernetes#122256"


def test_kubectl_exit_137_with_reason_error_is_no_oom() -> None:
    """kubernetes/kubernetes#122256 (gh-unrelated-38): a pod's "Last State: Terminated / Reason: Error / Exit Code:
    137", then containerd's records; claimed host-oom at first score by the exit-code-137 rule."""
    text = _error(KUBECTL, BATCH_38)
    assert "Reason: Error" in text
    assert top(text) is None


def test_kubectl_exit_137_with_reason_oomkilled_stays_host_oom() -> None:
    text = _error(KUBECTL, BATCH_38).replace("Reason: Error", "Reason: OOMKilled")
    assert top(text) == "family:host-oom"


def test_exit_137_without_a_reason_above_stays_host_oom() -> None:
    assert top("Training started\nstep 10 loss 2.31\nProcess finished with exit code 137\n") == "family:host-oom"


def test_reason_line_read_across_a_chunk_boundary() -> None:
    """The reason is the last line of one chunk of the stream, the exit code the first of the next."""
    state = "    Last State: Terminated\n      Reason: Error\n"
    pad = "".join(f"log line {i}\n" for i in range(CHUNK_LINES - 2))
    text = pad + state + "      Exit Code: 137\n"
    assert text.count("\n") > CHUNK_LINES
    assert top(text) is None
    assert top(text.replace("Reason: Error", "Reason: OOMKilled")) == "family:host-oom"


# --- [other_code] message on the line as printed: the OOM killer's record names the process -----------------------

JAVA = "gh:kubernetes/kubernetes#56891"


def test_kernel_oom_record_of_a_java_process_is_not_a_run() -> None:
    """kubernetes/kubernetes#56891 (gh-unrelated-38): "[date] java invoked oom-killer: gfp_mask=0xd0, ..." and the
    kernel's call trace; claimed host-oom at first score by the family's signature."""
    text = _error(JAVA, BATCH_38)
    assert text.splitlines()[0].endswith("java invoked oom-killer: gfp_mask=0xd0, order=0, oom_score_adj=-998")
    assert top(text) is None


def test_kernel_oom_record_of_a_python_process_stays_host_oom() -> None:
    text = _error(JAVA, BATCH_38).replace("] java invoked", "] python3 invoked", 1)
    assert top(text) == "family:host-oom"


def test_killed_process_names_the_program() -> None:
    line = "[ 1388.262774] Out of memory: Killed process 3178 ({name}) total-vm:8543420kB, anon-rss:7322012kB\n"
    assert top(line.format(name="python")) == "family:host-oom"
    assert top(line.format(name="java")) is None
    assert top(line.format(name="mysqld")) is None


def test_lead_is_bounded_and_keeps_the_end_next_to_the_message() -> None:
    """3,000 characters of log before the kernel's record on one line: the lead keeps its end (the process name)."""
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.diagnose.parser import LEAD_CHARS
    from kb.knowledge.registry import load_knowledge

    line = "x" * 3_000 + " [Wed Dec  6 23:54:11 2017] java invoked oom-killer: gfp_mask=0xd0, order=0\n"
    assert top(line) is None
    assert top(line.replace(" java ", " python3 ")) == "family:host-oom"
    errors = diagnose_lines([line.replace(" java ", " python3 ")], load_knowledge()).errors
    assert errors and all(len(e.lead) <= LEAD_CHARS for e in errors)

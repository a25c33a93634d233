"""Container runtimes' partial log records (CRI): a line longer than the runtime's buffer is written as records
"<time> stderr P <head>" that the next record of the same stream continues, up to its "F" record. kb joins them
(kb/diagnose/textclean.py join_partial_records) so the error line they split parses whole.
"""

from __future__ import annotations

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.stream import chunk_lines
from kb.diagnose.textclean import PARTIAL_WAIT, join_partial_records
from kb.knowledge.registry import load_knowledge

KNOWLEDGE = load_knowledge()

OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 224.00 MiB. GPU 0 has a total capacity of 14.74 GiB "
       "of which 120.12 MiB is free. Including non-PyTorch memory, this process has 14.62 GiB memory in use.")
CRI_LOG = [
    "2026-11-27T10:38:13.000000000Z stderr F Traceback (most recent call last):",
    '2026-11-27T10:38:13.001000000Z stderr F   File "/app/train.py", line 40, in <module>',
    "2026-11-27T10:38:13.002000000Z stderr F     trainer.train()",
    f"2026-11-27T10:38:13.003000000Z stderr P {OOM[:70]}",
    "2026-11-27T10:38:13.003500000Z stdout F {'loss': 1.234, 'epoch': 0.1}",
    f"2026-11-27T10:38:13.004000000Z stderr P {OOM[70:150]}",
    f"2026-11-27T10:38:13.005000000Z stderr F {OOM[150:]}",
]


def test_partial_records_are_joined_to_the_record_that_ends_them() -> None:
    [(_text, lines)] = list(join_partial_records(chunk_lines(CRI_LOG)))
    assert lines[3] == f"2026-11-27T10:38:13.003000000Z stderr F {OOM}"
    assert lines[4].endswith("{'loss': 1.234, 'epoch': 0.1}") and len(lines) == 5


def test_a_split_error_line_parses_whole() -> None:
    # (the other stream's record left out: a line after an exception line is read as its message's, as ever)
    diagnosis = diagnose_lines([line + "\n" for line in CRI_LOG if " stdout " not in line], KNOWLEDGE)
    [oom] = [e for e in diagnosis.errors if e.type]
    assert oom.short_type == "OutOfMemoryError" and oom.message == OOM.split(": ", 1)[1]
    assert diagnosis.answers[0].match.entry.key == "cuda-oom"
    assert any("partial log records" in note for note in diagnosis.notes)


def test_a_partial_record_at_a_chunks_end_waits_for_the_next() -> None:
    whole = [lines for _text, lines in join_partial_records(chunk_lines(CRI_LOG))]
    for size in (1, 2, 4, 5):
        cut = [line for _text, lines in join_partial_records(chunk_lines(CRI_LOG, size)) for line in lines]
        assert cut == whole[0], size


def test_a_partial_record_whose_rest_never_comes_is_read_as_it_is() -> None:
    lines = ["2026-11-27T10:38:13Z stderr P ValueError: the head"] + [
        f"2026-11-27T10:38:14Z stdout F step {i}" for i in range(PARTIAL_WAIT + 1)] + [
        "2026-11-27T10:38:15Z stderr F Traceback (most recent call last):"]
    out = [line for _text, lines in join_partial_records(chunk_lines(lines, 16)) for line in lines]
    assert out == lines


def test_a_partial_run_whose_end_never_comes_keeps_every_piece() -> None:
    """(review41) Two partial records of a stream, then no "F" for them within PARTIAL_WAIT records: the second record's
    text was dropped (it had been joined to the first, whose line was then read as the first record alone)."""
    lines = ["2026-11-27T10:38:13Z stderr P ValueError: the head", "2026-11-27T10:38:13Z stderr P  and the tail"] + [
        f"2026-11-27T10:38:14Z stdout F step {i}" for i in range(PARTIAL_WAIT + 1)]
    for size in (16, 4096):
        out = [line for _text, lines in join_partial_records(chunk_lines(lines, size)) for line in lines]
        assert out == ["2026-11-27T10:38:13Z stderr P ValueError: the head and the tail", *lines[2:]], size


def test_other_input_is_handed_on_as_it_is() -> None:
    chunks = list(chunk_lines(["ValueError: x stderr P y", "2026-11-27T10:38:13Z stderr F z"]))
    assert list(join_partial_records(iter(chunks))) == chunks

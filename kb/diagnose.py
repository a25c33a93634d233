"""`kb diagnose`: from error text to ranked cases, with evidence and a filled-in fix."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from kb.case import Case
from kb.inputs import LogReader, UnusableInput
from kb.matcher import Match, match, one_line
from kb.redact import redact
from kb.tracebacks import ParsedError, parse

MAX_ERRORS_KEPT = 500


@dataclass
class Diagnosis:
    matches: list[Match]
    errors_seen: int
    root_error: ParsedError | None
    notes: list[str] = field(default_factory=list)


def diagnose_lines(lines: Iterable[str], cases: Iterable[Case]) -> Diagnosis:
    cases = list(cases)
    kept: list[ParsedError] = []
    seen = 0
    for error in parse(lines):
        seen += 1
        if error.type and len(kept) < MAX_ERRORS_KEPT:
            kept.append(error)
    root = next((e for e in kept if e.in_traceback and not e.chained), kept[0] if kept else None)
    return Diagnosis(matches=match(kept, cases), errors_seen=seen, root_error=root)


def diagnose_reader(reader: LogReader, cases: Iterable[Case]) -> Diagnosis:
    """Diagnose a stream; raises UnusableInput for empty, binary or unreadable input."""
    diagnosis = diagnose_lines(reader.lines(), cases)
    stats = reader.stats
    if stats.bytes_read == 0:
        raise UnusableInput(f"{reader.name} is empty: paste the error output (the traceback and the lines around it)")
    if not diagnosis.matches and diagnosis.errors_seen == 0 and stats.undecodable_lines:
        raise UnusableInput(
            f"{reader.name} is not UTF-8 text ({stats.undecodable_lines} of {stats.lines} lines could not be decoded)"
        )
    if stats.truncated_lines:
        diagnosis.notes.append(f"{stats.truncated_lines} over-long line(s) were read only in part")
    return diagnosis


def user_frame(error: ParsedError) -> str | None:
    """The innermost frame that belongs to the user's code, not a library."""
    for frame in reversed(error.frames):
        if not frame.is_library:
            return redact(f'{frame.file}:{frame.line} in {frame.function}' + (f": {frame.code}" if frame.code else ""))
    return None


def match_document(m: Match) -> dict[str, Any]:
    return {
        "id": m.case.id,
        "slug": m.case.slug,
        "title": m.case.title,
        "score": m.score,
        "signature": m.signature.name,
        "error": {
            "type": m.error.type,
            "message": redact(one_line(m.error.message, 1000)),
            "line": m.error.line_no,
            "rank": m.error.rank,
        },
        "evidence": [redact(e) for e in m.evidence],
        "captures": {k: redact(v) for k, v in m.captures.items()},
        "fix": redact(m.fix_text()),
        "user_frame": user_frame(m.error),
        "more": f"kb show {m.case.id}",
    }


def diagnosis_document(d: Diagnosis) -> dict[str, Any]:
    return {
        "matches": [match_document(m) for m in d.matches],
        "errors_seen": d.errors_seen,
        "root_error": (
            {"type": d.root_error.type, "message": redact(one_line(d.root_error.message, 1000)), "line": d.root_error.line_no}
            if d.root_error
            else None
        ),
        "notes": d.notes,
    }

"""Score parsed errors against every case's signatures and explain each match."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from kb.case import Case, Signature
from kb.tracebacks import ParsedError

WEIGHT_MESSAGE = 0.6
WEIGHT_TYPE = 0.25
WEIGHT_FRAME = 0.15


@dataclass
class Match:
    case: Case
    signature: Signature
    error: ParsedError
    score: float
    captures: dict[str, str]
    evidence: list[str] = field(default_factory=list)

    def fix_text(self) -> str:
        return fill_template(self.case.fix_template, self.captures)


class _Default(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill_template(template: str, captures: dict[str, str]) -> str:
    """Fill ``{name}`` placeholders with captures; unknown ones stay visible."""
    try:
        return template.format_map(_Default(captures))
    except (ValueError, IndexError):
        return template


def score_error(case: Case, signature: Signature, error: ParsedError) -> Match | None:
    m = signature.message.search(error.message) if error.message else None
    if m is None:
        return None
    captures = {k: v for k, v in m.groupdict().items() if v is not None}
    evidence = [f"line {error.line_no}: message matches signature '{signature.name}' (/{signature.message.pattern}/)"]
    score = WEIGHT_MESSAGE
    if signature.accepts_type(error.type):
        score += WEIGHT_TYPE
        evidence.append(f"exception type {error.type} is one the case raises")
    else:
        evidence.append(f"exception type {error.type} differs from {', '.join(signature.exceptions)}")
    if signature.frames and error.frames:
        hits = [
            (pattern, frame)
            for pattern in signature.frames
            for frame in error.frames
            if pattern.search(frame.file) or pattern.search(frame.function) or pattern.search(frame.code)
        ]
        if hits:
            pattern, frame = hits[0]
            score += WEIGHT_FRAME
            evidence.append(f"frame {frame.file}:{frame.line} in {frame.function} matches /{pattern.pattern}/")
        elif signature.requires_frame:
            return None
    elif signature.requires_frame:
        return None
    if captures:
        evidence.append("captured " + ", ".join(f"{k}={v}" for k, v in captures.items()))
    return Match(case, signature, error, round(score, 3), captures, evidence)


def match(errors: Iterable[ParsedError], cases: Iterable[Case]) -> list[Match]:
    """Best match per case, best first."""
    cases = [c for c in cases if c.signatures]
    best: dict[str, Match] = {}
    for error in errors:
        for case in cases:
            for signature in case.signatures:
                found = score_error(case, signature, error)
                if found and (case.id not in best or found.score > best[case.id].score):
                    best[case.id] = found
    return sorted(best.values(), key=lambda m: (-m.score, m.case.id))


_SPACES = re.compile(r"\s+")


def one_line(text: str, limit: int = 300) -> str:
    text = _SPACES.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"

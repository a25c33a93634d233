"""The literal text every match of a regex must contain: a cheap pre-filter before the regex runs,
and the words that make the diagnose parser look at a line (kb/diagnose/stream.py)."""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MIN_LITERAL = 4


def required_literal(pattern: str) -> str:
    """The longest literal run every match of ``pattern`` must contain ('' if none is certain).

    Walks the top level of the parsed pattern (descending into plain groups); any
    branch, repeat or class ends a run. Case-insensitive patterns get ''.
    """
    from re import _constants as C, _parser  # noqa: N812 - private but stable since 3.11

    try:
        parsed = _parser.parse(pattern)
    except re.error:
        return ""
    if parsed.state.flags & (re.IGNORECASE | re.VERBOSE):
        return ""
    best, run = "", []

    def walk(items: Any) -> None:
        nonlocal best, run
        for op, arg in items:
            if op is C.LITERAL:
                run.append(chr(arg))
                continue
            if op is C.SUBPATTERN and not (arg[1] or arg[2]):  # a group without local flags
                walk(arg[3])
                continue
            if op is C.AT:  # anchors consume nothing
                continue
            text = "".join(run)
            if len(text) > len(best):
                best = text
            run = []

    walk(parsed)
    text = "".join(run)
    if len(text) > len(best):
        best = text
    return best if len(best) >= MIN_LITERAL else ""

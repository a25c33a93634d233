"""Normalise one line of pasted log text: colours, rank prefixes, timestamps."""

from __future__ import annotations

import re

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[@-Z\\-_]")
# torchrun / accelerate prefixes: "[rank3]:", "[default0]:", "[rank0]:[W1121 ...]"
RANK_PREFIX = re.compile(r"^\s*\[(?:rank|default)(?P<rank>\d+)\]:\s?")
# "2025-04-21 10:00:01,123 - INFO - ", "[2025-04-21 10:00:01]", "2025-04-21T10:00:01.123Z "
TIMESTAMP = re.compile(
    r"^\s*\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?"
    r"(?:\s*[-|]?\s*(?:\w+\s*[-|:]\s*)?(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s*[-|:]?)?\s?"
)


def clean_line(raw: str) -> tuple[str, str | None]:
    """Return (line without decoration, rank or None)."""
    line = ANSI.sub("", raw).rstrip("\r\n")
    if "\r" in line:  # progress bars redraw with carriage returns: keep the last state
        line = line.rsplit("\r", 1)[-1]
    rank = None
    m = RANK_PREFIX.match(line)
    if m:
        rank = m["rank"]
        line = line[m.end():]
    line = TIMESTAMP.sub("", line, count=1)
    return line.replace("\x00", ""), rank

"""A signature's regex as the words a person sees, with ``…`` where the error's own values go.

Family pages list every wording kb recognises; a regex such as
``CUDA out of memory\\. Tried to allocate (?P<requested>[\\d.]+ [KMG]iB)`` reads as
``CUDA out of memory. Tried to allocate …`` (with ``names=True``: ``{requested}`` in its place).
This is for display, and so that the site's search finds the words; the regex itself stays on the
page beside it. Placeholder names are left out by default: in a heading they would become search
terms that no error contains. Alternatives show their first branch; lookaheads and anchors are dropped.
"""

from __future__ import annotations

import re

_CLASS_ESCAPES = {"d", "D", "w", "W", "s", "S", "b", "B", "A", "Z", "z"}
_QUANTIFIER = re.compile(r"(?:[?*+]|\{\d*,?\d*\})\??")
_ANY = "…"


def readable(regex: str, names: bool = False) -> str:
    """``regex`` as readable text (best effort; never raises); ``names`` keeps ``{capture}`` names."""
    text, _ = _sequence(regex, 0)
    if not names:
        text = re.sub(r"\{\w+\}", _ANY, text)
    text = re.sub(rf"{_ANY}(?:\s*{_ANY})+", _ANY, text)  # runs of "anything" read as one
    return re.sub(r"[ \t]+", " ", text).strip()


def _sequence(rx: str, i: int) -> tuple[str, int]:
    """Read from ``i`` to the end of the current group (``)``) and return the first alternative."""
    branches, out = [], []
    while i < len(rx) and rx[i] != ")":
        ch = rx[i]
        if ch == "|":
            branches.append("".join(out))
            out, i = [], i + 1
            continue
        piece, i = _atom(rx, i)
        m = _QUANTIFIER.match(rx, i)
        if m:  # a repeated or optional piece reads once
            i = m.end()
        out.append(piece)
    branches.append("".join(out))
    return branches[0], i


def _atom(rx: str, i: int) -> tuple[str, int]:
    ch = rx[i]
    if ch == "\\" and i + 1 < len(rx):
        nxt = rx[i + 1]
        if nxt == "x" and re.match(r"[0-9a-fA-F]{2}", rx[i + 2:i + 4]):
            return chr(int(rx[i + 2:i + 4], 16)), i + 4
        if nxt == "n":
            return " ", i + 2
        if nxt in _CLASS_ESCAPES:
            return (" " if nxt == "s" else "" if nxt in "bBAZz" else _ANY), i + 2
        return nxt, i + 2
    if ch == "[":
        j = i + 1
        if j < len(rx) and rx[j] == "^":
            j += 1
        if j < len(rx) and rx[j] == "]":
            j += 1
        while j < len(rx) and rx[j] != "]":
            j += 2 if rx[j] == "\\" else 1
        return _ANY, j + 1
    if ch == "(":
        named = re.match(r"\(\?P<(\w+)>", rx[i:])
        if rx.startswith(("(?=", "(?!", "(?<=", "(?<!"), i) or re.match(r"\(\?[aiLmsux]+\)", rx[i:]):
            flags = re.match(r"\(\?[aiLmsux]+\)", rx[i:])
            if flags:
                return "", i + flags.end()
            _, j = _sequence(rx, i + (4 if rx[i + 2] == "<" else 3))
            return "", j + 1
        start = i + (named.end() if named else 3 if rx.startswith("(?:", i) else 1)
        inner, j = _sequence(rx, start)
        return (f"{{{named[1]}}}" if named else inner), j + 1
    if ch == ".":
        return _ANY, i + 1
    if ch in "^$":
        return "", i + 1
    return ch, i + 1

"""Views of a text that redaction searches: escapes decoded, line wraps joined; each maps its
positions back to the original text, where the secret is then masked.

A token after a JSON escape (``\\nhf_...``) or a URL escape (``sig%3D...``) has no word boundary
before it in the original, and a token cut by a terminal's line width is two pieces no rule
recognises; in the views the escape is the character it stands for and the wrap is gone. Building a
view is linear in the text (one regex pass, one list of segments); mapping a position is a binary search.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    import re

_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\", "/": "/", "b": "\b", "f": "\f"}
_ESCAPE: list[re.Pattern[str]] = []  # compiled on first use, not at import (diagnose's start-up)
WRAP_MIN_LINE = 40  # a line this long or longer, ending inside a token, may have been wrapped
TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~%")


def bisect_right(a: list[int], x: int) -> int:
    """bisect.bisect_right, imported on first use: only a secret's span needs it (bisect's import is ~0.25 ms of
    `kb diagnose`'s start-up). The first call puts bisect's own function in this module's place."""
    import bisect

    globals()["bisect_right"] = bisect.bisect_right
    return bisect.bisect_right(a, x)


class View:
    """``text`` built from ``parent``'s text by segments: a copied run (one parent character per character)
    or one character standing for a longer piece of the parent (an escape)."""

    __slots__ = ("text", "parent", "_starts", "_parent_starts", "_parent_lens", "joins")

    def __init__(self, text: str, parent: View | None, starts: list[int], parent_starts: list[int],
                 parent_lens: list[int], joins: tuple[int, ...] = ()) -> None:
        self.text, self.parent = text, parent
        self._starts, self._parent_starts, self._parent_lens = starts, parent_starts, parent_lens
        self.joins = joins  # positions in ``text`` where a line break was removed (joined views)

    def _start(self, i: int) -> int:
        k = bisect_right(self._starts, i) - 1
        if k < 0:
            return i
        return self._parent_starts[k] + (i - self._starts[k] if self._parent_lens[k] == 0 else 0)

    def _end(self, i: int) -> int:
        """Where character ``i - 1`` ends in the parent."""
        if i <= 0:
            return 0
        k = bisect_right(self._starts, i - 1) - 1
        if k < 0:
            return i
        if self._parent_lens[k] == 0:
            return self._parent_starts[k] + (i - self._starts[k])
        return self._parent_starts[k] + self._parent_lens[k]

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """``text[start:end]``'s span in the original text."""
        view: View | None = self
        while view is not None:
            start, end = view._start(start), view._end(end)
            view = view.parent
        return start, end


def identity(text: str) -> View:
    return View(text, None, [], [], [])


def _unescape(piece: str) -> str:
    if piece[0] == "%":
        return chr(int(piece[1:], 16))
    if piece[1] in "ux":
        return chr(int(piece[2:], 16))
    return _SIMPLE[piece[1]]


def decoded(base: View) -> View | None:
    """``base`` with JSON/Python string escapes and URL escapes decoded once; None when it has none."""
    text = base.text
    if "\\" not in text and "%" not in text:
        return None
    if not _ESCAPE:
        from kb.knowledge.precompiled import pattern

        _ESCAPE.append(pattern(r"""\\(?:u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[ntr"'\\/bf])|%[0-9A-Fa-f]{2}"""))
    pieces: list[str] = []
    starts: list[int] = []
    parent_starts: list[int] = []
    parent_lens: list[int] = []
    v = r = 0
    for m in _ESCAPE[0].finditer(text):
        a, b = m.span()
        if a > r:
            starts.append(v), parent_starts.append(r), parent_lens.append(0), pieces.append(text[r:a])
            v += a - r
        starts.append(v), parent_starts.append(a), parent_lens.append(b - a), pieces.append(_unescape(m.group()))
        v += 1
        r = b
    if not pieces:
        return None
    if r < len(text):
        starts.append(v), parent_starts.append(r), parent_lens.append(0), pieces.append(text[r:])
    return View("".join(pieces), base, starts, parent_starts, parent_lens)


def joined(base: View) -> View | None:
    """``base`` with the line breaks that may be wraps removed: a break after a line of WRAP_MIN_LINE
    characters or more that ends in a token character, before a line that starts with one. None when
    there is no such break."""
    text = base.text
    cuts: list[tuple[int, int]] = []  # (start, end) of each removed break in ``text``
    line_start = 0
    i = text.find("\n")
    while i != -1:
        brk = i - 1 if i > 0 and text[i - 1] == "\r" else i
        if (brk - line_start >= WRAP_MIN_LINE and brk > 0 and text[brk - 1] in TOKEN_CHARS
                and i + 1 < len(text) and text[i + 1] in TOKEN_CHARS):
            cuts.append((brk, i + 1))
        line_start = i + 1
        i = text.find("\n", line_start)
    if not cuts:
        return None
    pieces: list[str] = []
    starts: list[int] = []
    parent_starts: list[int] = []
    parent_lens: list[int] = []
    joins: list[int] = []
    v = r = 0
    for a, b in cuts:
        starts.append(v), parent_starts.append(r), parent_lens.append(0), pieces.append(text[r:a])
        v += a - r
        joins.append(v)
        r = b
    starts.append(v), parent_starts.append(r), parent_lens.append(0), pieces.append(text[r:])
    return View("".join(pieces), base, starts, parent_starts, parent_lens, tuple(joins))

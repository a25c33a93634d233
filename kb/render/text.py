"""Text helpers for rendering at a given width, without textwrap (diagnose's start-up pays for every import).

Line breaks an author wrote are kept; only a line longer than the width is wrapped, at spaces, with its
continuation indented under the line's text (under the text of a list item: "1. ", "- "). Code is never
wrapped: a wrapped line of code does not paste. A line is taken for code when it is indented four columns or
more beyond the prose around it, as the knowledge files write code inside a fix.
"""

from __future__ import annotations

_LIST_STARTS = ("- ", "* ", "• ", "> ")


def plain(text: str, code: str) -> str:
    """The styler that styles nothing (files, pipes, NO_COLOR)."""
    return text


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _hanging(line: str) -> int:
    """The column a wrapped continuation of ``line`` starts at: under its text, past a list marker."""
    indent = _indent_of(line)
    rest = line[indent:]
    if rest.startswith(_LIST_STARTS):
        return indent + 2
    digits = len(rest) - len(rest.lstrip("0123456789"))
    if 0 < digits <= 2 and rest[digits:digits + 2] in (". ", ") "):
        return indent + digits + 2
    return indent


def wrap_line(line: str, width: int) -> list[str]:
    """``line`` cut at spaces into lines of at most ``width`` columns (a single longer word stays whole)."""
    if len(line) <= width or width < 20:
        return [line]
    hang = " " * min(_hanging(line), width // 2)
    out: list[str] = []
    current = line
    while len(current) > width:
        cut = current.rfind(" ", len(hang) + 1, width + 1)
        if cut <= len(hang) or not current[:cut].strip():
            cut = current.find(" ", width)
            if cut == -1:
                break
        out.append(current[:cut].rstrip())
        current = hang + current[cut:].lstrip(" ")
    out.append(current)
    return out


def wrap_block(text: str, width: int, prefix: str = "") -> list[str]:
    """The lines of ``text`` (a fix, a summary), each prefixed with ``prefix`` and wrapped to ``width``.

    Lines indented four or more columns beyond the prose line before them (a list item's marker, not its
    text, counts) are code and stay whole."""
    out: list[str] = []
    prose_indent = 0
    for raw in reflow(text.strip("\n").splitlines()):
        line = raw.rstrip()
        if not line.strip():
            out.append("")
            continue
        indent = _indent_of(line)
        if indent >= prose_indent + 4:  # code under prose: never wrapped
            out.append(prefix + line)
            continue
        prose_indent = indent
        out.extend(prefix + piece for piece in wrap_line(line, max(width - len(prefix), 20)))
    return out


HARD_WRAPPED = 85  # a prose line at least this long was wrapped by its author, not ended


def reflow(lines: list[str]) -> list[str]:
    """Join prose lines that their author wrapped (at ~100-120 columns) back into one line, so that
    they wrap again at the reader's width instead of leaving ragged halves. A line is joined to the
    one before when that one is long prose (``HARD_WRAPPED``) and this one continues it: the same
    text column, not a list item, not code, not blank. Short lines end where their author ended them.
    """
    out: list[str] = []
    for line in lines:
        if out and line.strip() and len(out[-1].rstrip()) >= HARD_WRAPPED:
            before = out[-1]
            indent = _indent_of(line)
            starts_item = line.lstrip(" ").startswith(_LIST_STARTS) or _hanging(line) != indent
            if not starts_item and indent == _hanging(before) and indent < _indent_of(before) + 4:
                out[-1] = before.rstrip() + " " + line.strip()
                continue
        out.append(line)
    return out


def physical_lines(lines: list[str], width: int) -> int:
    """How many terminal rows ``lines`` take at ``width`` columns (a longer line takes more than one)."""
    return sum(max(1, -(-len(line) // width)) for line in lines)


def one_line(text: str, width: int) -> str:
    """``text`` on one line of at most ``width`` columns (its indentation kept), cut with "…"."""
    text = text[: len(text) - len(text.lstrip(" "))] + " ".join(text.split())
    return text if len(text) <= width else text[: max(width - 1, 1)].rstrip() + "…"

"""What kb quotes of an error, redacted with the input lines it came from (issue 26, S4).

The parser reads each line on its own: it takes a launcher's label off (srun -l's ``0: ``, pdsh's host, a syslog
header, GitHub Actions' ``##[error]``), an exception's type off its first line, a line's indent, and joins what is left
into a message. A token that a terminal or a launcher wrapped over several lines is then in pieces that no longer read
as one wrapped token: the label that said "this line goes on the one before" is gone, the first line is no longer of the
pane's width. Redacting the message, a frame or a nearby line alone cannot see it; redacting the raw lines can (the
views of kb/diagnose/redact join a fold and read past a launcher's prefix).

So each error keeps its source (ParsedError.source: the raw lines from CONTEXT_LINES before it to AFTER_LINES after
the line that ended it, set by kb/diagnose/stream.py), and once parsing is done, before anything is matched or
quoted, every secret found in the source is cut into its pieces (at line ends, whitespace, controls and invisible
characters: where the parser may have cut it), and each piece is masked wherever it stands in what the error quotes:
its type, message, frames, advice and the lines before and after it. Everything kb prints of the error (the headline,
the message, the user frame, a hint's line, a capture in the fix, the drift section, the JSON document) is made from
those fields, and is redacted again on its own where it is printed.
"""

from __future__ import annotations

import kb.diagnose.redact as redaction  # (its secret_spans read at each call: one switch turns all redaction off)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from typing import Any

    from kb.diagnose.errors import ParsedError

PIECE_MIN = 4  # a secret's piece this long or longer is masked wherever it stands (shorter ones are no secret)
PIECES_MAX = 64  # distinct pieces per error, at most (the longest first)
SOURCE_LINE_CHARS = 4096  # a source line is read this far (the message itself holds at most 8,000 characters)
SOURCE_CHARS = 256 * 1024  # and a group of sources this far in all (its last lines are left out)
GROUP_LINES = 2048  # the sources of errors near one another are read together (a run of this many lines at most)
_SPLIT: list[Any] = []
_EDGE_ESCAPES: list[Any] = []
_EDGES = ":;,.'\"`()[]{}<>|=@#"  # punctuation a piece may begin or end with, which the parser may have cut off


def _splitter() -> Any:
    if not _SPLIT:
        from kb.knowledge.precompiled import pattern

        # whitespace, C0 and C1 controls, DEL, the soft hyphen, the invisible characters and the bidi controls
        _SPLIT.append(pattern("[\\s\\x00-\\x1f\\x7f-\\x9f\\u00ad\\u034f\\u180e\\u200b-\\u200f\\u2028-\\u202e"
                              "\\u2060-\\u2064\\ufeff]+").split)
    return _SPLIT[0]


def _escape_edges() -> Any:
    if not _EDGE_ESCAPES:
        from kb.knowledge.precompiled import pattern

        # an escape of a C0 control or a space (\u0000, u0000 where a span began past its backslash, \x00, \n, \t)
        _EDGE_ESCAPES.append(pattern(r"^(?:\\?u00[01][0-9a-fA-F]|\\x[01][0-9a-fA-F]|\\[ntr0])+"
                                     r"|(?:\\u00[01][0-9a-fA-F]|\\x[01][0-9a-fA-F]|\\[ntr0])+$"))
    return _EDGE_ESCAPES[0]


def source_text(lines: list[str]) -> tuple[str, list[int]]:
    """The source lines joined, each read up to SOURCE_LINE_CHARS, SOURCE_CHARS in all; and where each line starts in
    the text (one more: the text's length)."""
    out: list[str] = []
    starts = [0]
    for line in lines:
        if len(line) > SOURCE_LINE_CHARS:
            line = line[:SOURCE_LINE_CHARS]
        if starts[-1] + len(line) + 1 > SOURCE_CHARS and out:
            break
        out.append(line)
        starts.append(starts[-1] + len(line) + 1)
    return "\n".join(out) + "\n", starts  # (each was a line of the input: its line end too)


def pieces_of(text: str, spans: list[tuple[int, int, str, bool]]) -> tuple[str, ...]:
    """The pieces of the secrets at ``spans`` of ``text`` (a home path's user name is no secret: its mask is ``~``),
    PIECE_MIN characters or longer, longest first, PIECES_MAX at most: each secret cut at its line ends, whitespace,
    controls and invisible characters, its terminal sequences taken out, as the parser may have cut and cleaned it."""
    split = _splitter()
    pieces: set[str] = set()
    for start, end, mask, _wrapped in spans:
        if mask == "~":
            continue
        piece = text[start:end]
        if "\x1b" in piece:
            from kb.diagnose.textclean import ANSI

            piece = ANSI.sub(" ", piece)
        for part in split(piece):
            if len(part) >= PIECE_MIN:
                pieces.add(part)
                bare = part.strip(_EDGES)  # (a label's `:` or a quote the parser took off with the label)
                if len(bare) >= PIECE_MIN and bare != part:
                    pieces.add(bare)
                if "u00" in part or "\\" in part:  # (turn 48) a JSON escape of a control at its ends (a NUL between
                    # argv's items, `\u0000`, which the parser drops), cut as a control is: the part the message holds
                    inner = _escape_edges().sub("", part)
                    if len(inner) >= PIECE_MIN and inner != part:
                        pieces.add(inner)
    return tuple(sorted(pieces, key=lambda p: (-len(p), p))[:PIECES_MAX])


def secret_pieces(text: str) -> tuple[str, ...]:
    """The pieces (pieces_of) of every secret that redaction finds in ``text``."""
    spans = redaction.secret_spans(text)
    return pieces_of(text, spans) if spans else ()


def mask_pieces(text: str, pieces: tuple[str, ...]) -> str:
    """``text`` with every piece masked (``***``) wherever it stands, longest first: one ``in`` and at most one
    ``replace`` per piece."""
    for piece in pieces:
        if piece in text:
            text = text.replace(piece, "***")
    return text


def source_groups(errors: list[ParsedError]) -> list[tuple[list[str], list[tuple[ParsedError, int, int]]]]:
    """The errors' sources merged where they overlap or touch (errors a few lines apart share most of their lines:
    each line near errors is redacted once, not once per error), each with its errors and the lines of the merged
    source that are each error's (first, end); the sources are dropped."""
    groups: list[tuple[list[str], list[tuple[ParsedError, int, int]]]] = []
    first = end = -1
    for error in sorted((e for e in errors if e.source), key=_source_start):
        start, lines = error.source  # type: ignore[misc]
        if groups and start <= end and end - first < GROUP_LINES:
            if start + len(lines) > end:
                groups[-1][0].extend(lines[end - start:])
                end = start + len(lines)
            groups[-1][1].append((error, start - first, start - first + len(lines)))
            continue
        groups.append((list(lines), [(error, 0, len(lines))]))
        first, end = start, start + len(lines)
    for error in errors:
        error.source = None
    return groups


def _source_start(error: ParsedError) -> int:
    return error.source[0]  # type: ignore[index]


def redact_quoted(errors: list[ParsedError]) -> None:
    """Mask, in what each error quotes, the pieces of the secrets its source holds (see the module's docstring); the
    sources are dropped."""
    for lines, group in source_groups(errors):
        text, starts = source_text(lines)
        spans = [s for s in redaction.secret_spans(text) if s[2] != "~"]
        if not spans:
            continue
        for error, a, b in group:
            lo, hi = starts[min(a, len(starts) - 1)], starts[min(b, len(starts) - 1)]
            found = pieces_of(text, [s for s in spans if s[0] < hi and lo < s[1]])
            if found:
                _mask_error(error, found)


def redact_with(errors: list[ParsedError], lines: list[str]) -> None:
    """Mask, in what each error quotes, the pieces of the secrets ``lines`` hold: for an error made of lines it has no
    source of (a prior's answer made of the report's first lines, kb/diagnose/prior_rules.py)."""
    text, _starts = source_text(lines)
    found = secret_pieces(text)
    if found:
        for error in errors:
            _mask_error(error, found)


def _mask_error(error: ParsedError, found: tuple[str, ...]) -> None:
    if not any(piece in text for text in _quoted_texts(error) for piece in found):
        return
    # and what redaction finds in the message itself: a part of a secret that only the cleaned text shows whole must
    # not lose its other part to the source's mask before the message is redacted where it is printed
    pieces = tuple(sorted({*found, *secret_pieces(error.message)}, key=lambda p: (-len(p), p)))[:PIECES_MAX]
    error.type = _masked(error.type, pieces)
    error.message = _masked(error.message, pieces)
    error.context = [_masked(line, pieces) for line in error.context]
    error.after = [_masked(line, pieces) for line in error.after]
    error.advice = [_masked(line, pieces) for line in error.advice]
    for frame in error.frames:
        frame.file = _masked(frame.file, pieces)
        frame.function = _masked(frame.function, pieces)
        frame.code = _masked(frame.code, pieces)


def _masked(text: str, pieces: tuple[str, ...]) -> str:
    """``text`` with the pieces masked, unless its own redaction (where it is printed) already hides every piece: a
    token whole in one field keeps its shape's mask there (``hf_***``) and still reads as what it is (a keyword, a
    path) to the rules that match it; only a field that would show a piece is masked here."""
    if not any(piece in text for piece in pieces):
        return text
    shown = redaction.redact(text)
    if not any(_shows(piece, shown) for piece in pieces):
        return text
    return mask_pieces(text, pieces)


SHOWN_MIN = 8  # (leaks45) a run of a piece this long that a field's own redaction leaves shows it (a leak's measure)


def _shows(piece: str, shown: str) -> bool:
    """Whether ``shown`` (a field as its own redaction prints it) shows ``piece`` or a run of SHOWN_MIN characters of it:
    its own redaction may mask only a part of the piece (leaks45: a path segment after a `/` inside a wrapped token's
    rest, ``QJQFNo...dK8S/***``), which leaves the rest shown."""
    if piece in shown:
        return True
    return any(piece[i:i + SHOWN_MIN] in shown for i in range(len(piece) - SHOWN_MIN + 1))


def _quoted_texts(error: ParsedError) -> list[str]:
    """Every text the error quotes (the fields _mask_error masks)."""
    return [error.type, error.message, *error.context, *error.after, *error.advice,
            *(t for f in error.frames for t in (f.file, f.function, f.code))]

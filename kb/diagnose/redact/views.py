"""Views of a text that redaction searches: escapes decoded, line wraps joined; each maps its
positions back to the original text, where the secret is then masked.

A token after a JSON escape (``\\nhf_...``), a URL escape (``sig%3D...``), an HTML entity
(``&quot;``) or a terminal colour sequence (``ESC[33m``) has no word boundary before it in the
original, and a token cut by a terminal's line width is two pieces no rule recognises; in the views
the escape is the character it stands for (a colour sequence is nothing) and the wrap is gone, with
the prefix a launcher puts before each line it relays (``[rank0]: ``) when both lines carry it. Building a
view is linear in the text (one regex pass, one list of segments); mapping a position is a binary search.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    import re
    from collections.abc import Callable

_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\", "/": "/", "b": "\b", "f": "\f"}
_ENTITIES = {"quot": '"', "amp": "&", "lt": "<", "gt": ">", "apos": "'", "nbsp": "\u00a0", "equals": "=",
             "colon": ":", "sol": "/", "plus": "+", "percnt": "%", "num": "#", "lowbar": "_", "period": ".",
             # (turn 41) HTML5's other named entities of ASCII punctuation
             "commat": "@", "quest": "?", "excl": "!", "dollar": "$", "ast": "*", "comma": ",", "semi": ";",
             "lpar": "(", "rpar": ")", "lsqb": "[", "rsqb": "]", "lcub": "{", "rcub": "}", "verbar": "|", "bsol": "\\",
             "grave": "`"}
_ESCAPE: dict[int, re.Pattern[str]] = {}  # compiled on first use, not at import (diagnose's start-up); 0, 1 raw, 2 URLs kept
_SEQUENCE: list[re.Pattern[str]] = []  # one terminal sequence (a raw view's runs)
_PREFIX: list[re.Pattern[str]] = []
_START: list[re.Pattern[str]] = []
_SETTING: list[re.Pattern[str]] = []
# a line that starts a setting or a message (NAME=value, Name: value, RuntimeError: ...) is not the rest of a token
_SETTING_START = r"[A-Za-z_][A-Za-z0-9_.-]{0,63}[ \t]{0,4}(?:=(?![=\s])|:(?:[ \t]|$))"
_OSC = r"""\x1b\][^\x07\x1b\n]{0,512}(?:\x07|\x1b\\)|"""
# (review43) what may follow a backslash in a JSON/Python escape (_ESCAPES); and those of them that stand for another
# character than their own letter or digit: a string terminator (ESC \) before one of these is not read as one, so that
# the escape is decoded (ESC \ \n before a token left "nhf_..." in every view); before a punctuation escape (\- \= \")
# it stays a terminator: the character left is the same either way (ESC \ --token)
_LETTER_ESCAPE = r"""(?:u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-3][0-7]{2}|[ntrbf])"""
# (leaks45: and a full-width punctuation, which a shell's `printf %q` escapes as it does ASCII's: ``password\\：``)
_ESCAPED = r"""(?:u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-3][0-7]{2}|[ntr"'\\/bf]|[ !#$&()*+,\-.:;<=>?@\[\]^`{|}~\uff01-\uff0f\uff1a-\uff20])"""
# terminal control sequences (CSI, OSC, two-character ESC forms) and invisible characters: a run of them is one
# match (review, turn 40: a log of nothing but cursor moves made one Python step per sequence, ~3 CPU s a MB)
# (turn 43, fuzz43 and review43) a CSI (7-bit ESC [ or 8-bit 0x9B) never ends on a backslash either, nor is a lone
# ESC \ a string's terminator where the backslash begins a letter escape: `\x9b \n` is a stray byte and a JSON line
# end, not CSI SP \ and an n (ECMA-48's PTX, a CSI ending on \, no terminal implements)
_TERMINAL = (r"""\x1b\[[0-?]{0,32}[ -/]{0,4}[@-\[\]-~]|""" + _OSC + r"""\x1b[@-Z^_]|\x1b\\(?!""" + _LETTER_ESCAPE + r""")"""
             r"""|\x9b[0-?]{0,32}[ -/]{0,4}[@-\[\]-~]"""
             # (turn 39) ESC's other two-character forms: save/restore cursor (ESC 7, ESC 8), keypad modes (ESC =,
             # ESC >), reset (ESC c), character sets (ESC ( 0, ESC SP F)
             # (turn 43) but not one ending on a backslash: ESC SP \ is no sequence in use, and the \ starts an escape;
             # (review43) nor one whose intermediate is the % of a URL escape (ESC %20: ESC % G, UTF-8 on, stays one)
             r"""|\x1b[0-?`-~]|\x1b(?![ -/]?%[0-9A-Fa-f]{2})[ -/]{1,2}[0-\[\]-~]"""
             # invisible characters a web page or an editor leaves inside a pasted token (soft hyphen, zero widths, BOM)
             r"""|[\u00ad\u034f\u180e\u200b-\u200f\u2060-\u2064\ufeff]""")
# (leaks45) a UTF-8 character's bytes escaped one by one, as a bytes repr (``contrase\\xc3\\xb1a``, ``p\\xd0\\xb0ssword``) or
# C's octal escapes (``\\357\\274\\232``: a full-width colon) write them: one character, as %C3%B1 is (_unescape)
_UTF8_ESCAPES = r"""\\x[c-fC-F][0-9a-fA-F](?:\\x[89abAB][0-9a-fA-F]){1,3}|\\3[0-6][0-7](?:\\2[0-7]{2}){1,3}"""
# JSON/Python escapes, URL escapes, HTML entities, then runs of the above
_URL_ESCAPES = r"""|%[C-Fc-f][0-9A-Fa-f](?:%[89ABab][0-9A-Fa-f]){1,3}|%[0-9A-Fa-f]{2}"""
_ESCAPES = (_UTF8_ESCAPES + r"""|\\""" + _ESCAPED + _URL_ESCAPES + r"""|&(?:[a-z]{2,6}|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});"""
            # (leaks47) an HTML line break (a notebook's or a forum's output as HTML: a line a wrap cut, ``<br>``)
            r"""|<[bB][rR][ \t]{0,2}/?>"""
            r"""|(?:""" + _TERMINAL + r""")+""")
INVISIBLE = _INVISIBLE = "\u00ad\u034f\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
# a line prefix a launcher puts before each line it relays: [rank0]:, [default0]:, (RayTrainWorker pid=1), 0:, host:,
# docker compose's `trainer-1  | `, (turn 41) Open MPI's --tag-output `[1,0]<stderr>:`
_LINE_PREFIX = r"(?:\[[^\]\n]{1,40}\](?:<[a-z]{1,8}>)?:?|\([^)\n]{1,60}\)|[A-Za-z0-9_.-]{1,40}:|[A-Za-z0-9_.-]{1,40}[ \t]{1,8}\|)[ \t]{0,4}"
# a prefix that differs from line to line: a timestamp (`docker logs -t`, GitHub Actions, a log split at 16 KiB, each
# piece stamped), a rich panel's left border (and its empty line-number gutter), an indentation
_LINE_START = (r"(?P<time>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?[ \t]{1,4})"
               # journald's and syslog's `May 01 12:00:00 host python[1234]: ` (its time may differ too)
               r"|(?P<syslog>[A-Z][a-z]{2}[ \t]{1,2}\d{1,2}[ \t]\d{2}:\d{2}:\d{2}[ \t][^\s:]{1,64}[ \t][^\s:\[]{1,64}(?:\[\d{1,10}\])?:[ \t])"
               r"|(?P<border>[ \t]{0,4}[\u2502\u2503\u2551](?:[ \t]{1,12}[\u2502\u2503\u2551])?[ \t]{0,8})|(?P<indent>[ \t]{1,8})")
_BORDERS = "\u2502\u2503\u2551"  # │ ┃ ║: a panel's right border ends the line a wrap cut
WRAP_MIN_LINE = 40  # a line this long or longer, ending inside a token, may have been wrapped
WRAP_MIN_WORD = 8  # so may a shorter line whose last word is this long (a token near the start of a line)
FOLD_MIN_LINE = 16  # (turn 41) and a line this long or longer as long as the line before or after it (a narrow pane)
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

    __slots__ = ("text", "parent", "_starts", "_parent_starts", "_parent_lens", "joins", "sure")

    def __init__(self, text: str, parent: View | None, starts: list[int], parent_starts: list[int],
                 parent_lens: list[int], joins: tuple[int, ...] = (), sure: frozenset[int] = frozenset()) -> None:
        self.text, self.parent = text, parent
        self._starts, self._parent_starts, self._parent_lens = starts, parent_starts, parent_lens
        self.joins = joins  # positions in ``text`` where a line break was removed (joined views)
        self.sure = sure  # those of ``joins`` that the text itself marks as a continuation (a shell's `\`)

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
    """The character an escape stands for; "" for a terminal control sequence (and an unknown entity, kept)."""
    first = piece[0]
    if first == "%":
        if len(piece) > 3:  # a character's UTF-8 bytes (%EF%BC%B0: Ｐ)
            char = bytes.fromhex(piece.replace("%", "")).decode("utf-8", "replace")
            return char if len(char) == 1 and char != "\ufffd" else piece
        return chr(int(piece[1:], 16))
    if first == "<":  # (leaks47) <br>, <br/>, <BR />
        return "\n"
    if first == "&":
        if piece[1] == "#":
            code = int(piece[3:-1], 16) if piece[2] in "xX" else int(piece[2:-1])
            return chr(code) if 0 <= code < 0x110000 else piece  # (leaks45: &#0; too, a NUL between argv's items)
        return _ENTITIES.get(piece[1:-1], piece)
    if first in "\x1b\x9b" or first in _INVISIBLE:
        return ""
    if len(piece) > 4 and piece.count("\\") > 1:  # (leaks45) a UTF-8 character's escaped bytes
        raw = bytes(int(p[1:], 16) if p[0] == "x" else int(p, 8) for p in piece.split("\\")[1:])
        return raw.decode("utf-8", "replace")
    if piece[1] in "ux":
        return chr(int(piece[2:], 16))
    if len(piece) == 4 and piece[1] in "0123":  # (turn 41) C's octal escape (git's quoted paths, printf %b): \075 is =
        return chr(int(piece[1:], 8))
    return _SIMPLE.get(piece[1], piece[1])  # (turn 39: a shell's \= \  \" as `printf %q` and `set -x` write them)


# letters of other scripts that look like Latin ones (Unicode's confusables.txt, the Cyrillic and Greek letters a
# name can be spelled with: pаssword with a Cyrillic а), and the full-width forms of ASCII (ＰＡＳＳＷＯＲＤ＝):
# each one character for one, so positions do not move
_CONFUSABLE = ("\u0430a\u0435e\u043eo\u0440p\u0441c\u0443y\u0445x\u0455s\u0456i\u0458j\u0501d\u051bq\u051dw\u04bbh"
               "\u04cfl\u0410A\u0412B\u0415E\u041aK\u041cM\u041dH\u041eO\u0420P\u0421C\u0422T\u0425X\u0405S\u0406I"
               "\u0408J\u04aeY\u0391A\u0392B\u0395E\u0396Z\u0397H\u0399I\u039aK\u039cM\u039dN\u039fO\u03a1P\u03a4T"
               "\u03a5Y\u03a7X\u03bfo\u03bdv\u03b9i\u03bak\u03b1a\u03c1p"
               # (turn 41) Latin letters with a diacritic, read as their base letter: a name in another language
               # (contraseña, lösenord, hasło)
               "\u00f1n\u00d1N\u00f6o\u00d6O\u00e4a\u00c4A\u00fcu\u00dcU\u00e5a\u00c5A\u0142l\u0141L\u00e9e\u00e8e\u00e1a\u00f3o\u00edi\u00fau\u00e7c")
_FOLD: list[dict[int, str]] = []


def folded(base: View) -> View | None:
    """``base`` with full-width ASCII and Latin look-alikes of other scripts read as the ASCII letters they look
    like (a name or a token's prefix typed so, or pasted from a page that did); None when it has none. One
    character for one: the view's positions are the text's."""
    text = base.text
    if text.isascii():
        return None
    if not _FOLD:
        table = {ord(_CONFUSABLE[i]): _CONFUSABLE[i + 1] for i in range(0, len(_CONFUSABLE), 2)}
        table.update({code: chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)})
        _FOLD.append(table)
    out = text.translate(_FOLD[0])
    return None if out == text else View(out, base, [], [], [])


def _sgr(text: str, a: int, b: int) -> bool:
    """Whether ``text[a:b]`` is a colour sequence (SGR: ESC [ digits and ; or : then m)."""
    return text[b - 1] == "m" and text.startswith("\x1b[", a) and all(c in "0123456789;:" for c in text[a + 2:b - 1])


def odd_escapes(text: str) -> bool:
    """Whether ``text`` holds a terminal sequence other than a colour (an OSC, a cursor move, a broken CSI)."""
    at = text.find("\x1b")
    while at != -1:
        end = at + 2
        if not text.startswith("\x1b[", at):
            return True
        while end < len(text) and text[end] in "0123456789;:":
            end += 1
        if end >= len(text) or text[end] != "m":
            return True
        at = text.find("\x1b", end)
    return "\x9b" in text


_RUN_FIRST = "\x1b\x9b" + _INVISIBLE  # how a run of terminal sequences and invisible characters starts


def _kept_sequences(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """The spans in the run ``text[a:b]`` that a raw view keeps: its terminal sequences but colours, adjacent ones
    as one span; colours and invisible characters go. A run with no ``m`` (no colour ends so) and only ASCII (no
    invisible character, no 8-bit CSI) is kept whole."""
    run = text[a:b]
    if "m" not in run and run.isascii():
        return [(a, b)]
    if not _SEQUENCE:
        from kb.knowledge.precompiled import pattern

        _SEQUENCE.append(pattern(_TERMINAL.replace(_OSC, "")))
    kept: list[tuple[int, int]] = []
    for m in _SEQUENCE[0].finditer(text, a, b):
        x, y = m.span()
        if text[x] in "\x1b\x9b" and not _sgr(text, x, y):
            if kept and kept[-1][1] == x:
                kept[-1] = (kept[-1][0], y)
            else:
                kept.append((x, y))
    return kept


_STRIP: list[re.Pattern[str]] = []


def stripped(base: View) -> View | None:
    """(leaks45) ``base`` with its terminal sequences and invisible characters removed and nothing else decoded; None
    when it has none. A command's first word right after a colour (``ESC[36mnet use \\\\server VALUE``, whose
    backslashes the decoded view reads as escapes) and a URL's ``%40`` inside a password that a wrap under colour codes
    cut (the decoded view's ``@`` ends the password early) are read as the terminal shows them."""
    text = base.text
    if "\x1b" not in text and "\x9b" not in text and (text.isascii() or not any(c in text for c in _INVISIBLE)):
        return None
    if not _STRIP:
        from kb.knowledge.precompiled import pattern

        _STRIP.append(pattern("(?:" + _TERMINAL + ")+"))
    return _replaced(base, _STRIP[0], _nothing)


def _nothing(piece: str) -> str:
    return ""


def decoded(base: View, raw: bool = False, urls: bool = True) -> View | None:
    """``base`` with JSON/Python string escapes, URL escapes and HTML entities decoded once and terminal
    control sequences removed; None when it has none. ``raw``: terminal sequences but colours (SGR) stay as they
    are (an OSC's text, a title or a link's address, is shown or opened; a CSI that ends on a token's first letter,
    ``ESC [ SP h``, would eat it) while colours, invisible characters and the other escapes go. ``urls=False`` (fix49):
    URL escapes stay as they are (a token whose shape holds them, a Twitter bearer token's ``%2B``: escaped_lines)."""
    text = base.text
    if ("\\" not in text and ("%" not in text or not urls) and "&" not in text and "\x1b" not in text
            and "\x9b" not in text and (text.isascii() or not any(c in text for c in _INVISIBLE)) and not _has_br(text)):
        return None
    key = 2 if not urls else int(raw)
    if key not in _ESCAPE:
        from kb.knowledge.precompiled import pattern

        # (raw: an OSC is not one escape here: its text's own escapes are decoded, its ends stay)
        _ESCAPE[key] = pattern((_ESCAPES if key == 0 else _ESCAPES.replace(_OSC, "") if key == 1
                                else _ESCAPES.replace(_URL_ESCAPES, "")))
    pieces: list[str] = []
    starts: list[int] = []
    parent_starts: list[int] = []
    parent_lens: list[int] = []
    v = r = 0
    matched = False
    for m in _ESCAPE[key].finditer(text):
        matched = True
        a, b = m.span()
        if a > r:
            starts.append(v), parent_starts.append(r), parent_lens.append(0), pieces.append(text[r:a])
            v += a - r
        if raw and text[a] in _RUN_FIRST:  # a run of terminal sequences: those not colours stay, as they are
            for keep_a, keep_b in _kept_sequences(text, a, b):
                starts.append(v), parent_starts.append(keep_a), parent_lens.append(0), pieces.append(text[keep_a:keep_b])
                v += keep_b - keep_a
            r = b
            continue
        char = _unescape(m.group())
        if char:  # a removed sequence adds no segment: the next one starts where it ended
            starts.append(v), parent_starts.append(a), parent_lens.append(b - a), pieces.append(char)
            v += len(char)
        r = b
    if not matched:
        return None
    if r < len(text):  # (turn 43: also after sequences that were only removed, a colour at the text's start)
        starts.append(v), parent_starts.append(r), parent_lens.append(0), pieces.append(text[r:])
    return View("".join(pieces), base, starts, parent_starts, parent_lens)


def _has_br(text: str) -> bool:
    """(leaks47) Whether ``text`` holds an HTML line break (``<br>``, ``<BR/>``): decoded as a line end."""
    return "<br" in text or "<BR" in text or "<Br" in text or "<bR" in text


_QP: list[re.Pattern[str]] = []


def quoted_printable(base: View) -> View | None:
    """``base`` with quoted-printable decoded (turn 39: a mail or a MIME part quoting a log): ``=XX`` as the byte it
    stands for (ASCII) and the soft line break ``=`` at a line's end removed. Made only for text that holds
    ``=3D`` (an encoded ``=``), the mark of that encoding, or (leaks44) that names it (a MIME part's
    ``Content-Transfer-Encoding: quoted-printable``) or has a soft line break that ends a line of the encoding's full
    76 characters (a quoted log with no ``=`` of its own); None otherwise."""
    text = base.text
    if "=3D" not in text and "uoted-printable" not in text and "UOTED-PRINTABLE" not in text and not _soft_breaks(text):
        return None
    if not _QP:
        from kb.knowledge.precompiled import pattern

        # (leaks44: and a UTF-8 character's bytes, ``contrase=C3=B1a``, ``p=D0=B0ssword`` with a Cyrillic a)
        # (a soft line break may fall between its bytes: ``p=D0=`` / ``=B0ssword``)
        _QP.append(pattern(r"=(?:[2-7][0-9A-F]|[C-E][0-9A-F](?:(?:=\r?\n)?=[89AB][0-9A-F]){1,2}"
                           r"|F[0-4](?:(?:=\r?\n)?=[89AB][0-9A-F]){3}|\r?\n)"))
    return _replaced(base, _QP[0], _qp_piece)


def _qp_piece(piece: str) -> str:
    if piece[1] in "\r\n":
        return ""
    if len(piece) == 3:
        return chr(int(piece[1:], 16))
    return bytes.fromhex(piece.replace("=\r\n", "").replace("=\n", "").replace("=", "")).decode("utf-8", "replace")


QP_LINE = 76  # quoted-printable's longest line (RFC 2045), its soft break's `=` included


def _soft_breaks(text: str) -> bool:
    """(leaks44) Whether a line of ``text`` is QP_LINE characters long and ends in a soft line break (``=``). Linear:
    each ``=`` before a line end is looked at once, back to its line's start."""
    at = text.find("=\n")
    while at != -1:
        line = at + 1 - (text.rfind("\n", 0, at) + 1)
        if line == QP_LINE:
            return True
        at = text.find("=\n", at + 2)
    return False


def doubled_quotes(base: View) -> View | None:
    """``base`` with a CSV field's doubled quotes read as one (turn 39: ``{""password"": ""...""}`` in a quoted
    field); made only for text where a doubled quote opens a name after ``{``, ``,`` or a space, or (leaks46) a value
    after ``=`` (``DATABASE_PASSWORD=""two words""`` in a quoted field: an env setting in a CSV row; not an empty
    ``x=""``)."""
    text = base.text
    if '""' not in text or not any(f'{c}""' in text for c in "{, \t") and not _opens_after_equals(text):
        return None
    out = _replaced(base, None, lambda piece: '"', literal='""')
    return out


def _opens_after_equals(text: str) -> bool:
    """(leaks46) Whether ``=""`` stands before a character that is neither a quote nor a space (a doubled quote that
    opens a value). One ``find`` loop: linear."""
    at = text.find('=""')
    while at != -1:
        after = text[at + 3:at + 4]
        if after and after != '"' and not after.isspace():
            return True
        at = text.find('=""', at + 3)
    return False


def _replaced(base: View, pattern: re.Pattern[str] | None, replace: Callable[[str], str],
              literal: str = "") -> View | None:
    """``base`` with each match of ``pattern`` (or each occurrence of ``literal``) replaced by ``replace(match)``
    (one character or none); None when nothing matched."""
    text = base.text
    if pattern is not None:
        spans = [m.span() for m in pattern.finditer(text)]
    else:
        spans = []
        at = text.find(literal)
        while at != -1:
            spans.append((at, at + len(literal)))
            at = text.find(literal, at + len(literal))
    if not spans:
        return None
    pieces: list[str] = []
    starts: list[int] = []
    parent_starts: list[int] = []
    parent_lens: list[int] = []
    v = r = 0
    for a, b in spans:
        if a > r:
            starts.append(v), parent_starts.append(r), parent_lens.append(0), pieces.append(text[r:a])
            v += a - r
        char = replace(text[a:b])
        if char:
            starts.append(v), parent_starts.append(a), parent_lens.append(b - a), pieces.append(char)
            v += len(char)
        r = b
    if r < len(text):
        starts.append(v), parent_starts.append(r), parent_lens.append(0), pieces.append(text[r:])
    return View("".join(pieces), base, starts, parent_starts, parent_lens)


def erased(base: View) -> View | None:
    """``base`` as a terminal shows it after its backspaces (turn 39): each backspace and the character before it
    (on its line) gone, as the cursor moved back over it and the next character overwrote it (``ab\bc`` shows
    ``ac``); None when it has none. One pass."""
    text = base.text
    if "\x08" not in text:
        return None
    kept: list[int] = []  # the positions the terminal still shows, in order
    line_start = 0  # a backspace never moves the cursor back past its line's start
    for i, char in enumerate(text):
        if char == "\x08":
            if len(kept) > line_start:
                kept.pop()
        else:
            kept.append(i)
            if char in "\r\n":
                line_start = len(kept)
    pieces: list[str] = []
    starts: list[int] = []
    parent_starts: list[int] = []
    parent_lens: list[int] = []
    v = k = 0
    while k < len(kept):  # runs of consecutive positions become pieces
        first = kept[k]
        while k + 1 < len(kept) and kept[k + 1] == kept[k] + 1:
            k += 1
        starts.append(v), parent_starts.append(first), parent_lens.append(0), pieces.append(text[first:kept[k] + 1])
        v += kept[k] + 1 - first
        k += 1
    return View("".join(pieces), base, starts, parent_starts, parent_lens)


def joined(base: View, prefixes: tuple[frozenset[str], tuple[str, ...]] = (frozenset(), ()),
           inner: re.Pattern[str] | None = None, strength: Callable[[str], str | None] | None = None) -> View | None:
    """``base`` with the line breaks that may be wraps removed: a break after a line that ends in a token
    character, with WRAP_MIN_LINE characters or more or a last word of WRAP_MIN_WORD or more, before a line
    that starts with one and not with a setting (``NAME=``, ``Name: ``); a line prefix that both lines start
    with (``[rank0]: ``) goes with the break. A line whose last word reads like prose is joined too when the next
    line's first word holds a token rule's keyword past its start (``inner``, the rules' keyword screen, on the
    lower-cased word): Terraform's ``<14 characters>.atlasv1.<67>`` cut before its keyword began on that line.
    (leaks45) So is a line whose last word is a value beside a secret-like name (``strength``, the key-name rule's
    judge of a name: ``PrivateKey = aaaaaaab`` / ``1234...=``): a random value's head may be letters of one case.
    None when there is no such break."""
    text = base.text
    cuts: list[tuple[int, int]] = []  # (start, end) of each removed break (and prefix) in ``text``
    marked: set[int] = set()  # the cuts after a shell's `\`
    line_start = 0
    ends = list(_line_ends(text))
    last_length = -1
    for k, i in enumerate(ends):
        brk = _break(text, i)
        nxt = i + 1
        # (turn 41) a narrow pane or `fold -w 20` cuts every line at the same width: a line as long as the one before
        # or after it, FOLD_MIN_LINE or longer, is of full width whatever that width is
        length = brk - line_start
        after = (_break(text, ends[k + 1]) if k + 1 < len(ends) else len(text)) - nxt
        folded = length >= FOLD_MIN_LINE and (length == last_length or length == after)
        last_length = length
        split = _split_record(text, line_start, brk, nxt)
        if split is _RECORD_ENDS:  # (turn 42) a CRI record tagged F ends its line: the next record is no wrap's rest
            line_start = nxt
            continue
        if split is not None:  # (turn 40) a container runtime's record of part of a line: the rest is the next's
            cuts.append(split)
            marked.add(len(cuts) - 1)
            line_start = nxt
            continue
        end, bordered = _before_border(text, line_start, brk)
        glued = _glued_literal(text, line_start, end, nxt)
        if glued is not None:  # (leaks47) a string literal that goes on in the next line's: one string
            cuts.append(glued)
            marked.add(len(cuts) - 1)
            line_start = nxt
            continue
        # a shell's line continuation (`...token\` and the rest on the next line, maybe indented)
        shell = end - line_start >= 2 and text[end - 1] == "\\" and text[end - 2] in TOKEN_CHARS and not bordered
        if shell:
            end -= 1
        full = folded or end - line_start >= WRAP_MIN_LINE
        # a line cut just after a space (``Authorization: Bearer ``/token) keeps the space: it must be full width
        spaced = full and text[end - 1] == " "
        word_end = end - 1 if spaced else end
        if word_end > line_start and (text[word_end - 1] in TOKEN_CHARS or text[word_end - 1] in ":$"
                                      or _bang_inside_token(text, line_start, word_end)
                                      or _ends_in_keyword(text, line_start, word_end, inner)) and nxt < len(text):
            # (a line may end, and the rest begin, with a `$`: a Braintree token's parts are joined by it)
            skip = (_indent(text, nxt) if shell else _continuation(text, line_start, nxt, bordered, full))
            # (fuzz43: or a `!` after a word that reads as a token's head: a Salesforce session id cut right before it)
            if (nxt + skip < len(text) and (text[nxt + skip] in TOKEN_CHARS or text[nxt + skip] in "@:$"
                                            or text[nxt + skip] == "!" and _head_before(text, line_start, word_end)
                                            # (leaks44: or the quote or the closing tag that ends the line's value)
                                            or _closes_value(text, line_start, word_end, nxt + skip))
                    and (spaced or _cut_word(text, line_start, end, prefixes, skip if _relayed(text, line_start, nxt) else 0,
                                             folded, strength)
                         or inner is not None and _keyword_inside(text, nxt + skip, inner)
                         or full and _random_rest(text, line_start, end, nxt + skip))
                    and (not _starts_setting(text, nxt + skip, shell)
                         or full and strength is not None and _name_cut(text, line_start, end, nxt + skip, strength)
                         or not shell and _short_token_rest(text, line_start, end, nxt + skip))):
                cuts.append((end, nxt + skip))
                if shell:
                    marked.add(len(cuts) - 1)
        line_start = nxt
    if not cuts:
        return None
    return _cut(base, cuts, marked)



def unfolded(base: View) -> View | None:
    """(turn 41) ``base`` with each line of a fold joined to the next: a line FOLD_MIN_LINE or longer as long as the
    line before or after it (`fold -w 20`, a narrow pane, a terminal of that width), whatever it ends and the next
    begins with. A name cut inside itself (``AWS_SESSION_T`` / ``OKEN=...``) or a value over three lines is then one
    piece for every rule; None when no line is one of a fold. Linear: each line's length is looked at three times."""
    text = base.text
    ends = list(_line_ends(text))
    if len(ends) < 2:
        return None
    cuts: list[tuple[int, int]] = []
    # (turn 48) each line's length: a fold of lines longer than its width but shorter than twice it leaves pieces of
    # the full width and their rests in turn (64-character PEM lines cut at 50: 50, 14, 50, 14), no two of full width
    # side by side; a line as long as the one two lines before or after it, with a shorter line between, is one too
    lengths = [_break(text, i) - start for i, start in zip(ends, [0, *(e + 1 for e in ends)])]
    lengths.append(len(text) - (ends[-1] + 1))
    line_start = 0
    last_length = last_net = -1
    carried = 0  # the prefix this line shares with the line before (cut with the break before it)
    fold_prefix = ""  # (turn 49) the last prefix that went with a break
    nets: list[int] = []  # (turn 49) each line's length without the prefix that went with the break before it
    for k, i in enumerate(ends):
        brk = _break(text, i)
        length = brk - line_start
        after = (_break(text, ends[k + 1]) if k + 1 < len(ends) else len(text)) - (i + 1)
        # (leaks44) a launcher's prefix that both lines start with (srun -l's ``0: `` before each piece of a fold) goes
        # with the break; the pieces are as long as each other without it (the first carried it within the width)
        same = _fold_prefix(text, line_start, i + 1) if length >= FOLD_MIN_LINE and after > 0 else 0
        if same:
            fold_prefix = text[i + 1:i + 1 + same]
        elif fold_prefix and length >= FOLD_MIN_LINE and text.startswith(fold_prefix, i + 1) and not text.startswith(
                fold_prefix, line_start):
            # (turn 49) a line of the text's own that the launcher did not prefix (a PEM body's next line under
            # srun -l) goes on in a piece that carries the fold's prefix: the prefix goes with the break too
            same = len(fold_prefix)
        net = length - carried
        if length >= FOLD_MIN_LINE and (length == last_length or length == after or same and (
                net == last_net or net == after - same) or 0 < after < length and (
                lengths[k + 2:k + 3] == [length] or k >= 2 and lengths[k - 2] == length and lengths[k - 1] < length
                # (turn 49) or as long without its prefix as the line two before without its own (srun -l's `0: `
                # before a fold's pieces, not before the text's own next line)
                or k >= 2 and nets[k - 2] == net and lengths[k - 1] < length)
                ) and after > same:
            cuts.append((brk, i + 1 + same))
        nets.append(net)
        last_length, last_net, carried = length, net, same
        line_start = i + 1
    if not cuts:
        return None
    return _cut(base, cuts, None)


def _fold_prefix(text: str, line_start: int, next_start: int) -> int:
    """(leaks44) The length of the launcher prefix (``0: ``) that the line at ``line_start`` and the next both start
    with, else 0: the shorter of the two lines' prefixes when the other starts with it (a fold's piece may begin with a
    space of its own, ``0:  the run's``, which the prefix's pattern takes as the prefix's)."""
    if not _PREFIX:
        from kb.knowledge.precompiled import pattern

        _PREFIX.append(pattern(_LINE_PREFIX))
    here = _PREFIX[0].match(text, line_start)
    there = _PREFIX[0].match(text, next_start) if here is not None else None
    if there is None:
        return 0
    a, b = here.group(), there.group()
    short = a if len(a) <= len(b) else b
    return len(short) if a.startswith(short) and b.startswith(short) else 0


def _cut(base: View, cuts: list[tuple[int, int]], marked: set[int] | None) -> View:
    """``base`` without the (start, end) spans of ``cuts`` (sorted, disjoint: the breaks a wrap or a fold put in). With
    ``marked`` (the indexes of the cuts the text itself marks as continuations), the view records where each cut falls
    (its joins) and which of them are sure; without, it records none (a fold's view is masked line by line)."""
    text = base.text
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
    if marked is None:
        return View("".join(pieces), base, starts, parent_starts, parent_lens)
    return View("".join(pieces), base, starts, parent_starts, parent_lens, tuple(joins),
                frozenset(joins[k] for k in marked))

# (turn 40) a line the container runtime split into records: Kubernetes' CRI log (`<time> stderr P <part>`, the
# last part tagged F) and Docker's json-file log (a record's "log" without its closing \n, 16 KiB each)
_CRI_PARTIAL = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2}) (?:stdout|stderr) ([PF]) "
_DOCKER_TAIL = r'","stream":"(?:stdout|stderr)","time":"[0-9T:.+Z-]{10,40}"\}[ \t]*$'
_SPLIT: list[tuple[re.Pattern[str], re.Pattern[str]]] = []
_RECORD_ENDS = (-1, -1)  # _split_record's answer for a CRI record tagged F before another record: no cut there


def _split_record(text: str, line_start: int, brk: int, next_start: int) -> tuple[int, int] | None:
    """The cut that joins a container runtime's partial record to the next (its end, and the start of the next
    record's text), or None: a CRI line tagged P before one of the same form; a json-file record whose "log"
    does not end in ``\\n`` (or the error message kb took from one) before a record; _RECORD_ENDS for a CRI line
    tagged F before a CRI record (no cut may join them)."""
    if text.startswith('{"log":"', next_start):  # (the line may be a message that a record's text began)
        if not _SPLIT:
            _compile_split()
        tail = _SPLIT[0][1].search(text, line_start, brk)
        if tail is None or text.startswith("\\n", tail.start() - 2):
            return None
        return tail.start(), next_start + 8
    if brk - line_start < 34 or not text[line_start].isdigit():
        return None
    if not _SPLIT:
        _compile_split()
    here = _SPLIT[0][0].match(text, line_start, brk)
    if here is None:
        return None
    after = _SPLIT[0][0].match(text, next_start)
    if after is None:
        return None
    # (turn 42) a record tagged F ended its line: the next record's time, stream and tag are no launcher prefix that
    # the two lines share (a logging level after the time is), and its first word no rest of the line before's token
    return (brk, after.end()) if here.group(1) == "P" else _RECORD_ENDS


def _compile_split() -> None:
    from kb.knowledge.precompiled import pattern

    _SPLIT.append((pattern(_CRI_PARTIAL), pattern(_DOCKER_TAIL)))


KEYWORD_TAIL_MAX = 40  # (turn 42) a line's last characters searched for a rule's keyword that ends it


def _ends_in_keyword(text: str, line_start: int, end: int, inner: re.Pattern[str] | None) -> bool:
    """Whether the line ``text[line_start:end]`` ends in a token rule's keyword that ends in punctuation (Login with
    Amazon's ``Atzr|``, cut right after its ``|``): ``inner``, the rules' keyword screen, on its lower-cased tail."""
    if inner is None or text[end - 1] in TOKEN_CHARS or text[end - 1].isspace():
        return False
    tail = text[max(line_start, end - KEYWORD_TAIL_MAX):end].lower()
    if inner.search(tail) is None:  # (most lines: one scan of the tail, then no keyword is tried at each position)
        return False
    for at in range(len(tail) - 1, -1, -1):
        if tail[at].isspace():
            return False
        found = inner.match(tail, at)
        if found is not None and found.end() == len(tail):
            return True
    return False


def _head_before(text: str, line_start: int, end: int) -> bool:
    """(fuzz43) Whether the line ``text[line_start:end]`` ends in a word that reads as a token's head (12 or more
    letters and digits with both in it): the next line's ``!`` is then the token's (a Salesforce session id cut right
    before its ``!``, the rest on the next line after a launcher's prefix)."""
    n = 0
    digits = letters = False
    while end - 1 - n >= line_start and text[end - 1 - n].isascii() and text[end - 1 - n].isalnum():
        digits = digits or text[end - 1 - n].isdigit()
        letters = letters or text[end - 1 - n].isalpha()
        n += 1
    return n >= 12 and digits and letters


VALUE_WORD_MAX = 500  # (leaks44) how far back a line's last word is read for the quote that opened its value


def _closes_value(text: str, line_start: int, end: int, at: int) -> bool:
    """(leaks44) Whether the line at ``at`` starts with what closes the value that the line ``text[line_start:end]``
    ends in: a quote that the line's last word opened (``'9ci2LM4Kz`` / ``[rank0]: ' );``: the word holds an odd number
    of that quote) or an XML closing tag after a word that ends in an element's text (``<password>edukaOf`` /
    ``</password>``). A terminal's width cut the value right at its end, so the next line holds no token character."""
    quote = text[at]
    if quote not in "'\"<" or end <= line_start or text[end - 1] not in TOKEN_CHARS:
        return False
    start = end
    stop = max(line_start, end - VALUE_WORD_MAX)
    while start > stop and not text[start - 1].isspace():
        start -= 1
    if quote == "<":
        if not text.startswith("</", at):
            return False
        gt = text.rfind(">", start, end)
        return gt != -1 and all(c in TOKEN_CHARS for c in text[gt + 1:end])
    return text.count(quote, start, end) % 2 == 1


def _bang_inside_token(text: str, line_start: int, end: int) -> bool:
    """Whether the line ``text[line_start:end]`` ends in a ``!`` after a word that reads as a token's head, not a
    sentence's end: 12 or more letters and digits with both in it (a Salesforce session id, ``00D…!…``, cut
    right after its ``!``). ``Training failed!`` is not one."""
    if end - line_start < 13 or text[end - 1] != "!":
        return False
    n = 0
    digits = letters = False
    while end - 1 - n > line_start and text[end - 2 - n].isascii() and text[end - 2 - n].isalnum():
        digits = digits or text[end - 2 - n].isdigit()
        letters = letters or text[end - 2 - n].isalpha()
        n += 1
    return n >= 12 and digits and letters


def _relayed(text: str, line_start: int, next_start: int) -> bool:
    """Whether the next line starts with a launcher's bracketed prefix that the line lacks: the parser took the
    line's own off with the error's type, so the line was that much longer on the terminal that wrapped it."""
    if not text.startswith(("[", "("), next_start):
        return False
    if not _PREFIX:
        from kb.knowledge.precompiled import pattern

        _PREFIX.append(pattern(_LINE_PREFIX))
    # (turn 49: a line that starts with a name and a colon, `secret_access_key: ...`, has no bracketed prefix either)
    return (_PREFIX[0].match(text, next_start) is not None
            and (_PREFIX[0].match(text, line_start) is None or not text.startswith(("[", "("), line_start)))


def _keyword_inside(text: str, start: int, inner: re.Pattern[str]) -> bool:
    """Whether the word at ``start`` (its first 200 characters) holds a keyword of ``inner`` past its first
    character, and none at its first."""
    end = start
    limit = min(len(text), start + 200)
    while end < limit and not text[end].isspace():
        end += 1
    word = text[start:end].lower()
    if inner.match(word) is not None:  # (leaks46) a word that begins with a keyword (``htpasswd``, ``ghp_``) begins its
        return False  # own command or token: not a token's rest that a prose line's wrap cut from its head
    return inner.search(word, 1) is not None


def _cut_word(text: str, line_start: int, end: int,
              prefixes: tuple[frozenset[str], tuple[str, ...]] = (frozenset(), ()), extra: int = 0,
              folded: bool = False, strength: Callable[[str], str | None] | None = None) -> bool:
    """Whether the line ``text[line_start:end]`` may end inside a token: it is WRAP_MIN_LINE characters or
    longer, or its last word (no spaces) is WRAP_MIN_WORD or longer; and that word is not plain lower-case
    letters of 4 to 15 (``triggered``, ``failed``: a line that ends a sentence, not a cut key) unless it
    is the start of a token's prefix (``prefixes[0]``: ``e`` of ``eyJ``) or starts or ends with a prefix of
    plain letters (``prefixes[1]``: ``dapi``)."""
    n = 0
    plain = True
    while end - n > line_start and n < 16 and not text[end - n - 1].isspace():
        plain = plain and "a" <= text[end - n - 1] <= "z"
        n += 1
    if plain and n < 16:
        word = text[end - n:end]
        # the first letters of a key: a line of full width that ends in a word of 3 letters or less
        head = n <= 3 and (folded or end - line_start + extra >= WRAP_MIN_LINE)
        if (word not in prefixes[0] and not word.endswith(prefixes[1]) and not word.startswith(prefixes[1])
                and not head and not (strength is not None and _named_value(text, line_start, end - n, strength))):
            return False
    return folded or end - line_start + extra >= WRAP_MIN_LINE or n >= WRAP_MIN_WORD


RANDOM_REST_MIN = 24  # (turn 49) a next line's first word this long, drawn at random, may be the rest of a cut key


def _random_rest(text: str, line_start: int, end: int, at: int) -> bool:
    """(turn 49) Whether a line of full width that ends in a short word of plain letters (``zrcz``: it reads as prose) is
    cut inside a key: the next line starts with a word of RANDOM_REST_MIN characters or more of a key's characters
    (letters, digits, + /) with a digit and both cases, and no setting's ``=`` or ``:`` (the rest of an AWS secret
    key, ``2MbstNb/pGKIIYM5T77lzAZIH0rINrdyGECm``). The joined word must still match a rule across the join."""
    n = 0
    while end - n > line_start and n < 9 and not text[end - n - 1].isspace():
        n += 1
    if n > 8 or end - n == line_start:
        return False
    b = at
    while b < len(text) and b - at < 512 and (text[b].isalnum() or text[b] in "+/"):
        b += 1
    word = text[at:b]
    return (len(word) >= RANDOM_REST_MIN and (b == len(text) or text[b].isspace()) and any(c.isdigit() for c in word)
            and any(c.isupper() for c in word) and any(c.islower() for c in word))


NAMED_TAIL = 100  # (leaks45) how far back from a line's last word its name is looked for
_NAMED: list[re.Pattern[str]] = []


def _named_value(text: str, line_start: int, at: int, strength: Callable[[str], str | None]) -> bool:
    """(leaks45) Whether the word at ``at`` (a line's last) is a value beside a secret-like name: ``NAME=``, ``NAME = ``,
    ``name: ``, ``"name": "``, ``NAME ?= `` right before it, and ``strength`` (the key-name rule's) knows the name. A
    base64 key whose first 8 characters are letters of one case (``PrivateKey = aaaaaaab`` / ``1234...=``) reads as a
    sentence's last word otherwise. One anchored match on the line's last NAMED_TAIL characters."""
    i = at
    while i > line_start and at - i < 12 and text[i - 1] in "\"' \t":
        i -= 1
    if i == line_start or text[i - 1] not in "=:":  # (most lines: no separator right before their last word)
        return False
    if not _NAMED:
        from kb.knowledge.precompiled import pattern

        _NAMED.append(pattern(r"""(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]{0,63})["']?[ \t]{0,8}(?:[:?]?=|:)[ \t]{0,8}["']?$"""))
    start = max(line_start, at - NAMED_TAIL)
    found = _NAMED[0].search(text, start, at)
    return found is not None and strength(found.group(1)) is not None


def _same_prefix(text: str, line_start: int, next_start: int) -> int:
    """The length of the launcher prefix (``[rank0]: ``) that starts both the line at ``line_start`` and the
    next, else 0."""
    if not _PREFIX:
        from kb.knowledge.precompiled import pattern

        _PREFIX.append(pattern(_LINE_PREFIX))
    here = _PREFIX[0].match(text, line_start)
    if here is None:
        return 0
    prefix = here.group()
    return len(prefix) if text.startswith(prefix, next_start) else 0


def _break(text: str, i: int) -> int:
    """Where the line that the line end at ``i`` ends begins its break (a CRLF's CR)."""
    return i - 1 if i > 0 and text[i] == "\n" and text[i - 1] == "\r" else i


def _line_ends(text: str):  # -> Iterator[int]
    """The positions of the line ends of ``text``: each ``\\n`` and each carriage return not before one (a progress
    bar's or an old Mac's line end, which kb reads as a line end too). One pass: each ``find`` goes on from the last."""
    lf = text.find("\n")
    cr = text.find("\r")
    while lf != -1 or cr != -1:
        if cr != -1 and (lf == -1 or cr < lf):
            if cr + 1 < len(text) and text[cr + 1] == "\n":
                cr = text.find("\r", cr + 1)  # a CRLF: its LF is the line end
                continue
            yield cr
            cr = text.find("\r", cr + 1)
        else:
            yield lf
            lf = text.find("\n", lf + 1)


def _before_border(text: str, line_start: int, brk: int) -> tuple[int, bool]:
    """Where the line ``text[line_start:brk]`` ends before a panel's right border (`` │``, rich's tracebacks and
    consoles draw one), and whether it had one."""
    end = brk
    while end > line_start and text[end - 1] in " \t":
        end -= 1
    if end > line_start and text[end - 1] in _BORDERS:
        end -= 1
        while end > line_start and text[end - 1] in " \t":
            end -= 1
        return end, True
    return brk, False


def _continuation(text: str, line_start: int, next_start: int, bordered: bool, full: bool) -> int:
    """How much of the line at ``next_start`` comes before the rest of a token cut at the end of the line before:
    a launcher prefix both lines start with; a timestamp both start with (their times differ); a panel's left
    border when the line before ended in its right one; an indentation after a line of full width (``full``: what
    follows must still look like the rest of a token, _pieces)."""
    if not _START:
        from kb.knowledge.precompiled import pattern

        _START.append(pattern(_LINE_START))
    m = _START[0].match(text, next_start)
    if m is not None and m.group("time") is not None:  # (before the launcher prefix, which `2024-05-01T12:` is too)
        here = _START[0].match(text, line_start)
        if here is None or here.group("time") is None:
            return 0
        # (turn 42) and what both lines carry after their times: a logging format's level, `ERROR `, its logger's name
        return m.end() - next_start + _common_prefix(text, here.end(), m.end())
    same = _same_prefix(text, line_start, next_start)
    if same:  # (and what else both lines start with: `[12:00:01] INFO `)
        return max(same, _common_prefix(text, line_start, next_start))
    if m is not None and m.group("syslog") is not None:
        return m.end() - next_start
    if _relayed(text, line_start, next_start):  # a launcher's prefix on the next line only: the line before's was
        return _PREFIX[0].match(text, next_start).end() - next_start  # taken off with the error's type
    if text.startswith("... ", next_start) and text.startswith((">>> ", "... "), line_start):
        return 4  # Python's prompt: a statement's next line
    if m is not None:
        if m.group("border") is not None and bordered:
            return m.end() - next_start
        if m.group("indent") is not None and full:  # (leaks47: and a gutter after it, `cat -n`'s `     8<TAB>`)
            return max(m.end() - next_start, _common_prefix(text, line_start, next_start))
    return _common_prefix(text, line_start, next_start)


COMMON_PREFIX_MAX = 100  # a prefix both lines start with (a logger's, a quote's), this long at most
_PREFIX_ENDS = " \t|:]>)"


def _common_prefix(text: str, line_start: int, next_start: int) -> int:
    """The length of a prefix that the line at ``line_start`` and the next both start with, up to a separator
    (a space, `|`, `:`, `]`, `>`, `)`), with a character that is not a space in it: journald's ``May 01 12:00:00
    host python[1234]: ``, pytest's ``E   ``, a mail quote's ``> ``; a digit matches any digit (the next line's
    time differs), and a number matches a number of another width (fix48: a listing's line number that gains a
    digit, ``cat -n``'s ``     9<TAB>`` / ``    10<TAB>``, ``grep -n``'s ``9:`` / ``10:``, where a ``:`` after a digit
    is a separator though no space follows it); else 0. The length is the next line's prefix's."""
    line_end = next_start - 1
    end = len(text)
    i, j = line_start, next_start
    n = last = 0
    solid = False
    while n < COMMON_PREFIX_MAX and i < line_end and j < end:
        a, b = text[i], text[j]
        if a in "\r\n" or b in "\r\n":
            break
        if a != b and not (a.isdigit() and b.isdigit()):
            number = _number_end(text, line_start, i, line_end), _number_end(text, next_start, j, end)
            if number[0] is None or number[1] is None or not (a.isdigit() or b.isdigit()):
                break
            i, j = number  # (a right-aligned number's spaces, or a left-aligned one's digits, that the other lacks)
            n += 1
            solid = True
            continue
        i += 1
        j += 1
        n += 1
        solid = solid or not a.isspace()
        if a in _PREFIX_ENDS and solid and not (a == ":" and n < COMMON_PREFIX_MAX and i < line_end and j < end
                                                and not text[i].isspace() and not (i - 2 >= line_start and text[i - 2].isdigit())):
            last = j - next_start
    while last and next_start + last < j and text[next_start + last] in " \t":  # the separator's spaces go with it
        last += 1
    return last


def _number_end(text: str, start: int, at: int, end: int) -> int | None:
    """(fix48) Where the rest of a line number at ``at`` (in the line from ``start`` to ``end``) ends: the rest of its
    digits (none, right after its last), or a right-aligned field's spaces and then its digits; None when ``at`` is
    in no number (a space that is a separator, not a field's padding)."""
    k = at
    if at > start and text[at - 1].isdigit():
        while k < end and k - at < 12 and text[k].isdigit():
            k += 1
        return k
    while k < end and k - at < 12 and text[k] == " ":
        k += 1
    digits = k
    while k < end and k - digits < 12 and text[k].isdigit():
        k += 1
    return k if k > digits else None


def _glued_literal(text: str, line_start: int, end: int, nxt: int) -> tuple[int, int] | None:
    """(leaks47) The cut that joins a string literal ending the line (``end``) to the literal that starts the next:
    Python's and C's adjacent literals (``key="hf_abc"`` / ``    "def")``), JavaScript's and Java's ``+`` between
    them, a ``\\`` continuation; a token split in two literals by a line's width (black, an editor) is one string.
    From the closing quote to after the opening one (the same quote, after the next line's indentation, before a
    token's character); None when the line ends otherwise."""
    e = end
    while e > line_start and text[e - 1] in " \t":
        e -= 1
    if e > line_start and text[e - 1] in "+\\":
        e -= 1
        while e > line_start and text[e - 1] in " \t":
            e -= 1
    if e - line_start < 2 or text[e - 1] not in "\"'" or text[e - 2] not in TOKEN_CHARS:
        return None
    k = nxt + _indent(text, nxt)
    if k + 1 < len(text) and text[k] == text[e - 1] and (text[k + 1] in TOKEN_CHARS or text[k + 1] in "@:$"):
        return e - 1, k + 1
    return None


def _indent(text: str, at: int) -> int:
    n = 0
    while n < 40 and at + n < len(text) and text[at + n] in " \t":
        n += 1
    return n


def _name_cut(text: str, line_start: int, end: int, at: int, strength: Callable[[str], str | None]) -> bool:
    """(leaks45) Whether the setting that starts the line at ``at`` has a name that a wrap cut: the line before (of full
    width) ends in a word's head that, with the setting's name, is a secret-like name that the name alone is not
    (``--from-literal=hub_p`` / ``assword=VALUE``, ``auth.adminPasswor`` / ``d=VALUE``). An env dump's next line
    (``PATH=...`` after a line that ends in ``bin``) makes no such name."""
    head = end
    while head > line_start and end - head < 64 and (text[head - 1].isalnum() or text[head - 1] == "_"):
        head -= 1
    if head == end:
        return False
    m = _SETTING[0].match(text, at)
    name = m.group().rstrip(" \t=:") if m is not None else ""
    return bool(name) and strength(name) is None and strength(text[head:end] + name) is not None


TOKEN_HEAD_MIN = 8  # (leak49) a line's last token-shaped run this long or longer may be a token's head cut by a wrap
HEAD_TAIL = 16  # (leak49) the head's last characters, judged (a URL's or a path's words before a token's don't count)


def colon_name(text: str, at: int) -> int:
    """(leak49) The length of the setting's name that starts ``text`` at ``at`` when it is shorter than RANDOM_NAME_MIN
    and a colon follows it (after a base64 piece's ``=`` padding: ``l7Bb8871=: ...``), else 0."""
    if not _SETTING:
        from kb.knowledge.precompiled import pattern

        _SETTING.append(pattern(_SETTING_START))
    m = _SETTING[0].match(text, at)
    if m is None:
        return 0
    name = m.group().rstrip(" \t=:")
    after = at + len(name)
    while after < len(text) and after - at < RANDOM_NAME_MIN and text[after] == "=":
        after += 1
    return len(name) if len(name) < RANDOM_NAME_MIN and text.startswith(":", after) else 0


def token_head(text: str, line_start: int, end: int, most: int = 64) -> int:
    """(leak49) Where the token-shaped run (TOKEN_CHARS, ``most`` at most) that ends the line at ``end`` begins."""
    head = end
    while head > line_start and end - head < most and text[head - 1] in TOKEN_CHARS:
        head -= 1
    return head


def _short_token_rest(text: str, line_start: int, end: int, at: int) -> bool:
    """(leak49) Whether the setting that starts the line at ``at`` (``Uqms0L10KOl5I: unauthorized``) is the rest of a token
    that a wrap cut, not a name: its name is shorter than RANDOM_NAME_MIN (a longer one is judged by _random_name), a
    colon follows it, the line before ends in a token-shaped run (TOKEN_CHARS, TOKEN_HEAD_MIN or more, its last HEAD_TAIL
    characters with a digit, both cases or consonants drawn at random), and the name reads as drawn at random
    (_random_piece). ``RuntimeError: ...``, ``loss: 0.123``, ``model.layers.0.mlp: 12``, ``fp16: true`` stay names."""
    n = colon_name(text, at)
    if not n:
        return False
    name = text[at:at + n]
    head = token_head(text, line_start, end)
    tail = text[max(head, end - HEAD_TAIL):end]
    if end - head < TOKEN_HEAD_MIN:
        return False
    from kb.diagnose.redact.rules import consonant_runs

    return ((any(c.isdigit() for c in tail) or tail.lower() != tail != tail.upper() or consonant_runs(tail))
            and _random_piece(name, tail))


_VOWELS = "aeiouy"
_SHORT_WORDS = ("Id", "Of")  # (leak49) a name's words without a vowel after their capital (modelId, OutOfMemoryError)


def _random_piece(piece: str, tail: str) -> bool:
    """(leak49) Whether a short word (2 to 15 letters and digits, ``_`` or ``-``) reads as a piece of a random token, not
    a name: 8 characters or more whose character class changes at 25 % of its positions or more and whose runs of
    lower-case letters are shorter than 3 on average (rules.random_word's measure, without its entropy, low in any short
    word, and without its consonant runs, which a short word's few letters make by chance: ``ImportError``); or both
    cases, a capital past the first letter, and a capital's run of lower-case letters without a vowel (``KOl``, ``Ijs``;
    but ``Id``, ``Of``: _SHORT_WORDS), or two such runs counting the word's first, or one of 4 letters or more
    (``kvHeads``, ``bnbConfig`` have one short first one; ``RuntimeError``, ``warmupSteps`` none); or 6 letters and digits or more that change from one to the other 3 times or more
    (``e4ab0fc1``; not ``fp16``, ``seq2048``, ``mistral7b``), or once where the head's ``tail`` is of the same case and
    changes so 4 times or more (a one-case token's rest: ``...b0i9vc23i`` / ``kojdoq02``); or 8 letters or more of one
    case whose runs are consonants drawn at random (rules.consonant_runs)."""
    if len(piece) < 2 or not all(c.isascii() and (c.isalnum() or c in "_-") for c in piece):
        return False
    from kb.diagnose.redact.rules import consonant_runs

    kinds = [0 if c.isupper() else 1 if c.islower() else 2 for c in piece]
    runs = [len(r) for r in "".join(c if "a" <= c <= "z" else " " for c in piece).split()]
    if (len(piece) >= 8 and sum(a != b for a, b in zip(kinds, kinds[1:])) >= 0.25 * (len(piece) - 1)
            and (not runs or sum(runs) < 3 * len(runs))):
        return True
    letters = "".join(c for c in piece if c.isalpha())
    if any(c.isupper() for c in piece[1:]) and any(c.islower() for c in piece):
        bare: list[str] = []  # the runs of lower-case letters without a vowel, each with the capital before it
        segment, capital = "", ""
        for c in piece + "|":
            if c.isupper() or not c.isalpha():
                if segment and not any(v in segment for v in _VOWELS):
                    bare.append(capital + segment)
                segment, capital = "", c if c.isupper() else ""
            else:
                segment += c
        return len(bare) >= 2 or any(len(run) >= 4 or run[0].isupper() and run not in _SHORT_WORDS for run in bare)
    if piece.isalnum() and letters and any(c.isdigit() for c in piece):
        if len(piece) < 6:
            return False
        if sum(a.isdigit() != b.isdigit() for a, b in zip(piece, piece[1:])) >= 3:
            return True
        same_case = piece.islower() and tail.lower() == tail or piece.isupper() and tail.upper() == tail
        return same_case and tail.isalnum() and sum(a.isdigit() != b.isdigit() for a, b in zip(tail, tail[1:])) >= 4
    return len(letters) >= 8 and letters == piece and consonant_runs(piece.lower())


RANDOM_NAME_MIN = 16  # (turn 42) a setting's name this long or longer that reads as random is a token's rest


def _starts_setting(text: str, at: int, shell: bool = False) -> bool:
    """Whether the line at ``at`` starts a setting or a message (``NAME=value``, ``Name: value``), not the rest of a
    token: unless its name reads as drawn at random (_random_name): a token with a ``=`` inside (a Bitbucket access
    token's ``=`` and 8 hex digits) wrapped before it; after a shell's backslash right after a word (``shell``), unless
    its name is an identifier of one case (``WANDB_MODE``, ``max_steps``): ``w-jaItc=8F7CD1AD`` is the word's rest."""
    if not _SETTING:
        from kb.knowledge.precompiled import pattern

        _SETTING.append(pattern(_SETTING_START))
    m = _SETTING[0].match(text, at)
    if m is None:
        return False
    name = m.group().rstrip(" \t=:")
    if shell and not (name.isidentifier() and (name.isupper() or name.islower())):
        return False
    return not _random_name(name)


def _random_name(name: str) -> bool:
    """Whether a word is RANDOM_NAME_MIN characters or longer with upper and lower case and a digit in it, and its runs
    of lower-case letters are shorter than 3 on average (a random key's are ~1.7; a name made of words,
    ``maxPositionEmbeddings2``, has longer ones)."""
    if len(name) < RANDOM_NAME_MIN or name.isupper() or name.islower() or not any(c.isdigit() for c in name):
        return False
    runs = total = 0
    in_run = False
    for c in name:
        lower = "a" <= c <= "z"
        if lower:
            total += 1
            runs += not in_run
        in_run = lower
    return runs > 0 and total < 3 * runs

"""Text from the input made safe to show (issue 26, E1): the one sanitiser of everything kb writes for a person.

sanitize_for_terminal removes terminal escape sequences (OSC 52 clipboard writes, titles, hyperlinks, ESC c, cursor
moves; repeatedly: removing one can join the pieces around it into another) and writes every control character left
(backspace, carriage return, BEL, DEL, VT/FF, C1), every bidi override and zero-width character as a visible escape in
Python's spelling: "\\x1b" for ESC, "\\x9b" for a C1 control, "\\u202e" for a bidi or zero-width character. ASCII, so
it reads the same in every terminal and encoding, and a reader sees that something was there. escape_json_text does
the same for JSON text without changing its data (``\\uXXXX`` escapes); sanitize_data for every string of a document.

Every front end uses these: kb/cli's terminal boundary (kb/cli/output.py: every byte written to standard output or
error) and kb/notebook (a diagnosis's text, HTML and document), and kb/render/html.py escapes every string through
it. Here, low in the stack, so that one implementation serves both front ends (kb/cli may not be imported by
anything else). The patterns are compiled on first use through kb/knowledge/precompiled.py (diagnose's start-up).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from typing import Any

# What is escaped besides C0 (but "\n" and "\t"), DEL and C1: every format character (Unicode's Cf: the bidi
# controls ALM, LRM, RLM, LRE..RLO, LRI..PDI, zero-width characters, the tag characters that can spell hidden
# ASCII, the interlinear annotation marks, Arabic and Egyptian format signs), the line and paragraph separators
# (Zl, Zp), lone surrogates (Cs: a file name or argument that is not UTF-8; written raw they end the write in a
# UnicodeEncodeError), and Unicode's Default_Ignorable_Code_Point characters, which render as nothing but are not
# Cf: the Hangul fillers, the combining grapheme joiner, the Khmer inherent vowels, the Mongolian and the other
# variation selectors (runs of them smuggle hidden bytes). Written as regex escapes (ASCII source, no surrogate
# in it); tests/test_terminal_boundary.py checks it covers every Cc, Cf, Cs, Zl and Zp of the running Python.
_INVISIBLE = (
    r"\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u115f-\u1160\u17b4-\u17b5"
    r"\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
    r"\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
_CONTROLS = r"\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff" + _INVISIBLE
# CSI (ESC [ or C1 CSI, any private parameters); the string sequences OSC, DCS, SOS, PM, APC up to their
# terminator (BEL, ST), or, unterminated, up to the next ESC, C1 or line end (so each scan is bounded by
# the next introducer and the pattern stays linear); nF escapes (ESC ( B); every other two-character escape (ESC c).
_SEQUENCE = (
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x80-\x9f\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]+[0-~]?"
    r"|\x1b[0-~]"
)
MAX_STRIP_PASSES = 16  # nesting deeper than this is left to the escaping, which makes it inert anyway
_PATTERNS: dict[str, Any] = {}  # compiled on first use (not at import): most output needs only "control"


def _pattern(name: str) -> Any:
    found = _PATTERNS.get(name)
    if found is None:
        from kb.knowledge.precompiled import pattern

        found = _PATTERNS[name] = pattern({"control": f"[{_CONTROLS}]", "sequence": _SEQUENCE}[name])
    return found


def _visible(match: Any) -> str:
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def sanitize_for_terminal(text: str) -> str:
    """``text`` safe to write to a terminal: escape sequences removed until none is left, then every
    remaining control, bidi or zero-width character written as a visible escape ("\\x1b", "\\u202e").
    Newlines and tabs are kept. Text without any of these comes back unchanged (and fast)."""
    if text.isascii() and text.isprintable():
        return text
    control = _pattern("control")
    if control.search(text) is None:  # newlines, tabs, other spaces: nothing to do
        return text
    sequence = _pattern("sequence")
    for _ in range(MAX_STRIP_PASSES):
        stripped = sequence.sub("", text)
        if stripped == text:
            break
        text = stripped
    return control.sub(_visible, text)


def escape_json_text(text: str) -> str:
    """JSON text with the characters sanitize_for_terminal escapes as ``\\uXXXX`` escapes (json.dumps
    leaves DEL, C1, bidi and zero-width characters raw even with ensure_ascii). They occur only inside
    strings, where the escape decodes to the same character: the data is unchanged, the terminal safe."""
    if text.isascii() and "\x7f" not in text:
        return text  # json.dumps escaped every other control already
    return _pattern("control").sub(_json_escape, text)


def _json_escape(match: Any) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON spells a character past the BMP as its UTF-16 surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def sanitize_data(data: Any) -> Any:
    """``data`` (a JSON-like document) with every string, keys included, sanitize_for_terminal'd: what
    a text renderer reads, so no input text reaches the terminal unsanitized whatever the renderer does."""
    if isinstance(data, str):
        return sanitize_for_terminal(data)
    # (a printable ASCII str, most of a document, is kept without a call: sanitize_for_terminal keeps it as it is.
    # ASCII, not only printable: str.isprintable() is true of default-ignorable letters and marks that render as
    # nothing (the Hangul fillers U+115F, U+3164, U+FFA0, the variation selectors, the combining grapheme joiner),
    # which sanitize_for_terminal escapes; audit49 found them raw in the notebook's document)
    if isinstance(data, dict):
        return {k if type(k) is str and k.isascii() and k.isprintable() else sanitize_data(k):
                v if type(v) is str and v.isascii() and v.isprintable() else sanitize_data(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [v if type(v) is str and v.isascii() and v.isprintable() else sanitize_data(v) for v in data]
    return data

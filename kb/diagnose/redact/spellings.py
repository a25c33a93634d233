"""Escapes that ``views.decoded`` does not read (issue 26, turn 42), as one more view of a text.

A paste can spell a character in ways beyond JSON, URL and HTML's usual escapes: Perl's ``\\x{3d}``, Python's
``\\U0000003d``, an HTML numeric entity without its semicolon (``&#61``, ``&#x3D``: browsers read them), Markdown's
backslash before an underscore (a forum's editor writes ``HF\\_TOKEN``) and a form body's ``+`` for a space
(``urllib.parse.quote_plus``: ``DB_PASSWORD+%3D+value``). ``respelled`` decodes them once, position by position, so a
secret found in the view is masked in the original text; the caller decodes the result's other escapes.
"""

from __future__ import annotations

from kb.diagnose.redact.views import View, _replaced

_PATTERNS: list = []  # [without "+", with "+"]: compiled on first use (diagnose's start-up)
_FORM: list = []
_MARKS = ("\\x{", "\\U000", "\\_", "&#")
# (an entity without its ";" and followed by a digit is read as the shortest ASCII punctuation it can start: an encoder
# that leaves letters and digits as they are wrote &#61 then 1e0c..., not &#611)
_ESCAPES = (r"\\x\{[0-9a-fA-F]{1,6}\}|\\U00[01][0-9a-fA-F]{5}|&#(?:3[2-9]|4[0-7]|5[89]|6[0-4]|9[1-6]|12[3-6])(?=[0-9])"
            r"|&#[xX](?:2[0-9a-fA-F]|3[a-fA-F]|40|5[b-fB-F]|60|7[b-eB-E])(?=[0-9a-fA-F])|&#[0-9]{1,7}(?![0-9;])|&#[xX][0-9a-fA-F]{1,6}(?![0-9a-fA-F;])"
            r"|\\_")


def _form_body(text: str) -> bool:
    """Whether ``text`` holds a form body or a query string that quote_plus wrote: a value after ``=`` that holds a
    ``+`` (or several) before any space, then a letter, ``%`` or ``-`` (``text=python+train.py+--password+...``)."""
    if "+" not in text or "=" not in text:
        return False
    if not _FORM:
        from kb.knowledge.precompiled import pattern

        # (turn 49: spaces in a row are as many +, `wandb%3A+++db_password+...`, a W&B summary's aligned columns)
        _FORM.append(pattern(r"=[A-Za-z0-9%._~*-]{0,400}\+{1,64}[A-Za-z%-]"))  # (not 1e+03, loss=2.31+0.1)
    return _FORM[0].search(text) is not None


def _unescape(piece: str) -> str:
    if piece == "+":
        return " "
    if piece == "\\_":
        return "_"
    if piece[0] == "&":
        code = int(piece[3:], 16) if piece[2] in "xX" else int(piece[2:])
    elif piece[1] == "x":
        code = int(piece[3:-1], 16)
    else:
        code = int(piece[2:], 16)
    return chr(code) if 0 < code < 0x110000 and not 0xD800 <= code < 0xE000 else piece


def respelled(base: View) -> View | None:
    """``base`` with the escapes above decoded; None when it holds none."""
    text = base.text
    form = _form_body(text)
    if not form and not any(mark in text for mark in _MARKS):
        return None
    if not _PATTERNS:
        from kb.knowledge.precompiled import pattern

        _PATTERNS.extend((pattern(_ESCAPES), pattern(_ESCAPES + r"|\+")))
    return _replaced(base, _PATTERNS[form], _unescape)

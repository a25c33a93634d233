"""The notebook API shows nothing of the input raw that can drive a terminal or hide text (issue 26, E1; review47's
item 7).

Before: kb.diagnose_text(...)'s ``.text`` (``str()``, ``print()``, the ``_repr_pretty_`` a terminal IPython writes) and
``_repr_html_`` kept BEL, the 8-bit CSI U+009B, bidi overrides (U+202E, U+2066) and zero-width characters of the input
raw: the one sanitiser lived in kb/cli/output.py, which the notebook may not import. It is kb/render/sanitize.py now,
and every notebook output (the text, the HTML, the document's strings, the repr, a refusal's message) passes it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_terminal_boundary import FORBIDDEN, HOSTILE, PIECES, assert_safe

import kb
from kb.notebook.result import DiagnosisResult
from kb.render.html import format_diagnosis_html

# KB0001's message: the hostile pieces go into a known answer's quoted lines (its message, its frame, its code)
KNOWN = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float"


def traceback_with(piece: str) -> str:
    return ("Traceback (most recent call last):\n"
            f'  File "/tmp/t{piece}y.py", line 5, in <module>\n'
            f"    w(x) {piece}\n"
            f"{KNOWN} {piece}\n")


def strings(data: Any) -> list[str]:
    """Every string of a JSON-like document, keys included."""
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for k, v in data.items() for s in (*strings(k), *strings(v))]
    if isinstance(data, (list, tuple)):
        return [s for v in data for s in strings(v)]
    return []


class _Printer:
    def __init__(self) -> None:
        self.out: list[str] = []

    def text(self, text: str) -> None:
        self.out.append(text)


def every_output(result: DiagnosisResult) -> list[str]:
    printer = _Printer()
    result._repr_pretty_(printer, False)
    return [result.text, str(result), repr(result), result._repr_html_(), *printer.out,
            json.dumps(result.document, ensure_ascii=False), *strings(result.document)]


def test_the_reviews_reproduction_shows_nothing_raw() -> None:
    """review47's form: BEL, C1 CSI, RLO, LRI and a zero-width space in a frame's path, its code and the message."""
    log = ('Traceback (most recent call last):\n  File "/tmp/t\u202e\u200by.py", line 5, in <module>\n'
           '    w(x) \x9b31m \u2066\nRuntimeError: mat1\u202e\x07\x9b1m and mat2 must have the same dtype, '
           'but got Double and Float\n')
    result = kb.diagnose_text(log)
    for out in every_output(result):
        assert_safe(out)
    assert "\\u202e" in result.text and "\\x07" in result.text  # shown, as visible escapes
    assert "\\u202e" in result._repr_html_()


def test_a_known_answer_keeps_its_answer_and_shows_the_pieces_as_escapes() -> None:
    result = kb.diagnose_text(traceback_with("\u202e\x07\u200b"))
    assert result.top == "KB0001"
    for out in every_output(result):
        assert_safe(out)
    message = result.document["matches"][0]["error"]["message"]
    assert "\\u202e\\x07\\u200b" in message


@pytest.mark.parametrize("piece", PIECES)
def test_every_attack_piece_in_a_known_answer(piece: str) -> None:
    if "\x00" in piece:  # NULs: binary input, refused
        with pytest.raises(ValueError, match="binary"):
            kb.diagnose_text(traceback_with(piece))
        return
    result = kb.diagnose_text(traceback_with(piece))
    assert result.top == "KB0001"
    for out in every_output(result):
        assert_safe(out)


@given(HOSTILE, st.sampled_from(["text", "traceback", "bytes"]))
@settings(max_examples=40, deadline=None)
def test_no_notebook_output_holds_a_control_whatever_the_input(hostile: str, shape: str) -> None:
    """Whatever the input: no ESC, no C0 control but newline and tab, no DEL, C1, bidi or zero-width character in
    the text, the HTML, the repr, IPython's plain text or the document (its strings and its JSON)."""
    if shape == "text":
        text: str | bytes = f"{hostile}\n{KNOWN}{hostile}\n"
    elif shape == "traceback":
        text = traceback_with(hostile)
    else:
        text = traceback_with(hostile).encode("utf-8", "surrogatepass")
    try:
        result = kb.diagnose_text(text)
    except ValueError as exc:  # input kb refuses (binary): the message is shown too
        assert_safe(str(exc))
        return
    for out in every_output(result):
        assert_safe(out)


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
@settings(max_examples=40, deadline=None)
def test_any_unicode_in_a_traceback_shows_nothing_raw(noise: str) -> None:
    try:
        result = kb.diagnose_text(traceback_with(noise))
    except ValueError as exc:
        assert_safe(str(exc))
        return
    for out in every_output(result):
        assert_safe(out)


def _document(text: str) -> dict[str, Any]:
    """The document kb diagnose makes of ``text`` (not sanitized: what kb/render/html.py may be given)."""
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.diagnose.document import diagnosis_document
    from kb.knowledge.index import load_index

    return diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_index()))


def _poisoned(data: Any, hostile: str) -> Any:
    """``data`` with ``hostile`` after every string (but a match's kind, which the renderer branches on)."""
    if isinstance(data, str):
        return data + hostile
    if isinstance(data, dict):
        return {k: v if k == "kind" else _poisoned(v, hostile) for k, v in data.items()}
    if isinstance(data, list):
        return [_poisoned(v, hostile) for v in data]
    return data


KNOWN_DOC = _document(traceback_with("x"))
NO_MATCH_DOC = _document("ValueError: something kb knows nothing about\n")


@given(st.text(alphabet=st.sampled_from(sorted(FORBIDDEN)[:3000] + list("ab <>&\"'")), max_size=30))
@settings(max_examples=60, deadline=None)
def test_the_html_escapes_every_string_of_any_document(hostile: str) -> None:
    """kb/render/html.py on its own: a document whose every string (the knowledge's too: a title, a fix, a docs
    address) ends in the forbidden characters renders none of them raw."""
    assert KNOWN_DOC["matches"] and not NO_MATCH_DOC["matches"]
    for doc in (KNOWN_DOC, NO_MATCH_DOC):
        assert_safe(format_diagnosis_html(_poisoned(doc, hostile)))


def test_a_refusal_shows_nothing_raw() -> None:
    with pytest.raises(ValueError) as caught:
        kb.diagnose_text("\u202e\x07 \n\t\n")
    assert_safe(str(caught.value))

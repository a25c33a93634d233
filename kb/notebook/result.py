"""``kb.diagnose_text`` and ``kb.diagnose_exception``: kb's diagnosis for code (a notebook, a script).

Both run the engine `kb diagnose` runs (kb/diagnose: parse, match, rank; redaction included) on text in
memory, and return a :class:`DiagnosisResult`: the JSON document, the one-screen text, the top answer's
id, and HTML for Jupyter (its ``_repr_html_``), so a result as the last value of a cell shows itself.

Nothing of it can drive a terminal or hide text (issue 26, E1): a notebook's output reaches a terminal (a terminal
IPython writes ``_repr_pretty_``'s text; ``print(result)``, ``print(result.document["matches"][0]["message"])``), so
every string of the document, the text and the HTML pass kb/render/sanitize.py, the sanitiser `kb diagnose` writes
through: escape sequences removed, control, bidi and zero-width characters written as visible escapes (``\\x07``,
``\\u202e``).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TEXT_WIDTH = 80


class DiagnosisResult:
    """One diagnosis: ``document`` (the JSON document of docs/diagnose.md, every string sanitized), ``text`` (the
    one-screen text of `kb diagnose`), ``top`` (the top answer's id, e.g. ``"KB0001"`` or a family's name; None when
    nothing matched). ``str()`` is the text; Jupyter shows the HTML."""

    __slots__ = ("document", "text", "top")

    def __init__(self, document: dict[str, Any], width: int = TEXT_WIDTH) -> None:
        from kb.render.diagnosis import format_diagnosis
        from kb.render.sanitize import sanitize_data, sanitize_for_terminal

        _check_width(width)
        # as `kb diagnose` renders: the document's strings sanitized, then the text itself (the knowledge's too)
        self.document = document = sanitize_data(document)
        self.text = sanitize_for_terminal(format_diagnosis(document, width=width))
        matches = document.get("matches") or []
        self.top: str | None = matches[0]["id"] if matches else None

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        if self.top is None:
            return "<kb diagnosis: no known case or family>"
        m = self.document["matches"][0]
        name = f"{m['id']} {m['slug']}" if m["kind"] == "case" else f"family {m['id']}"
        return f"<kb diagnosis: {name} ({m.get('confidence')} confidence)>"

    def _repr_html_(self) -> str:
        from kb.render.html import format_diagnosis_html

        return format_diagnosis_html(self.document)  # (which escapes every string through the sanitiser too)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's plain-text form (a terminal IPython, the text/plain of a notebook output): the text."""
        printer.text(self.text.rstrip("\n"))


def diagnose_text(text: str | bytes, *, width: int = TEXT_WIDTH) -> DiagnosisResult:
    """Diagnose error output (a traceback, a log); raises ValueError for input kb cannot use (empty, binary)."""
    import io

    from kb.diagnose.diagnosis import diagnose_reader
    from kb.diagnose.document import diagnosis_document
    from kb.diagnose.input import LogReader, UnusableInput
    from kb.knowledge.index import load_index

    if not isinstance(text, (str, bytes)):
        raise TypeError(f"diagnose_text takes str or bytes, not {type(text).__name__}")
    _check_width(width)
    data = text.encode("utf-8", errors="replace") if isinstance(text, str) else text
    # The reader `kb diagnose` reads files with: its line caps and its checks for empty or binary input.
    reader = LogReader(io.BufferedReader(io.BytesIO(data)), "the text")  # type: ignore[arg-type]
    try:
        diagnosis = diagnose_reader(reader, load_index())
    except UnusableInput as exc:
        from kb.render.sanitize import sanitize_for_terminal

        raise ValueError(sanitize_for_terminal(str(exc))) from None
    return DiagnosisResult(diagnosis_document(diagnosis), width=width)


def _check_width(width: object) -> None:
    """``width`` as `kb diagnose --width` takes it: a whole number of at least 1 (audit49: a float, a string or None
    ended in the text renderer's own TypeError, "slice indices must be integers", and 0 or -5 were taken as 80)."""
    if isinstance(width, bool) or not isinstance(width, int):
        raise TypeError(f"width takes a whole number of columns, not {type(width).__name__}")
    if width < 1:
        raise ValueError(f"width must be at least 1 column, not {width}")


def exception_text(exc: BaseException) -> str:
    """``exc`` as Python prints it: the traceback, the chained causes and contexts, the notes."""
    import traceback

    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def diagnose_exception(exc: BaseException, *, width: int = TEXT_WIDTH) -> DiagnosisResult:
    """Diagnose an exception from its formatted traceback (with chained exceptions)."""
    if not isinstance(exc, BaseException):
        raise TypeError(f"diagnose_exception takes an exception, not {type(exc).__name__}")
    _check_width(width)
    return diagnose_text(exception_text(exc), width=width)

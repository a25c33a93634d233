"""The diagnosis as HTML, for Jupyter (kb/notebook): the one-screen answer of kb/render/diagnosis.py.

The same content as the text's one screen, in the same order: the headline, what happened, the input line
that decided it, the numbers from the user's evidence, the fix (whole, in a ``<pre>``: code in it must
paste as written), what else is possible, and where to read more, with a link to the docs page. The rows
are the text renderer's own, unwrapped: the browser wraps. Every string is escaped, whatever its source
(the input, the knowledge, the docs address), after kb/render/sanitize.py's sanitize_for_terminal: no control, bidi
or zero-width character of the input reaches the page raw (html.escape leaves them); a link is made only of an
http(s) address.
"""

from __future__ import annotations

from html import escape

from kb.render.diagnosis import _decided_by, _drift_block, _facts, _family_fix, _no_match, _others, _triage_label, confidence_label
from kb.render.sanitize import sanitize_for_terminal
from kb.render.text import plain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

WIDE = 100_000  # "columns" for the text helpers: nothing is wrapped or cut, the browser wraps
_COLOUR = {"high": "#2e7d32", "medium": "#b26a00", "low": "#757575"}
_BOX = ("border-left:4px solid {colour};padding:0.35em 0.9em;margin:0.5em 0;"
        "font-family:var(--jp-content-font-family, sans-serif);line-height:1.4")
_PRE = ("white-space:pre-wrap;margin:0.2em 0 0.4em 0;padding:0.4em 0.6em;"
        "background:rgba(127,127,127,0.08);border-radius:3px;font-size:0.92em")
_ROWS = "white-space:pre-wrap;margin:0.2em 0;font-family:var(--jp-code-font-family, monospace);font-size:0.92em"


def _e(text: object) -> str:
    return escape(sanitize_for_terminal(str(text)), quote=True)


def _link(url: str, label: str) -> str:
    """An anchor for an http(s) address, else the address as text (never a javascript: or data: link)."""
    if not url.lower().startswith(("https://", "http://")):
        return _e(url)
    return f'<a href="{_e(url)}" target="_blank" rel="noopener noreferrer">{_e(label)}</a>'


def _rows(rows: list[str]) -> str:
    text = "\n".join(row.rstrip() for row in rows).strip("\n")
    return f'<div style="{_ROWS}">{_e(text)}</div>' if text else ""


def _statement(m: dict[str, Any]) -> str:
    text = " ".join((m.get("summary") or m.get("title") or "").split())
    return f'<p style="margin:0.25em 0">{_e(text)}</p>' if text else ""


def _fix(m: dict[str, Any]) -> str:
    if m["kind"] == "case":
        if not (m.get("fix") or "").strip():
            return ""
        return f"<div><strong>fix:</strong></div><pre style=\"{_PRE}\">{_e(m['fix'].strip(chr(10)))}</pre>"
    label = _triage_label(m)
    rows = _family_fix(m, WIDE, budget=WIDE)
    return f"<div><strong>{_e(label)}</strong></div><pre style=\"{_PRE}\">{_e(chr(10).join(rows))}</pre>" if rows else ""


def _more(m: dict[str, Any]) -> str:
    docs = m.get("docs") or ""
    link = f" · {_link(docs, docs)}" if docs else ""
    return f'<p style="margin:0.3em 0 0 0">more: <code>{_e(m["more"])}</code>{link}</p>'


def format_diagnosis_html(doc: dict[str, Any]) -> str:
    """The one-screen diagnosis of ``doc`` (kb/diagnose/document.py's JSON document) as an HTML fragment."""
    matches = doc.get("matches") or []
    if not matches:
        box = _BOX.format(colour=_COLOUR["low"])
        return (f'<div class="kb-diagnosis" style="{box}"><div style="opacity:0.7;font-size:0.85em">kb</div>'
                f"{_rows(_no_match(doc, WIDE, plain))}</div>")
    m = matches[0]
    confidence = m.get("confidence") or ""
    label = f"{m['id']} {m['slug']}" if m["kind"] == "case" else f"family {m['id']}"
    parts = [
        f'<div class="kb-diagnosis" style="{_BOX.format(colour=_COLOUR.get(confidence, "#757575"))}">',
        '<div style="opacity:0.7;font-size:0.85em">kb</div>',
        f"<div><strong>{_e(label)}</strong>"
        f' <span style="color:{_COLOUR.get(confidence, "inherit")}">{_e(confidence_label(m))}</span></div>',
        _statement(m),
        _rows(_decided_by(m, WIDE)),
        _rows(_facts(m, WIDE)),
        _rows(_drift_block(m["drift"], WIDE)) if m.get("drift") else "",
        _fix(m),
        _rows(_others(doc, WIDE)),
        _more(m),
        "</div>",
    ]
    return "".join(part for part in parts if part)

"""The JSON document of `kb diagnose` (docs/diagnose.md): a stable interface.

Keys are only ever added, never renamed or removed, within a ``schema_version``. Everything that
came from the user's input is redacted (kb/diagnose/redact.py) before it is cut; text that comes
from the knowledge files (titles, fixes, triage) is printed as written.
"""

from __future__ import annotations

from kb import site_url
from kb.diagnose.answers import Answer, Candidate
from kb.diagnose.match import Match, fill_template, one_line, template_message
from kb.diagnose.priors import basis, prior_why
from kb.diagnose.errors import ParsedError
from kb.diagnose.redact import redact

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from typing import Any

    from kb.diagnose.diagnosis import Diagnosis
    from kb.knowledge.model import Case, Family, Knowledge

SCHEMA_VERSION = 2
MAX_ERRORS_LISTED = 20
MESSAGE_CHARS = 1000


def fill_keywords(text: str, chosen: dict[str, str]) -> str:
    """kb/diagnose/advice.py's fill_keywords, whose module is imported only for a text with a ``{kw:`` placeholder
    (without one it gives the text as it is)."""
    if "{kw:" not in text:
        return text
    from kb.diagnose.advice import fill_keywords as fill

    return fill(text, chosen)


def page_url(entry: Case | Family) -> str:
    """The entry's page on the docs site (kb/site: ``cases/<folder>/``, ``families/<name>/``)."""
    path = f"cases/{entry.folder_name}/" if entry.kind == "case" else f"families/{entry.key}/"  # type: ignore[union-attr]
    return site_url() + path


def user_frame(error: ParsedError) -> str | None:
    """The innermost frame that belongs to the user's code, not a library."""
    for frame in reversed(error.frames):
        if not frame.is_library:
            return redact(f"{frame.file}:{frame.line} in {frame.function}" + (f": {frame.code}" if frame.code else ""))
    return None


def library_frame(error: ParsedError) -> str | None:
    """The innermost frame overall (where the library raised), when it is not the user's."""
    if error.frames and error.frames[-1].is_library:
        f = error.frames[-1]
        return redact(f"{f.file}:{f.line} in {f.function}")
    return None


def type_meaning(error: ParsedError | None, knowledge: Knowledge) -> str | None:
    """What this exception type usually means (families/exception-types.toml), for errors nothing else explains."""
    if error is None:
        return None
    return knowledge.meanings.get(error.short_type)


def _why(m: Match) -> str:
    parts = [f"the message matches the {m.entry.kind}'s signature"]
    if any(e.startswith("exception type") and "is one" in e for e in m.evidence):
        parts.append(f"the exception type ({m.error.short_type}) is the one the {m.entry.kind} raises")
    if any(e.startswith("frame ") for e in m.evidence):
        parts.append("a traceback frame matches")
    if any(e.startswith("nearby line") for e in m.evidence):
        parts.append("a nearby line matches a hint")
    if any(e.startswith("environment:") for e in m.evidence):
        parts.append("the environment fits")
    text = f"{m.confidence} confidence: " + ", ".join(parts)
    if m.entry.kind == "family":
        text += "; no case's frames, nearby lines or environment single out one cause, so the triage below decides"
    demoted = [e[len("demoted: "):] for e in m.evidence if e.startswith("demoted: ")]
    if demoted:
        text += "; but " + demoted[0]
    return text


def _error_document(error: ParsedError) -> dict[str, Any]:
    message = redact(error.message)  # redacted whole, then cut: a cut first can leave most of a key
    template, _ = template_message(message)
    return {
        "type": redact(error.type),
        "message": one_line(message, MESSAGE_CHARS),
        "line": error.line_no,
        "rank": error.rank,
        "template": template,
        "noise": error.noise,
        "user_frame": user_frame(error),
    }


def _candidate_document(c: Candidate) -> dict[str, Any]:
    return {
        "id": c.case.id,
        "slug": c.case.slug,
        "title": c.case.title,
        "matched": c.match is not None,
        "score": c.match.score if c.match else None,
        "evidence": [redact(e) for e in c.match.evidence] if c.match else [],
        "more": f"kb show {c.case.id}",
    }


def _entry_fields(entry: Any) -> dict[str, Any]:
    """The answered entry's fields both answer documents open with (answer_document, _screen_answer), in that order."""
    return {
        "kind": entry.kind,
        "id": entry.key,
        "slug": entry.slug,
        "family": entry.family,
        "title": entry.title,
        "summary": entry.summary,  # what happened, in the knowledge's words (a family's: its summary)
    }


def answer_document(answer: Answer, drift_families: frozenset[str] = frozenset()) -> dict[str, Any]:
    m = answer.match
    entry = m.entry
    doc: dict[str, Any] = {
        **_entry_fields(entry),
        "score": m.score,
        "confidence": m.confidence,
        "why": redact(prior_why(m) or _why(m)),
        "basis": basis(answer),  # case > family-evidence > family-prior > family-keyword > family-learned (priors.BASES)
        "signature": m.signature.name,
        "error": _answer_error(m),
        "evidence": [redact(e) for e in m.evidence],
        "discriminators": list(m.discriminators),
        "captures": {k: redact(v) for k, v in m.captures.items()},
        # The template is the knowledge's own text: only the values filled into it are the user's.
        "fix": _fix(answer),
        # computed from the evidence (kb/diagnose/numbers.py): numbers only, from the knowledge's own text
        "numbers": list(answer.numbers),
        # the versions the fix is written for (kb/diagnose/advice.py); None when it names no version-dependent keyword
        "advice_for": answer.advice_for,
        # the memory planner's answer for an OOM whose log names the model (kb/diagnose/oomplan.py), else None
        "plan": answer.plan,
        "user_frame": user_frame(m.error),
        "raised_in": library_frame(m.error),
        "more": f"kb show {entry.key}",
        "docs": page_url(entry),
    }
    if answer.drift is not None or entry.family in drift_families:  # the API-drift stage (kb/diagnose/drift.py)
        doc["drift"] = answer.drift
    if entry.kind == "family":
        doc["triage"] = _triage(entry)  # type: ignore[arg-type]
        doc["candidates"] = [_candidate_document(c) for c in answer.candidates]
    return doc


def _answer_error(m: Match) -> dict[str, Any]:
    """An answer's ``error``: the error its signature matched."""
    return {
        "type": redact(m.error.type),
        "message": one_line(redact(m.error.message), MESSAGE_CHARS),
        "line": m.error.line_no,
        "rank": m.error.rank,
    }


def _fix(answer: Answer) -> str:
    """An answer's ``fix``: its entry's template filled with the user's values, redacted, and the keywords chosen
    for the user's versions."""
    m = answer.match
    return fill_keywords(fill_template(m.entry.fix_template,
                                       {k: redact(v) for k, v in {**m.environment, **m.captures}.items()}),
                         answer.keywords)


def _triage(family: Family) -> list[dict[str, Any]]:
    return [{"cause": t.cause, "tell": t.tell, "fix": t.fix, "case": t.case or None, "signatures": list(t.signatures)}
            for t in family.triage]


def _notes_with_machine(d: Diagnosis, matches: list[dict[str, Any]]) -> list[str]:
    """The diagnosis's notes; with `kb diagnose --env` (the machine's evidence, weighed before ranking) each match
    also gets its ``env`` and the machine's notes follow (diagnosis_document and screen_document alike)."""
    notes = list(d.notes)
    if d.machine is not None:
        for m in matches:
            m["env"] = d.machine.on(m["slug"])
        notes += d.machine.notes({m["slug"] for m in matches})
    return notes


def diagnosis_document(d: Diagnosis) -> dict[str, Any]:
    root = d.root_error
    root_doc = _error_document(root) if root else None
    if root_doc is not None:
        root_doc["meaning"] = type_meaning(root, d.knowledge)
    matches = [answer_document(a, d.knowledge.api_history_families) for a in d.answers]
    notes = _notes_with_machine(d, matches)
    doc = {
        "schema_version": SCHEMA_VERSION,
        "matches": matches,
        "errors_seen": d.errors_seen,
        "root_error": root_doc,
        "errors": [_error_document(e) for e in d.errors[:MAX_ERRORS_LISTED]],
        "environment": {k: redact(v) for k, v in d.environment.items()},
        "notes": notes,
    }
    if d.machine is not None:
        doc["env"] = d.machine.report
    return doc


# -- the one screen ------------------------------------------------------------------------------------
# `kb diagnose`'s text without --all is one screen (kb/render/diagnosis.py, format_diagnosis without ``full``), which
# prints a few of the document's fields: the top answer's, the other answers' names and confidence, the notes, and
# for no answer the root error and the facts read from the log. Building the rest (every other answer's why,
# evidence and fix, each error's template, the candidates' evidence: a redaction of each text, ~0.4 ms of a ~15 ms
# one-line run per answer left out) is work the screen never shows. screen_document builds only what it reads, each
# value as diagnosis_document gives it (the same functions); the JSON document, --all and every other caller keep
# diagnosis_document. tests/test_screen_document.py renders both for the examples and fixtures: the same text.

# the bases whose screen rows print the answer's first evidence line (render/diagnosis.py's _decided_by)
EVIDENCE_SHOWN = ("family-prior", "family-keyword", "family-learned")


def screen_document(d: Diagnosis) -> dict[str, Any]:
    """The fields of diagnosis_document(d) that the one-screen text reads, with the same values."""
    matches = [_screen_answer(a, d.knowledge.api_history_families) if i == 0 else _screen_other(a)
               for i, a in enumerate(d.answers)]
    root = d.root_error
    root_doc: dict[str, Any] | None = None
    if root is not None and matches:  # the screen reads only whether it is a follow-on error
        root_doc = {"noise": root.noise}
    elif root is not None:  # no answer: the screen says what the root error is and usually means
        root_doc = _error_document(root)
        root_doc["meaning"] = type_meaning(root, d.knowledge)
    notes = _notes_with_machine(d, matches)
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "matches": matches,
        "errors_seen": d.errors_seen,
        "root_error": root_doc,
        "notes": notes,
    }
    if not matches:  # (the facts read from the log are shown only then)
        doc["environment"] = {k: redact(v) for k, v in d.environment.items()}
    if d.machine is not None:
        doc["env"] = d.machine.report
    return doc


def _screen_answer(answer: Answer, drift_families: frozenset[str]) -> dict[str, Any]:
    """answer_document's fields that the screen prints for the top answer."""
    m = answer.match
    entry = m.entry
    doc: dict[str, Any] = {
        **_entry_fields(entry),
        "confidence": m.confidence,
        "basis": basis(answer),
        "signature": m.signature.name,
        "error": _answer_error(m),
        "discriminators": list(m.discriminators),
        "fix": _fix(answer),
        "numbers": list(answer.numbers),
        "advice_for": answer.advice_for,
        "plan": answer.plan,
        "user_frame": user_frame(m.error),
        "more": f"kb show {entry.key}",
        "docs": page_url(entry),
    }
    if doc["basis"] in EVIDENCE_SHOWN:
        doc["evidence"] = [redact(e) for e in m.evidence]
    if answer.drift is not None or entry.family in drift_families:
        doc["drift"] = answer.drift
    if entry.kind == "family":
        doc["triage"] = _triage(entry)  # type: ignore[arg-type]
        doc["candidates"] = [{"id": c.case.id, "slug": c.case.slug, "matched": c.match is not None}
                             for c in answer.candidates]
    return doc


def _screen_other(answer: Answer) -> dict[str, Any]:
    """An answer after the first, as the screen names it (``also possible: ...``)."""
    entry = answer.match.entry
    return {"kind": entry.kind, "id": entry.key, "slug": entry.slug, "confidence": answer.match.confidence}

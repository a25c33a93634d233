"""`kb diagnose`'s text: the JSON document (kb/diagnose/document.py) rendered for a person.

Two forms. The default is one screen, in the manner of rustc's error index: what happened, the line of
the input that decided it, the fix (with the user's numbers), how sure kb is, and where to read more;
at most ``MAX_LINES`` rows at any width, the fix starting within the first dozen. ``full`` is the whole
story: every answer with its evidence, a family's triage and generic fix, the API history, the notes.
The JSON document carries every field either way.
"""

from __future__ import annotations

from kb.render.text import one_line, physical_lines, plain, wrap_block

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Styler = Callable[[str, str], str]

MAX_LINES = 30  # rows of the one-screen answer, whatever the input
SUMMARY_LINES = 2
FIX_BY_ROW = 12
TRIAGE_SHOWN = 3
_CONFIDENCE_COLOUR = {"high": "32", "medium": "33", "low": "2"}


def format_diagnosis(doc: dict[str, Any], *, width: int = 80, full: bool = False, style: Styler = plain) -> str:
    """The diagnosis as text of ``width`` columns: one screen, or the whole story when ``full``."""
    width = max(width, 40)
    lines = _full(doc, width, style) if full else _one_screen(doc, width, style)
    return "\n".join(lines).rstrip("\n") + "\n"


# -- one screen ---------------------------------------------------------------------------------------

# (titles45, issue #24 items 3 and 5) An answer no signature gave says on its first row what it is a guess from: a
# title's words or the nearest labelled reports decide a family at low confidence, and the row says so before the fix.
GUESSED_FROM = {"family-keyword": "from the report's words only", "family-learned": "from similar reports only"}


def confidence_label(m: dict[str, Any]) -> str:
    """``low confidence``, and for an answer of a title's words or of the learned fallback, what it was guessed from."""
    confidence = m.get("confidence") or ""
    guessed = GUESSED_FROM.get(m.get("basis") or "")
    return f"{confidence} confidence" + (f", {guessed}" if guessed else "")


def _headline(m: dict[str, Any], style: Styler) -> str:
    label = f"{m['id']} {m['slug']}" if m["kind"] == "case" else f"family {m['id']}"
    confidence = m.get("confidence") or ""
    return style(label, "1") + "  " + style(confidence_label(m), _CONFIDENCE_COLOUR.get(confidence, "0"))


def _statement(m: dict[str, Any], width: int) -> list[str]:
    """What happened, in the knowledge's words: a case's summary (its title when it has none), a family's."""
    text = m.get("summary") or m["title"]
    lines = wrap_block(" ".join(text.split()), width)
    if len(lines) > SUMMARY_LINES:
        lines = lines[:SUMMARY_LINES]
        lines[-1] = one_line(lines[-1] + " …", width)
    return lines


def _decided_by(m: dict[str, Any], width: int) -> list[str]:
    """The input line that decided the answer, the user's own frame, and why, one row each."""
    error = m["error"]
    where = f"line {error['line']}" + (f", rank {error['rank']}" if error.get("rank") else "")
    rows = [one_line(f"  {where}: " + (f"{error['type']}: " if error["type"] else "") + error["message"], width)]
    if m.get("user_frame"):
        rows.append(one_line(f"  your code: {short_frame(m['user_frame'])}", width))
    if m.get("basis") in ("family-prior", "family-keyword", "family-learned") and m.get("evidence"):  # no signature: what decided it
        rows.append(one_line(f"  decided by: {m['evidence'][0]}", width))
        like = [e for e in m["evidence"] if e.startswith("similar report")] if m["basis"] == "family-learned" else []
        return rows + [one_line(f"  {like[0]}", width)] if like else rows  # the nearest labelled report's URL
    reasons = [r for r in m.get("discriminators") or [] if not r.startswith("the message itself")]
    specific = len(reasons) < len(m.get("discriminators") or [])
    why = ("a message specific to this case" if specific else f"the {m['kind']}'s message signature")
    rows.append(one_line(f"  matched: {why}" + "".join(f", {r}" for r in reasons), width))
    return rows


def short_frame(frame: str) -> str:
    """``file:line in function: code`` with the file cut to its last two path parts: the end of a path
    says where, its start (a home, a venv, a drive) does not."""
    head, sep, rest = frame.partition(" in ")
    path, colon, line = head.rpartition(":")
    if not sep or not colon or not line.isdigit():
        return frame
    parts = path.replace("\\", "/").split("/")
    if len(parts) > 3:
        path = "…/" + "/".join(parts[-2:])
    return f"{path}:{line} in {rest}"


def _facts(m: dict[str, Any], width: int) -> list[str]:
    """What kb computed from the user's evidence, most telling first: the versions the advice is written
    for, the planner's verdict on the run the log describes (and its first way to fit), then the numbers."""
    rows: list[str] = []
    if m.get("advice_for"):
        rows.append(one_line(f"  {m['advice_for']}", width))
    plan = m.get("plan")
    if isinstance(plan, dict) and plan.get("summary"):
        rows.extend(wrap_block(f"- {plan['summary']}", width, "  ")[:3])
        smallest = plan.get("smallest_change")
        if isinstance(smallest, dict) and smallest.get("change"):  # the smallest single change that fits
            peak = f": {smallest['peak_gib']:.2f} GiB" if isinstance(smallest.get("peak_gib"), (int, float)) else ""
            rows.extend(wrap_block(f"  to fit: {smallest['change']}{peak}", width, "  ")[:3])
        elif plan.get("advice"):
            rows.extend(wrap_block(f"  to fit: {plan['advice'][0]}", width, "  ")[:3])
    for number in (m.get("numbers") or [])[:3]:
        rows.extend(wrap_block(f"- {number}", width, "  ")[:2])
    return rows


def _drift_header(drift: dict[str, Any]) -> str:
    covered = str(drift.get("covered") or "").split(" (")[0]
    installed = f"; you have {drift['library']} {drift['installed']} ({drift['installed_from']})" \
        if drift.get("installed") else ""
    return f"API history ({covered}){installed}"


def _drift_fixes(drift: dict[str, Any], width: int) -> list[str]:
    """The history's fixes: port the code, or pin the releases it was written for (a command on a row of its
    own when the row is too long: it pastes whole)."""
    rows: list[str] = []
    for fix in drift.get("fixes", [])[:2]:
        prose, sep, code = fix.partition(": ")
        if len(fix) + 4 > width and sep and len(code) + 6 <= width:
            rows += [one_line(f"  > {prose}:", width), f"      {code}"]
        else:
            rows.extend(wrap_block(f"> {fix}", width, "  ")[:3])
    return rows


def _drift_facts(drift: dict[str, Any], width: int, most: int = 2) -> list[str]:
    rows: list[str] = []
    for fact in drift.get("facts", [])[:most]:
        rows.extend(wrap_block(f"- {fact}", width, "  ")[:2])
    return rows


def _case_fix(m: dict[str, Any], width: int, budget: int) -> list[str]:
    """The case's fix, wrapped, cut at a paragraph or list item if it exceeds ``budget`` rows."""
    rows = wrap_block(m["fix"] or "", width, "  ")
    return _cut(rows, budget, m["more"])


def _family_fix(m: dict[str, Any], width: int, budget: int) -> list[str]:
    """A family's triage: the causes whose case matched first, then the most common, each with its fix."""
    ids = {c["slug"]: c["id"] for c in m.get("candidates", []) if c.get("matched")}
    matched = set(ids)
    worded = m.get("signature")
    triage = sorted(m.get("triage", []), key=lambda t: (worded not in (t.get("signatures") or ()),
                                                        t.get("case") not in matched))
    rows: list[str] = []
    shown = 0
    for i, t in enumerate(triage, start=1):
        case = ids.get(t.get("case") or "")
        item = [one_line(f"  {i}. " + (f"[{case}, matched] " if case else "") + t["cause"], width)]
        if t.get("fix"):
            fix = wrap_block(f"   fix: {' '.join(t['fix'].split())}", width, "  ")
            item += fix if len(fix) <= 2 else [*fix[:1], one_line(fix[1] + " …", width)]
        if shown and len(rows) + len(item) > budget - 1:
            break
        rows.extend(item)
        shown += 1
        if shown == TRIAGE_SHOWN:
            break
    if shown < len(triage):
        rows.append(f"  ({len(triage) - shown} more causes: kb diagnose --all, or {m['more']})")
    return rows


def _triage_label(m: dict[str, Any]) -> str:
    if any(m.get("signature") in (t.get("signatures") or ()) for t in m.get("triage", [])):
        return "check, the cause your error's wording points to first:"
    if any(c.get("matched") for c in m.get("candidates", [])):
        return "check, the cause whose case matched first:"
    return "check, most common cause first:"


def _cut(rows: list[str], budget: int, more: str) -> list[str]:
    while rows and not rows[-1].strip():
        rows.pop()
    if len(rows) <= budget:
        return rows
    keep = budget - 1
    for i in range(keep, max(keep // 2, 1), -1):  # end before a blank line, a list item or a code block
        line = rows[i].strip() if i < len(rows) else ""
        if not line or line[:2] in ("- ", "* ") or line[:1].isdigit() or rows[i].startswith("      "):
            keep = i
            break
    kept = rows[:keep]
    while kept and not kept[-1].strip():
        kept.pop()
    return [*kept, f"  … the rest of the fix: {more}"]


def _one_screen(doc: dict[str, Any], width: int, style: Styler) -> list[str]:
    """The top answer on one screen. Order: what happened, what decided it, the fix, then what else."""
    if not doc["matches"]:
        return _no_match(doc, width, style)[:MAX_LINES]
    m = doc["matches"][0]
    drift = m.get("drift") or None
    head = [_headline(m, style), *_statement(m, width), *_decided_by(m, width)]
    head += _facts(m, width)[: max(FIX_BY_ROW - 1 - physical_lines(head, width), 0)]  # the fix by row FIX_BY_ROW
    tail = _others(doc, width) + _more(m, width)
    budget = MAX_LINES - len(head) - len(tail) - 1
    if m["kind"] == "case":
        # the history's facts and fixes for the name the log shows come after the case's own fix
        history = _drift_block(drift, width, style) if drift else []
        fix = _case_fix(m, width, budget - len(history))
        body = ([style("fix:", "1"), *fix] if fix else []) + history
    elif drift:  # a family answer the API history made precise: its fixes are the fix
        body = [style(f"fix, from the {_drift_header(drift)}:", "1"), *_drift_fixes(drift, width),
                *_drift_facts(drift, width)]
        if m.get("triage"):
            body.append(f"  (other causes of this family: kb diagnose --all, or {m['more']})")
    else:
        body = [style(_triage_label(m), "1"), *_family_fix(m, width, budget)]
    return _fit([*head, *body, *tail], width)


def _drift_block(drift: dict[str, Any], width: int, style: Styler = plain) -> list[str]:
    return [style(_drift_header(drift) + ":", "1"), *_drift_facts(drift, width), *_drift_fixes(drift, width)]


def _others(doc: dict[str, Any], width: int) -> list[str]:
    others = doc["matches"][1:]
    rows: list[str] = []
    if others:
        names = ", ".join(
            (f"{o['id']} {o['slug']}" if o["kind"] == "case" else f"family {o['id']}") + f" ({o.get('confidence')})"
            for o in others[:3]
        )
        rows.append(one_line(f"also possible: {names}; kb diagnose --all shows each", width))
    root = doc.get("root_error")
    for note in doc["notes"][:2]:
        rows.append(one_line(f"note: {note}", width))
    if root is not None and root.get("noise"):
        rows += wrap_block("Only follow-on errors were found; the error that started it is not in the input. Paste the "
                           "earlier output of the first process that failed (often prefixed [rankN]:).", width)
    return rows


def _more(m: dict[str, Any], width: int) -> list[str]:
    """Where to read more: the command and the page, never cut (a cut URL is no link)."""
    line = f"more: {m['more']}  ·  {m['docs']}"
    return [line] if len(line) <= width else [f"more: {m['more']}", f"  {m['docs']}"]


def _fit(lines: list[str], width: int) -> list[str]:
    """Drop rows from the end of the fix until the answer fits MAX_LINES terminal rows (long code rows
    take two)."""
    while physical_lines(lines, width) > MAX_LINES and len(lines) > 3:
        del lines[-3]
    return lines


def _no_match(doc: dict[str, Any], width: int, style: Styler) -> list[str]:
    root = doc["root_error"]
    env = doc.get("environment") or {}
    rows: list[str] = []
    if root is None:
        rows += wrap_block("No error found in the input (looked for Python tracebacks, `SomethingError: message` "
                           "lines, NCCL warnings and CUDA assertions).", width)
    elif root.get("noise"):
        rows.append(style("Only follow-on errors were found; the error that started it is not in the input.", "1"))
        rows.append(one_line(f"  {root['type']}: {root['message']}", width))
        rows += wrap_block(f"  ({root['noise']})", width)[:2]
        rows.append(one_line("  Paste the earlier output of the first process that failed (often prefixed "
                             "[rankN]:).", width))
    else:
        rows.append(style("No known case or family matches this error.", "1"))
        where = f"line {root['line']}" + (f", rank {root['rank']}" if root.get("rank") else "")
        rows.append(one_line(f"  {where}: {root['type'] or '(truncated traceback)'}: {root['message']}", width))
        if root.get("user_frame"):
            rows.append(one_line(f"  your code: {short_frame(root['user_frame'])}", width))
    if root and root.get("meaning"):
        rows += wrap_block(f"what it usually means: {root['meaning']}", width, "  ")[:4]
    if env:
        rows.append(one_line("  from the log: " + ", ".join(f"{k}={v}" for k, v in env.items()), width))
    rows.append("Run `kb list` and `kb list --families` to see what kb knows.")
    for note in doc["notes"][:3]:
        rows.append(one_line(f"note: {note}", width))
    return rows


# -- the whole story (--all) --------------------------------------------------------------------------

def _indent(text: str, prefix: str) -> str:
    """textwrap.indent for non-blank lines, without importing textwrap."""
    return "".join(prefix + line if line.strip() else line for line in text.splitlines(keepends=True))


def drift_lines(drift: dict[str, Any], style: Styler = plain) -> list[str]:
    """The text form of a match's API-history section."""
    installed = f"; installed: {drift['library']} {drift['installed']} (from {drift['installed_from']})" \
        if drift.get("installed") else ""
    rows = [style(f"   API history ({drift['covered']}){installed}:", "1")]
    rows += [f"     - {fact}" for fact in drift["facts"]]
    rows += [f"     > {fix}" for fix in drift["fixes"]]
    return rows


def _full(doc: dict[str, Any], width: int, style: Styler) -> list[str]:
    out: list[str] = []
    if not doc["matches"]:
        return _no_match(doc, width, style) + [f"note: {n}" for n in doc["notes"][3:]]
    for rank, m in enumerate(doc["matches"], start=1):
        out.append(f"{rank}. {_headline(m, style)} (score {m['score']:.2f})")
        out.append(f"   {m['title']}" + (f"  (family: {m['family']})" if m["kind"] == "case" else ""))
        if m.get("summary"):
            out.append(_indent(m["summary"].strip(), "   "))
        where = f"line {m['error']['line']}" + (f", rank {m['error']['rank']}" if m["error"].get("rank") else "")
        out.append(f"   error ({where}): {m['error']['type']}: {m['error']['message'][:300]}")
        if m["user_frame"]:
            out.append(f"   your code: {m['user_frame']}")
        if m.get("raised_in"):
            out.append(f"   raised in: {m['raised_in']}")
        if m.get("why"):
            out.append(f"   why: {m['why']}")
        out.append("   evidence:")
        out += [f"     - {line}" for line in m["evidence"]]
        facts = _facts(m, width - 3)
        if facts:
            out.append("   from your numbers:")
            out += ["   " + row for row in facts]
        if m.get("drift"):  # facts from the API history (kb/diagnose/drift.py)
            out += drift_lines(m["drift"], style)
        if m["kind"] == "family":
            out += _triage(m, style)
        if m["fix"]:
            out.append(style("   fix:" if m["kind"] == "case" else "   generic fix:", "1"))
            out.append(_indent(m["fix"].strip(), "     "))
        out.append(f"   more: {m['more']}  ·  {m['docs']}")
        out.append("")
    root = doc["root_error"]
    noise = [e for e in doc.get("errors", []) if e.get("noise")]
    env = doc.get("environment") or {}
    if root is not None and root.get("noise"):
        out.append(style("Only follow-on errors were found; the error that started it is not in the input.", "1"))
        out.append("  Paste the earlier output of the first process that failed (often prefixed [rankN]:).")
    elif root is not None and doc["matches"][0]["error"]["line"] != root["line"]:
        out.append(f"root error of the log (line {root['line']}): {root['type']}: {root['message'][:200]}")
    if noise:
        kinds = sorted({e["type"].rsplit(".", 1)[-1] for e in noise})
        out.append(f"ignored as follow-on noise: {len(noise)} error(s) ({', '.join(kinds)})")
    if env:
        out.append("from the log: " + ", ".join(f"{k}={v}" for k, v in env.items()))
    out += [f"note: {note}" for note in doc["notes"]]
    return out


def _triage(m: dict[str, Any], style: Styler) -> list[str]:
    """A family answer's causes, most frequent first, and the cases whose signature matched."""
    rows: list[str] = []
    matched = {c["slug"]: c for c in m["candidates"] if c["matched"]}
    if matched:
        names = ", ".join(f"{c['id']} {c['slug']}" for c in matched.values())
        rows.append(f"   cases whose message matched, without evidence that singles one out: {names}")
    rows.append(style("   check, most common cause first:", "1"))
    for i, t in enumerate(m["triage"], start=1):
        case = t.get("case")
        mark = ""
        if case:
            found = next((c for c in m["candidates"] if c["slug"] == case), None)
            mark = f"  [{found['id'] if found else case}{', matched' if case in matched else ''}]"
        rows.append(f"     {i}. {t['cause']}{mark}")
        rows.append(_indent(f"tell: {t['tell'].strip()}", "        "))
        if t.get("fix"):
            rows.append(_indent(f"fix: {t['fix'].strip()}", "        "))
    return rows

"""`kb diagnose`'s text output: the JSON document (kb/diagnose/document.py) rendered for a person.

Rendering belongs to the CLI: the diagnose engine returns one document, text and JSON are its two forms."""

from __future__ import annotations

from kb.cli.output import Style

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _indent(text: str, prefix: str) -> str:
    """textwrap.indent for non-blank lines, without importing textwrap."""
    return "".join(prefix + line if line.strip() else line for line in text.splitlines(keepends=True))


def print_drift(drift: dict[str, Any], style: Style) -> None:
    """The text form of a match's API-history section."""
    installed = f"; installed: {drift['library']} {drift['installed']} (from {drift['installed_from']})" \
        if drift.get("installed") else ""
    print(style(f"   API history ({drift['covered']}){installed}:", "1"))
    for fact in drift["facts"]:
        print(f"     - {fact}")
    for fix in drift["fixes"]:
        print(f"     > {fix}")


_CONFIDENCE_COLOUR = {"high": "32", "medium": "33", "low": "2"}


def print_diagnosis(doc: dict[str, Any], style: Style) -> None:
    """Human output of `kb diagnose` (the JSON document, rendered; colour only on a TTY)."""
    root = doc["root_error"]
    noise = [e for e in doc.get("errors", []) if e.get("noise")]
    env = doc.get("environment") or {}
    if not doc["matches"]:
        if root is None:
            print("No error found in the input (looked for Python tracebacks, `SomethingError: message` lines,")
            print("NCCL warnings and CUDA assertions).")
        elif root.get("noise"):
            print(style("Only follow-on errors were found; the error that started it is not in the input.", "1"))
            print(f"  {root['type']}: {root['message'][:200]}")
            print(f"  ({root['noise']})")
            print("  Paste the earlier output of the first process that failed (often prefixed [rankN]:).")
        else:
            print(style("No known case or family matches this error.", "1"))
            where = f"line {root['line']}" + (f", rank {root['rank']}" if root.get("rank") else "")
            print(f"  root error ({where}): {root['type'] or '(truncated traceback)'}: {root['message'][:300]}")
            if root.get("user_frame"):
                print(f"  your code: {root['user_frame']}")
        if root and root.get("meaning"):
            print(f"  what it usually means: {root['meaning']}")
        if env:
            print("  from the log: " + ", ".join(f"{k}={v}" for k, v in env.items()))
        print("Run `kb list` and `kb list --families` to see what kb knows.")
        for note in doc["notes"]:
            print(f"note: {note}")
        return
    for rank, m in enumerate(doc["matches"], start=1):
        confidence = m.get("confidence", "")
        label = f"{m['id']} {m['slug']}" if m["kind"] == "case" else f"family {m['id']}"
        print(style(f"{rank}. {label}", "1") + "  "
              + style(f"{confidence} confidence", _CONFIDENCE_COLOUR.get(confidence, "0")) + f" (score {m['score']:.2f})")
        print(f"   {m['title']}" + (f"  (family: {m['family']})" if m["kind"] == "case" else ""))
        if m["kind"] == "family":
            print(_indent(m["summary"].strip(), "   "))
        where = f"line {m['error']['line']}" + (f", rank {m['error']['rank']}" if m["error"].get("rank") else "")
        print(f"   error ({where}): {m['error']['type']}: {m['error']['message'][:300]}")
        if m["user_frame"]:
            print(f"   your code: {m['user_frame']}")
        if m.get("raised_in"):
            print(f"   raised in: {m['raised_in']}")
        if m.get("why"):
            print(f"   why: {m['why']}")
        print("   evidence:")
        for line in m["evidence"]:
            print(f"     - {line}")
        if m.get("drift"):  # facts from the API history (kb/diagnose/drift.py)
            print_drift(m["drift"], style)
        if m["kind"] == "family":
            _print_triage(m, style)
        if m["fix"]:
            print(style("   fix:" if m["kind"] == "case" else "   generic fix:", "1"))
            print(_indent(m["fix"].strip(), "     "))
        print(f"   more: {m['more']}  ·  {m['docs']}")
        print()
    if root is not None and root.get("noise"):
        print(style("Only follow-on errors were found; the error that started it is not in the input.", "1"))
        print("  Paste the earlier output of the first process that failed (often prefixed [rankN]:).")
    elif root is not None and doc["matches"][0]["error"]["line"] != root["line"]:
        print(f"root error of the log (line {root['line']}): {root['type']}: {root['message'][:200]}")
    if noise:
        kinds = sorted({e["type"].rsplit(".", 1)[-1] for e in noise})
        print(f"ignored as follow-on noise: {len(noise)} error(s) ({', '.join(kinds)})")
    if env:
        print("from the log: " + ", ".join(f"{k}={v}" for k, v in env.items()))
    for note in doc["notes"]:
        print(f"note: {note}")


def _print_triage(m: dict[str, Any], style: Style) -> None:
    """A family answer's causes, most frequent first, and the cases whose signature matched."""
    matched = {c["slug"]: c for c in m["candidates"] if c["matched"]}
    if matched:
        names = ", ".join(f"{c['id']} {c['slug']}" for c in matched.values())
        print(f"   cases whose message matched, without evidence that singles one out: {names}")
    print(style("   check, most common cause first:", "1"))
    for i, t in enumerate(m["triage"], start=1):
        case = t.get("case")
        mark = ""
        if case:
            found = next((c for c in m["candidates"] if c["slug"] == case), None)
            mark = f"  [{found['id'] if found else case}{', matched' if case in matched else ''}]"
        print(f"     {i}. {t['cause']}{mark}")
        print(_indent(f"tell: {t['tell'].strip()}", "        "))
        if t.get("fix"):
            print(_indent(f"fix: {t['fix'].strip()}", "        "))


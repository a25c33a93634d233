"""The index pages (cases, errors, libraries, hardware) and the home page's generated tables."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Iterable

from kb.knowledge.model import Case
from kb.reproduce.profiles import PROFILES
from kb.site.markdown import md_escape
from kb.reproduce.verification import CPU_ONLY, NO_REPRODUCTION, UNVERIFIED, VERIFIED_GPU, Verification, verification


from kb.site.case_page import CASES_DIR, _link
from kb.site.markdown import front_matter as _front_matter

# --- index pages -------------------------------------------------------------------------------


def _row(case: Case, status: Verification, from_dir: str = "") -> str:
    return (f"| {_link(case, from_dir)} | {md_escape(case.title)} | {case.status} | "
            f"{status.state} | {', '.join(case.libraries)} | {', '.join(case.hardware)} |")


_TABLE_HEAD = "| case | error | status | verification | libraries | hardware |\n| --- | --- | --- | --- | --- | --- |"


def cases_index(cases: Iterable[Case], statuses: dict[str, Verification]) -> str:
    rows = [_row(c, statuses[c.id], CASES_DIR) for c in cases]
    body = [_front_matter({"title": "All cases"}), "# All cases", "",
            "Every case in the knowledge base, by ID. Retired cases stay listed.", ""]
    body += [_TABLE_HEAD, *rows] if rows else ["_No cases yet._"]
    return "\n".join(body) + "\n"


_HEADLINE_TYPE = re.compile(r"^(?:[A-Za-z_][\w]*\.)*(?P<name>[A-Z]\w*(?:Error|Exception|Warning|Interrupt))\b")


def _exception_names(case: Case) -> list[str]:
    """The exception a user sees: the headline's (``torch.cuda.OutOfMemoryError: ...``), else the signatures'."""
    m = _HEADLINE_TYPE.match(case.title)
    if m:
        return [m["name"]]
    names = {e.rsplit(".", 1)[-1] for sig in case.signatures for e in sig.exceptions}
    return sorted(names) or ["(no exception: a silent failure)"]


def errors_index(cases: Iterable[Case]) -> str:
    groups: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        for name in _exception_names(case):
            groups[name].append(case)
    out = [_front_matter({"title": "By error message"}), "# By error message", "",
           "Cases grouped by the exception in their error headline (for a case without one, the types "
           "`kb diagnose` matches). Pasting the error into the search box finds the case page directly.", ""]
    for name in sorted(groups):
        out += [f"## {md_escape(name)}", ""]
        for case in groups[name]:
            out.append(f"- {_link(case)}: {md_escape(case.title)}")
        out.append("")
    return "\n".join(out if groups else out + ["_No cases yet._", ""])


def libraries_index(cases: Iterable[Case]) -> str:
    groups: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        for lib in case.libraries or ("(none recorded)",):
            groups[lib].append(case)
    out = [_front_matter({"title": "By library"}), "# By library", ""]
    for lib in sorted(groups, key=str.lower):
        out += [f"## {md_escape(lib)}", ""]
        out += [f"- {_link(c)}: {md_escape(c.title)}" for c in groups[lib]]
        out.append("")
    return "\n".join(out if groups else out + ["_No cases yet._", ""])


def hardware_index(cases: Iterable[Case], statuses: dict[str, Verification]) -> str:
    cases = list(cases)
    out = [_front_matter({"title": "By hardware profile"}), "# By hardware profile", "",
           "A profile is what a reproduction runs on (`kb/reproduce/profiles.py`). Emulated profiles cap a larger "
           "GPU's memory to fail like a small one; pages say so.", ""]
    names = list(PROFILES) + sorted({h for c in cases for h in c.hardware} - set(PROFILES))
    for name in names:
        profile = PROFILES.get(name)
        members = [c for c in cases if name in c.hardware]
        out += [f"## `{name}`", ""]
        if profile:
            out.append(profile.description + (f". **Emulated:** {profile.emulates}." if profile.emulates else "."))
        else:
            out.append("_Not a profile kb/reproduce/profiles.py knows._")
        out.append("")
        for c in members:
            verified = name in statuses[c.id].verified_profiles
            out.append(f"- {_link(c)}: {md_escape(c.title)} ({'verified on this profile' if verified else 'not verified on this profile'})")
        if not members:
            out.append("_No case declares this profile._")
        out.append("")
    return "\n".join(out)


def incidents_table(cases: Iterable[Case]) -> str:
    """The incident reports the cases cite, each linking its page, with the cases that came from it."""
    from kb.site.incident_page import cited_incidents, incident_page_path, stories

    cited = cited_incidents(cases)
    if not cited:
        return "_No case cites an incident report yet._\n"
    told = stories()
    rows = ["| incident | what happened | cases |", "| --- | --- | --- |"]
    for name in sorted(cited):
        title = told[name]["title"] if name in told else name
        what = md_escape(told[name]["summary"].strip()) if name in told else "; ".join(
            dict.fromkeys(md_escape(c.setting) for c in cited[name] if c.setting))
        rows.append(f"| [{md_escape(title)}]({incident_page_path(name)}) | {what} | "
                    + ", ".join(_link(c) for c in cited[name]) + " |")
    return "\n".join(rows) + "\n"


def counts_line(cases: Iterable[Case], statuses: dict[str, Verification]) -> str:
    cases = list(cases)
    by_state: dict[str, int] = defaultdict(int)
    for c in cases:
        by_state[statuses[c.id].state] += 1
    words = {VERIFIED_GPU: "verified on GPU", CPU_ONLY: "verified on CPU only", UNVERIFIED: "unverified",
             NO_REPRODUCTION: "without a reproduction"}
    order = list(words)
    detail = ", ".join(f"{by_state[s]} {words.get(s, s)}" for s in sorted(by_state, key=lambda s: (order.index(s) if s in order else len(order), s)))
    return f"{len(cases)} cases" + (f" ({detail})" if detail else "") + "."


def home_inserts(cases: Iterable[Case]) -> dict[str, str]:
    """Text for the ``<!-- kb:NAME -->`` markers of the hand-written home page."""
    cases = list(cases)
    statuses = {c.id: verification(c) for c in cases}
    return {"counts": counts_line(cases, statuses), "incidents": incidents_table(cases)}

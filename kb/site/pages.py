"""Markdown pages for the docs site, generated from the case folders at build time.

Nothing here is written to ``docs/``: the mkdocs hook (``docs/hooks/kb_pages.py``)
calls :func:`site_pages` and hands the text to mkdocs as generated files, so a
case's page always shows its current ``case.md``, programs and ``evidence/``.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterable

from kb.knowledge.model import Case
from kb.knowledge.load import REQUIRED_SECTIONS
from kb.reproduce.evidence import EVIDENCE_DIR, observed
from kb.reproduce.profiles import PROFILES
from kb.site.family_page import FAMILIES_DIR, families_index, family_link, family_page, family_page_path
from kb.site.markdown import fence, md_escape
from kb.site.render import program_diff
from kb.diagnose.textclean import ANSI
from kb.reproduce.verification import CPU_ONLY, NO_REPRODUCTION, UNVERIFIED, VERIFIED_GPU, Verification, verification

CASES_DIR = "cases"  # where the case pages live in the site
SYMPTOM_LINES = 40  # lines of a recorded log shown as the symptom
CASE_SEARCH_BOOST = 3  # case pages outrank the indexes that repeat their headlines
INCIDENT_PREFIX = "../shared/incidents/"

_ADMONITION = {VERIFIED_GPU: "success", CPU_ONLY: "info"}
_CASE_LINK = re.compile(r"\]\((?:\.\./)?(KB\d{4}-[a-z0-9-]+)/case\.md(#[^)]*)?\)")


def page_path(case: Case) -> str:
    """The case page's path inside the docs (``cases/KB0001-dtype-double-vs-float.md``)."""
    return f"{CASES_DIR}/{case.folder_name}.md"


def _link(case: Case, from_dir: str = "") -> str:
    target = page_path(case)
    if from_dir == CASES_DIR:
        target = target.split("/", 1)[1]
    return f"[{case.id}]({target})"


def _front_matter(data: dict[str, Any]) -> str:
    # JSON is valid YAML; it quotes every string safely.
    lines = [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in data.items()]
    return "---\n" + "\n".join(lines) + "\n---\n"


def _rewrite_case_links(markdown: str) -> str:
    """Links between case folders (``../KB0003-x/case.md``) point at the pages instead."""
    return _CASE_LINK.sub(lambda m: f"]({m[1]}.md{m[2] or ''})", markdown)


_CASE_ID = re.compile(r"(?<![\w\[/-])(KB\d{4})(?![\w\]-])")


def link_case_ids(markdown: str, known: dict[str, str], self_id: str = "") -> str:
    """Turn plain mentions of other cases (``see KB0003``) into links to their pages.

    ``known`` maps IDs to folder names. Fenced blocks, inline code and existing links are
    left alone; unknown IDs stay plain text (a link to a missing page fails the strict build).
    """
    out, in_fence = [], False
    for line in markdown.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        if in_fence or "KB" not in line:
            out.append(line)
            continue
        parts = line.split("`")
        for i in range(0, len(parts), 2):  # even parts are outside inline code
            parts[i] = _CASE_ID.sub(
                lambda m: f"[{m[1]}]({known[m[1]]}.md)" if m[1] in known and m[1] != self_id else m[0], parts[i]
            )
        out.append("`".join(parts))
    return "\n".join(out)


# --- the symptom -------------------------------------------------------------------------------


def _log_excerpt(log: str, limit: int = SYMPTOM_LINES) -> str:
    """The traceback (from its last ``Traceback`` line) or the log's tail, at most ``limit`` lines."""
    lines = [ANSI.sub("", line).rstrip() for line in log.splitlines()]
    starts = [i for i, line in enumerate(lines) if line.lstrip().startswith("Traceback (most recent call last)")]
    if starts:
        lines = lines[starts[-1]:]
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) > limit:
        lines = ["[... earlier lines omitted ...]", *lines[-limit:]]
    return "\n".join(lines)


def latest_symptom_run(case: Case, runs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The newest failing run that reproduced, preferring the case's first reproduction."""
    reproduced = [r for r in runs if r.get("program") == "failing" and r.get("passed")]
    if case.reproductions:
        first = [r for r in reproduced if r.get("reproduction") == case.reproductions[0].name]
        reproduced = first or reproduced
    return reproduced[0] if reproduced else None  # runs come newest first


def symptom_section(case: Case, runs: list[dict[str, Any]], prose: Callable[[str], str] = str.strip) -> str:
    incident = prose(case.sections.get("Symptom", ""))
    run = latest_symptom_run(case, runs)
    out = ["## Symptom", ""]
    log_path = case.path / EVIDENCE_DIR / str(run.get("log", "")) if run else None
    if run and log_path and log_path.is_file():
        where = run.get("gpu") or run.get("cpu") or "unknown hardware"
        emulated = f", emulated: {run['emulated']}" if run.get("emulated") else ""
        out += [
            f"From the latest recorded run (reproduction `{run.get('reproduction')}`, profile "
            f"`{run.get('profile')}` on {where}{emulated}, {str(run.get('date', ''))[:10]}; "
            f"`{case.folder_name}/{EVIDENCE_DIR}/{run.get('log')}`):",
            "",
            fence(_log_excerpt(log_path.read_text(encoding="utf-8", errors="replace"))),
            "",
        ]
        if incident:
            out += ["As the incident reported it:", "", incident, ""]
    else:
        out += [
            '!!! warning "No recorded run yet"',
            "    Nothing has recorded this case's failing program (`kb reproduce "
            f"{case.id} --record`), so the symptom below is the incident's, as written in the case.",
            "",
            incident or "_The case has no Symptom section._",
            "",
        ]
    return "\n".join(out)


# --- the other parts of a case page ------------------------------------------------------------


def status_box(case: Case, status: Verification) -> str:
    kind = _ADMONITION.get(status.state, "warning")
    if case.status == "retired":
        kind = "abstract"
    return f'!!! {kind} "{status.title}"\n    {status.headline}'


def fix_section(case: Case, prose: Callable[[str], str] = str.strip) -> str:
    out = ["## Fix", "", prose(case.sections.get("Fix", "")), ""]
    for rep in case.reproductions:
        label = f"`{rep.failing}` → `{rep.fixed}`"
        out += [f"### Use instead: {label} (reproduction `{rep.name}`)", ""]
        if rep.description:
            out += [rep.description, ""]
        try:
            diff = program_diff(case, rep)
        except OSError as exc:
            out += [f"_The programs could not be read: {exc}_", ""]
            continue
        out += [fence(diff or "(the programs are identical)", "diff"), ""]
        for name in dict.fromkeys((rep.failing, rep.fixed)):
            source = (case.path / name).read_text(encoding="utf-8")
            out += [f'??? example "{name} (whole program)"', "", _indent(fence(source, "python")), ""]
    return "\n".join(out)


def _code(text: str) -> str:
    """Inline code that survives backticks and pipes inside (regexes)."""
    ticks = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _indent(text: str) -> str:
    return "\n".join(("    " + line) if line else "" for line in text.splitlines())


def versions_section(case: Case) -> str:
    v = case.versions
    out = ["## Versions", ""]
    labels = {"observed": "Affected / observed", "fixed_upstream": "Fixed upstream"}
    for key in ("observed", "fixed_upstream", *[k for k in v if k not in labels and k != "affected"]):
        if key in v:
            out.append(f"- **{labels.get(key, key.replace('_', ' ').capitalize())}:** {_value_text(v[key])}")
    for rng in getattr(case, "affected", ()):
        note = f": {rng.note}" if rng.note else ""
        out.append(f"- **Affected range** (`kb env` checks it): `{rng.package} {rng.spec}`{note}")
    pinned = [(r.name, r.pins) for r in case.reproductions if getattr(r, "pins", ())]
    for name, pins in pinned:
        out.append(f"- **Reproduction `{name}` runs pinned to:** " + ", ".join(f"`{p}`" for p in pins))
    if len(out) == 2:
        out.append("_The case records no versions._")
    return "\n".join(out) + "\n"


def _value_text(value: Any) -> str:
    """Front-matter values as prose: strings as written, lists joined, anything else as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return ", ".join(value)
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def verification_section(case: Case, status: Verification, runs: list[dict[str, Any]]) -> str:
    out = ["## Verification", "", f"**{status.headline}**", ""]
    for note in status.notes:
        out.append(f"- {note}")
    if status.notes:
        out.append("")
    if runs:
        out += [
            "Recorded runs (newest first; the evidence files are in the case folder):",
            "",
            "| date | reproduction | program | profile | outcome | hardware | versions |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for r in runs:
            hw = r.get("gpu") or r.get("cpu") or ""
            if r.get("emulated"):
                hw += " (emulated)"
            versions = ", ".join(f"{k} {val}" for k, val in (r.get("versions") or {}).items() if k != "python")
            cells = [str(r.get("date", ""))[:16].replace("T", " "), r.get("reproduction"), r.get("program"),
                     r.get("profile"), r.get("outcome"), hw, versions]
            out.append("| " + " | ".join(md_escape(str(c or "")) for c in cells) + " |")
        out.append("")
    else:
        out += ["No recorded runs: `kb reproduce " + case.id + " --record` or `pytest --kb-record` writes them.", ""]
    return "\n".join(out)


def diagnose_section(case: Case) -> str:
    out = ["## How `kb diagnose` recognises it", ""]
    if not case.signatures:
        out += ["This case has no signature: `kb diagnose` does not match it (silent failures have no error text).", ""]
    for sig in case.signatures:
        out += [f"- Signature `{sig.name}`: exception {', '.join(f'`{e}`' for e in sig.exceptions) or 'any'}; message matching", "",
                _indent(fence(sig.message.pattern, "text")), ""]
        if sig.frames:
            how = "and only when" if getattr(sig, "requires_frame", False) else "and more confidence when"
            out += [f"    {how} a traceback frame matches one of "
                    + ", ".join(_code(f.pattern) for f in sig.frames), ""]
        if getattr(sig, "hints", ()):
            out += ["    Hints (lines just before the error, frames' code): "
                    + ", ".join(_code(h.pattern) for h in sig.hints), ""]
        if getattr(sig, "environment", ()):
            out += ["    Environment facts inferred from the log: "
                    + ", ".join(f"{fact} {_code(rx.pattern)}" for fact, rx in sig.environment), ""]
    if case.fix_template.strip():
        out += ["What `kb diagnose` prints as the fix (`{names}` are filled from the error text):", "",
                fence(case.fix_template.strip()), ""]
    return "\n".join(out)


def run_section(case: Case) -> str:
    out = ["## How to run it", ""]
    if not case.reproductions:
        return "\n".join(out + ["This case has no reproduction to run.", ""])
    cmds = [f"kb show {case.id}", f"kb reproduce {case.id}              # the failing program",
            f"kb reproduce {case.id} --fixed      # the fix"]
    for rep in case.reproductions[1:]:
        cmds.append(f"kb reproduce {case.id} --variant {rep.name}")
    order = {name: i for i, name in enumerate(PROFILES)}
    profiles = sorted({p for r in case.reproductions for p in r.hardware}, key=lambda p: (order.get(p, len(order)), p))
    for p in profiles:
        cmds.append(f"pytest cases/{case.folder_name} -m {p}")
    out += [fence("\n".join(cmds), "bash"), "", "| reproduction | profiles | launcher | needs |", "| --- | --- | --- | --- |"]
    for rep in case.reproductions:
        launcher = rep.launcher + (f" ({rep.nproc} processes)" if rep.nproc > 1 else "")
        out.append(f"| `{rep.name}` | {', '.join(f'`{p}`' for p in rep.hardware)} | {launcher} | "
                   f"{', '.join(rep.requires) or '-'} |")
    out.append("")
    emulated = [PROFILES[p] for p in profiles if p in PROFILES and PROFILES[p].is_emulated]
    for p in emulated:
        out += [f"Profile `{p.name}` is emulated: {p.emulates}.", ""]
    return "\n".join(out)


def _source_line(src: dict[str, str]) -> str:
    title, url = src.get("title", src.get("url", "")), src.get("url", "")
    if url.startswith(("http://", "https://")):
        return f"- [{md_escape(title)}]({url})"
    if url.startswith(INCIDENT_PREFIX):
        return f"- {md_escape(title)}: `shared/incidents/{url[len(INCIDENT_PREFIX):]}` (the incident report)"
    return f"- {md_escape(title)}" + (f": `{url}`" if url else "")


def sources_section(case: Case) -> str:
    lines = [_source_line(s) for s in case.sources] or ["_No sources recorded._"]
    return "\n".join(["## Sources", "", *lines, ""])


def case_page(case: Case, runs: list[dict[str, Any]] | None = None, known: dict[str, str] | None = None) -> str:
    """The whole page for one case, in Markdown with front matter.

    ``known`` (ID -> folder name of every case) lets the prose's mentions of other cases link.
    """
    runs = observed(case) if runs is None else runs
    known = known or {}

    def prose(text: str) -> str:
        return link_case_ids(text.strip(), known, case.id)

    status = verification(case, runs)
    meta = [f"**{case.id}**", f"`{case.slug}`", f"status: {case.status}"]
    if case.libraries:
        meta.append("libraries: " + ", ".join(case.libraries))
    if case.hardware:
        meta.append("hardware: " + ", ".join(f"`{h}`" for h in case.hardware))
    parts = [
        _front_matter({"title": f"{case.id}: {case.title}", "description": case.summary or case.title,
                       "search": {"boost": CASE_SEARCH_BOOST}}),
        f"# {md_escape(case.title)}",
        "",
        " · ".join(meta),
        "",
        f"Family: {family_link(case.family, CASES_DIR)} (the other causes of this kind of error, and how to tell them apart)",
        "",
        case.summary,
        "",
        status_box(case, status),
        "",
        symptom_section(case, runs, prose),
        "## Where it happened",
        "",
        prose(case.setting) or "_The case records no setting._",
        "",
        "## Why it happens",
        "",
        prose(case.sections.get("Why it happens", "")),
        "",
        fix_section(case, prose),
    ]
    for heading in ("What did not work", "When this does not apply"):
        parts += [f"## {heading}", "", prose(case.sections.get(heading, "")) or "_Not written._", ""]
    for heading, body in case.sections.items():  # any extra sections the author added
        if heading not in REQUIRED_SECTIONS:
            parts += [f"## {heading}", "", prose(body), ""]
    parts += [versions_section(case), verification_section(case, status, runs), diagnose_section(case),
              run_section(case), sources_section(case)]
    return _rewrite_case_links("\n".join(parts).rstrip() + "\n")


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
    """The incident reports the cases cite, with the cases that came from each."""
    by_file: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        for src in case.sources:
            url = src.get("url", "")
            if url.startswith(INCIDENT_PREFIX) and case not in by_file[url]:
                by_file[url].append(case)
    if not by_file:
        return "_No case cites an incident report yet._\n"
    rows = ["| incident report | settings | cases |", "| --- | --- | --- |"]
    for url in sorted(by_file):
        settings = "; ".join(dict.fromkeys(md_escape(c.setting) for c in by_file[url] if c.setting))
        rows.append(f"| `shared/incidents/{url[len(INCIDENT_PREFIX):]}` | {settings} | "
                    + ", ".join(_link(c) for c in by_file[url]) + " |")
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


def site_pages(cases: Iterable[Case]) -> dict[str, str]:
    """Every generated page: ``{path inside docs: markdown}``."""
    cases = list(cases)
    runs = {c.id: observed(c) for c in cases}
    statuses = {c.id: verification(c, runs[c.id]) for c in cases}
    known = {c.id: c.folder_name for c in cases}
    pages = {page_path(c): case_page(c, runs[c.id], known) for c in cases}
    pages[f"{CASES_DIR}/index.md"] = cases_index(cases, statuses)
    pages["errors.md"] = errors_index(cases)
    pages["libraries.md"] = libraries_index(cases)
    pages["hardware.md"] = hardware_index(cases, statuses)
    families = _families()
    for family in families:
        pages[family_page_path(family.name)] = family_page(family, cases)
    if families:
        pages[f"{FAMILIES_DIR}/index.md"] = families_index(families)
    return pages


def _families() -> list:
    """Every family file, loaded (the site shows the families beside whatever cases it is given)."""
    from kb.knowledge.load import load_family
    from kb.knowledge.registry import family_files

    return [load_family(p) for p in family_files()]


def home_inserts(cases: Iterable[Case]) -> dict[str, str]:
    """Text for the ``<!-- kb:NAME -->`` markers of the hand-written home page."""
    cases = list(cases)
    statuses = {c.id: verification(c) for c in cases}
    return {"counts": counts_line(cases, statuses), "incidents": incidents_table(cases)}


# --- assembling the site (shared by the mkdocs hook and `python -m kb.site.pages stage`) --------

MARKER = "<!-- kb:{} -->"
DIAGNOSE_PAGE = "diagnose.md"  # written separately; listed in the nav when present


def fill_markers(markdown: str, cases: Iterable[Case], pages: Iterable[str]) -> str:
    """Replace ``<!-- kb:NAME -->`` markers in a hand-written page (the home page's tables)."""
    if "<!-- kb:" not in markdown:
        return markdown
    inserts = home_inserts(cases)
    inserts["diagnose-link"] = f"More: [Diagnose an error]({DIAGNOSE_PAGE})." if DIAGNOSE_PAGE in set(pages) else ""
    for name, text in inserts.items():
        markdown = markdown.replace(MARKER.format(name), text)
    return markdown


def nav_paths(nav: Any) -> set[str]:
    """Every page path a nav (nested lists and dicts, as in mkdocs.yml) refers to."""
    if isinstance(nav, str):
        return {nav}
    items = nav.values() if isinstance(nav, dict) else nav if isinstance(nav, list) else ()
    return set().union(set(), *(nav_paths(v) for v in items))


def full_nav(nav: list[Any] | None, cases: Iterable[Case], pages: Iterable[str]) -> list[Any]:
    """mkdocs.yml's nav with "Cases" filled with every case, and every page it misses added.

    ``pages`` are all documentation pages (hand-written and generated). A hand-written page
    the nav does not list (``diagnose.md``, guides other people add) joins it, so a new page
    never trips the strict build's "not included in the nav" check.
    """
    nav = [dict(i) if isinstance(i, dict) else i for i in (nav or [])]
    entries: list[Any] = [{"All cases": f"{CASES_DIR}/index.md"}]
    entries += [{f"{c.id} {c.slug}": page_path(c)} for c in cases]
    for item in nav:
        if isinstance(item, dict) and "Cases" in item:
            item["Cases"] = entries
            break
    else:
        nav.append({"Cases": entries})
    family_pages = sorted(p for p in pages if p.startswith(f"{FAMILIES_DIR}/") and p != f"{FAMILIES_DIR}/index.md")
    if family_pages:
        nav.append({"Families": [{"All families": f"{FAMILIES_DIR}/index.md"}]
                    + [{p[len(FAMILIES_DIR) + 1:-3]: p} for p in family_pages]})
    listed = nav_paths(nav)
    extra = [p for p in pages if p not in listed]
    if DIAGNOSE_PAGE in extra:
        extra.remove(DIAGNOSE_PAGE)
        nav.insert(1, {"Diagnose an error": DIAGNOSE_PAGE})
    if extra:
        nav.append({"Guides": sorted(extra)})
    return nav


def stage(repo: Path, out: Path, cases: Iterable[Case]) -> Path:
    """Write a complete docs tree and a hook-free ``mkdocs.yml`` under ``out``; return the config path.

    For builders that read ``mkdocs.yml`` but run no MkDocs hooks (Zensical): the generated
    pages are written into a copy of ``docs/`` and the site goes to ``out/site`` (``out`` is
    scratch space, never committed).
    """
    import shutil

    import yaml  # a dependency of mkdocs and of zensical

    cases = list(cases)
    config = yaml.safe_load((repo / "mkdocs.yml").read_text(encoding="utf-8"))
    docs = out / "docs"
    if docs.exists():
        shutil.rmtree(docs)
    shutil.copytree(repo / config.get("docs_dir", "docs"), docs, ignore=shutil.ignore_patterns("hooks"))
    generated = site_pages(cases)
    pages = sorted({p.relative_to(docs).as_posix() for p in docs.rglob("*.md")} | set(generated))
    for path in docs.rglob("*.md"):
        path.write_text(fill_markers(path.read_text(encoding="utf-8"), cases, pages), encoding="utf-8")
    for rel, text in generated.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text, encoding="utf-8")
    config.pop("hooks", None)
    config.pop("exclude_docs", None)
    config["docs_dir"] = "docs"  # relative to the staged mkdocs.yml: Zensical wants both inside its folder
    config["site_dir"] = "site"
    config["nav"] = full_nav(config.get("nav"), cases, pages)
    path = out / "mkdocs.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    """``python -m kb.site.pages stage OUT``: see :func:`stage`."""
    import argparse

    from kb.knowledge.load import load_case
    from kb.knowledge.registry import case_folders

    parser = argparse.ArgumentParser(prog="python -m kb.site.pages")
    parser.add_argument("command", choices=["stage"])
    parser.add_argument("out", type=Path, help="scratch folder for the docs tree and mkdocs.yml")
    ns = parser.parse_args(argv)
    repo = Path(__file__).resolve().parent.parent.parent
    config = stage(repo, ns.out, [load_case(f) for f in case_folders()])
    print(config)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

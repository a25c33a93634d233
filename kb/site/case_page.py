"""A case's page (``cases/<folder>.md`` in the site): summary, fix, symptom, why, the programs, the evidence."""

from __future__ import annotations

import json
import re
import textwrap
from typing import Any, Callable

from kb.knowledge.model import Case
from kb.knowledge.reproductions import Reproduction
from kb.knowledge.load import REQUIRED_SECTIONS
from kb.knowledge.evidence import EVIDENCE_DIR, case_file, observed, recorded_log
from kb.reproduce.profiles import PROFILES
from kb.site.family_page import family_link
from kb.site.markdown import breakable, fence, front_matter as _front_matter, md_escape, source_line
from kb.knowledge.pins import pins_text
from kb.site.render import fix_text, program_diff
from kb.diagnose.textclean import ANSI
from kb.reproduce.verification import CPU_ONLY, VERIFIED_GPU, Verification, verification


CASES_DIR = "cases"  # where the case pages live in the site
SYMPTOM_LINES = 40  # lines of a recorded log shown under "Recorded output"
ERROR_LINES = 8  # lines of it shown as the symptom: the innermost frame and the error
CASE_SEARCH_BOOST = 3  # case pages outrank the indexes that repeat their headlines

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


def _error_tail(excerpt: str, limit: int = ERROR_LINES) -> str:
    """The innermost frame and the error (from the traceback's last ``File`` line), or the log's last lines."""
    lines = excerpt.splitlines()
    frames = [i for i, line in enumerate(lines) if line.lstrip().startswith('File "')]
    tail = lines[frames[-1]:] if frames else [line for line in lines if line.strip()][-3:]
    return "\n".join(tail[-limit:])


def _run_caption(case: Case, run: dict[str, Any]) -> str:
    where = run.get("gpu") or run.get("cpu") or "unknown hardware"
    emulated = f", emulated: {run['emulated']}" if run.get("emulated") else ""
    return (f"reproduction `{run.get('reproduction')}`, profile `{run.get('profile')}` on {where}{emulated}, "
            f"{str(run.get('date', ''))[:10]}; `{case.folder_name}/{EVIDENCE_DIR}/{run.get('log')}`")


def _recorded_log(case: Case, run: dict[str, Any] | None) -> str | None:
    """The recorded failing run's log excerpt (see :func:`_log_excerpt`), or None without one."""
    text = recorded_log(case, str(run.get("log", ""))) if run else None
    return _log_excerpt(text) if text is not None else None


def symptom_section(case: Case, runs: list[dict[str, Any]], prose: Callable[[str], str] = str.strip) -> str:
    """The error as the latest recorded run printed it (its last frame and message), then the incident's words."""
    incident = prose(case.sections.get("Symptom", ""))
    run = latest_symptom_run(case, runs)
    excerpt = _recorded_log(case, run)
    out = ["## Symptom", ""]
    if run and excerpt is not None:
        out += [f"The recorded run's error ({_run_caption(case, run)}; the whole output is under "
                "[Recorded output](#recorded-output)):", "", fence(_error_tail(excerpt)), ""]
        if case.setting:
            out += [f"*Where it happened:* {prose(case.setting)}", ""]
        if incident:
            out += ["As the incident reported it:", "", incident, ""]
    else:
        out += [
            '!!! warning "No recorded run yet"',
            "    Nothing has recorded this case's failing program (`kb reproduce "
            f"{case.id} --record`), so the symptom below is the incident's, as written in the case.",
            "",
        ]
        if case.setting:
            out += [f"*Where it happened:* {prose(case.setting)}", ""]
        out += [incident or "_The case has no Symptom section._", ""]
    return "\n".join(out)


def recorded_output_section(case: Case, runs: list[dict[str, Any]]) -> str:
    run = latest_symptom_run(case, runs)
    excerpt = _recorded_log(case, run)
    out = ["## Recorded output", ""]
    if run is None or excerpt is None:
        return "\n".join(out + ["_No recorded failing run._", ""])
    out += [f'??? failure "The failing run\'s output, last {SYMPTOM_LINES} lines at most ({md_escape(run.get("log", ""))})"',
            "", _indent(f"From the latest recorded run ({_run_caption(case, run)}):"), "", _indent(fence(excerpt)), ""]
    return "\n".join(out)


# --- the other parts of a case page ------------------------------------------------------------


def status_box(case: Case, status: Verification) -> str:
    kind = _ADMONITION.get(status.state, "warning")
    if case.status == "retired":
        kind = "abstract"
    return f'!!! {kind} "{status.title}"\n    {status.headline}'


def fix_section(case: Case, prose: Callable[[str], str] = str.strip) -> str:
    """The fix first: the snippet (the lines of the fixed program that change), then the case's words."""
    out = ["## Fix", ""]
    if case.fix_snippet.strip():
        programs = ", ".join(dict.fromkeys(f"`{rep.fixed}`" for rep in case.reproductions))
        out += [fence(textwrap.dedent(case.fix_snippet).strip("\n"), "python"), "",
                f"<small>From {programs}; the whole programs and the diff are under [Programs](#programs).</small>", ""]
    out += [prose(case.sections.get("Fix", "")), ""]
    return "\n".join(out)


def programs_section(case: Case) -> str:
    """Each reproduction's change as a diff of code (docstring- and comment-only hunks left out), and the whole programs, folded."""
    out = ["## Programs", ""]
    if not case.reproductions:
        return "\n".join(out + ["_This case has no reproduction: no failing or fixed program._", ""])
    shown: set[str] = set()  # variants share their fixed program: show each program once
    for rep in case.reproductions:
        label = f"{rep.failing} → {rep.fixed} (reproduction {rep.name})"
        try:
            diff = program_diff(case, rep, code_only=True)
        except OSError as exc:
            out += [f"_The programs of `{rep.name}` could not be read: {exc}_", ""]
            continue
        body = [md_escape(rep.description), ""] if rep.description else []
        body += [fence(diff or "(only docstrings or comments differ)", "diff"), ""]
        out += [f'??? example "Use instead: {label}"', "", _indent("\n".join(body)), ""]
        for name in (rep.failing, rep.fixed):
            if name in shown:
                continue
            shown.add(name)
            source = case_file(case, name)
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
    out += [pins_line(r) for r in case.reproductions if r.pinned]
    if len(out) == 2:
        return "\n".join(out + ["_The case records no versions._"]) + "\n"
    return "\n".join([*out[:2], '??? note "Observed on, fixed upstream, affected ranges, pins"', "",
                      _indent("\n".join(out[2:]))]) + "\n"


def pins_line(rep: Reproduction) -> str:
    """The versions line of a pinned reproduction: which versions each of its programs runs with (the one
    wording of kb/knowledge/pins.py, which `kb show` and the version matrix print too)."""
    return f"- **Reproduction `{rep.name}`:** {pins_text(rep, quote='`')}"


def _value_text(value: Any) -> str:
    """Front-matter values as prose: strings as written, lists joined, anything else as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return ", ".join(value)
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def range_lines(case: Case) -> list[str]:
    """Per reproduction: the versions it is verified on (computed from the evidence, kb/reproduce/ranges.py),
    what it declares it needs, and since when a release fixed it (the matrix's ``does-not-fail``)."""
    from kb.reproduce.ranges import verified_text

    out = [f"- **Verified range of `{rep.name}`:** {verified_text(case, rep, quote='`', strong='**')}"
           for rep in case.reproductions]
    if out:
        out += ["", "Ranges are the lowest and highest versions among the runs in which both programs passed: the "
                "recorded runs below and the library stacks of `kb verify` ([the version matrix](../matrix.md)).", ""]
    return out


def matrix_table(case: Case) -> list[str]:
    """The case's rows of the version matrix (evidence/matrix.toml), folded."""
    from kb.knowledge.evidence import matrix_runs

    entries = matrix_runs(case)
    if not entries:
        return []
    def shown(versions: dict[str, Any]) -> str:
        return ", ".join(f"{k} {v}" for k, v in versions.items() if k in case.libraries or k == "torch")

    table = ["| stack | reproduction | status | versions | note |", "| --- | --- | --- | --- | --- |"]
    for e in entries:
        own = [(p, (e.get(p) or {}).get("versions")) for p in ("failing", "fixed")]
        versions = ("; ".join(f"{p}: {shown(v)}" for p, v in own) if all(v for _, v in own)  # a pinned reproduction's runs
                    else shown(e.get("versions") or {}))
        cells = [str(e.get("stack")), str(e.get("reproduction")), str(e.get("status")), versions, str(e.get("reason", ""))[:200]]
        table.append("| " + " | ".join(md_escape(c) for c in cells) + " |")
    return [f'??? info "Library stacks ({len(entries)} runs of kb verify)"', "", _indent("\n".join(table)), ""]


def verification_section(case: Case, status: Verification, runs: list[dict[str, Any]]) -> str:
    out = ["## Verification", "", f"**{status.headline}**", "", *range_lines(case), *matrix_table(case)]
    for note in status.notes:
        out.append(f"- {note}")
    if status.notes:
        out.append("")
    if runs:
        table = [
            "Newest first; the evidence files are in the case folder.",
            "",
            "| date | run | outcome | hardware | versions |",
            "| --- | --- | --- | --- | --- |",
        ]
        for r in runs:
            hw = r.get("gpu") or r.get("cpu") or ""
            if r.get("emulated"):
                hw += " (emulated)"
            versions = ", ".join(f"{k} {val}" for k, val in (r.get("versions") or {}).items() if k != "python")
            run = f"{r.get('reproduction')}: {r.get('program')} program on `{r.get('profile')}`"
            cells = [str(r.get("date", ""))[:16].replace("T", " "), run, r.get("outcome"), hw, versions]
            table.append("| " + " | ".join(c if c is run else md_escape(str(c or "")) for c in cells) + " |")
        out += [f'??? info "Recorded runs ({len(runs)})"', "", _indent("\n".join(table)), ""]
    else:
        out += ["No recorded runs: `kb reproduce " + case.id + " --record` or `pytest --kb-record` writes them.", ""]
    return "\n".join(out)


def diagnose_section(case: Case) -> str:
    head = ["## How `kb diagnose` recognises it", ""]
    out: list[str] = []
    if not case.signatures:
        out += ["This case has no signature: `kb diagnose` does not match it (silent failures have no error text).", ""]
    for sig in case.signatures:  # every field of Signature.document(), as `kb show --format json` has them
        doc = sig.document()
        out += [f"- Signature `{doc['name']}`: exception {', '.join(f'`{e}`' for e in doc['exception']) or 'any'}; message matching", "",
                _indent(fence(doc["message"], "text")), ""]
        if doc["specific"]:
            out += ["    Specific: the message alone names this case, not only its family.", ""]
        if doc["requires_type"]:
            out += ["    Only for the exception types listed.", ""]
        if doc["frames"]:
            how = "and only when" if doc["requires_frame"] else "and more confidence when"
            out += [f"    {how} a traceback frame (or a hint) matches one of " + ", ".join(_code(f) for f in doc["frames"]), ""]
        if doc["hints"]:
            out += ["    Hints (lines around the error, frames' code): " + ", ".join(_code(h) for h in doc["hints"]), ""]
        if doc["excludes"]:
            out += ["    Ruled out when a frame or nearby line matches: " + ", ".join(_code(x) for x in doc["excludes"]), ""]
        if doc["compare"]:
            out += ["    Captures must satisfy: " + "; ".join(_code(" ".join(c)) for c in doc["compare"]), ""]
        if doc["environment"]:
            out += ["    Environment facts inferred from the log: "
                    + ", ".join(f"{fact} {_code(rx)}" for fact, rx in doc["environment"].items()), ""]
    if case.fix_template.strip():
        out += ["What `kb diagnose` prints as the fix (the values it reads from the error text, here at their "
                "defaults):", "", fence(fix_text(case).strip()), ""]
    if not case.signatures:
        return "\n".join(head + out)
    title = f"{len(case.signatures)} signature{'s' if len(case.signatures) > 1 else ''} and the fix it prints"
    return "\n".join([*head, f'??? note "{title}"', "", _indent("\n".join(out)), ""])


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


def sources_section(case: Case) -> str:
    lines = [source_line(s, CASES_DIR) for s in case.sources] or ["_No sources recorded._"]
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
    meta.append(f"family: {family_link(case.family, CASES_DIR)} (its other causes, and how to tell them apart)")
    parts = [
        _front_matter({"title": f"{case.id}: {case.title}", "description": case.summary or case.title,
                       "search": {"boost": CASE_SEARCH_BOOST}}),
        f"# {breakable(md_escape(case.title))}",
        "",
        prose(case.summary),
        "",
        fix_section(case, prose),  # the fix comes first among the sections
        status_box(case, status),
        "",
        " · ".join(meta),
        "",
        symptom_section(case, runs, prose),
        "## Why it happens",
        "",
        prose(case.sections.get("Why it happens", "")),
        "",
    ]
    for heading in ("What did not work", "When this does not apply"):
        parts += [f"## {heading}", "", prose(case.sections.get(heading, "")) or "_Not written._", ""]
    for heading, body in case.sections.items():  # any extra sections the author added
        if heading not in REQUIRED_SECTIONS:
            parts += [f"## {heading}", "", prose(body), ""]
    # The details, folded: the programs, the recorded output, the evidence, versions, signatures.
    parts += [programs_section(case), recorded_output_section(case, runs),
              verification_section(case, status, runs), versions_section(case), diagnose_section(case),
              run_section(case), sources_section(case)]
    return _rewrite_case_links("\n".join(parts).rstrip() + "\n")

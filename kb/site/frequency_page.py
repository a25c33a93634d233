"""The "What goes wrong most" page (``frequency.md``): the corpus's frequency table (tables/frequency.toml,
written by ``python scripts/corpus.py table``) as a bar chart per family, the head of the causes with the
triage that names each, and every cause with kb's answers on it.

The chart is plain HTML and CSS inside a Markdown table (a stacked bar per family: the share of the
counted reports, split into kb right, wrong and silent), so the site makes no request outside its origin
and the family links stay Markdown links that the strict build checks.
"""

from __future__ import annotations

from typing import Any, Iterable

from kb.site.family_page import family_link
from kb.site.markdown import front_matter, md_escape

FREQUENCY_PAGE = "frequency.md"
TITLE = "What goes wrong most"
UNKNOWN_FAMILY = "unknown-family"
BAR_EM = 10.0  # the widest family's bar, in em: fits a 400 px screen beside the name and the numbers
# (label, colour) of a bar's parts, in the order drawn; the grey reads on the light and the dark scheme.
PARTS = (("right", "#2e7d32"), ("wrong", "#c62828"), ("silent", "#9e9e9e"))


def _pct(x: float) -> str:
    return f"{x:.1%}"


def _kb_cell(row: dict[str, Any]) -> str:
    """kb's answers on a row's reports, in words: right share for a family, silence for unknown-family."""
    n = row["reports"]
    if not n:
        return "—"
    if row["family"] == UNKNOWN_FAMILY:
        return f"silent {row['silent']}/{n}" + (f", wrong {row['wrong']}" if row["wrong"] else "")
    return f"right {row['right']}/{n} ({row['right'] / n:.0%})" + (f", wrong {row['wrong']}" if row["wrong"] else "")


def bar(row: dict[str, Any], widest: float) -> str:
    """A horizontal bar as inline HTML: its length is the row's share (the widest row's is ``BAR_EM``),
    its parts kb's right, wrong and silent answers on the row's reports."""
    width = BAR_EM * row["share"] / widest if widest else 0.0
    label = f"{row['family']}: {_pct(row['share'])}; kb right {row['right']}, wrong {row['wrong']}, silent {row['silent']}"
    parts = "".join(f'<span style="flex:{row[name]} 1 0;background:{colour}"></span>' for name, colour in PARTS if row[name])
    return (f'<span class="kb-freq-bar" role="img" aria-label="{label}" title="{label}" '
            f'style="display:inline-flex;vertical-align:middle;height:0.9em;width:{max(width, 0.15):.2f}em">'
            f"{parts}</span>")


def _name(family: str, pages: set[str]) -> str:
    return family_link(family, "") if family in pages else f"`{family}`"


def _triage_cell(row: dict[str, Any], pages: set[str]) -> str:
    if row["family"] == UNKNOWN_FAMILY or row["family"] not in pages:
        return "no family"
    if not row["triage_judged"]:
        return "not judged"
    if not row["triage"]:
        return "**not named**"
    case = f"; case {row['triage_case']}" + ("" if row["triage_reproduced"] else " (no reproduction)") if row["triage_case"] else "; no case"
    return f"named: {md_escape(row['triage'])}{case}"


def frequency_page(table: dict[str, Any] | None, families: Iterable[str]) -> str:
    """The page's Markdown; ``families`` are the families that have a page (links go only to those)."""
    head = [front_matter({"title": TITLE, "description": "Which failures real fine-tuning reports hit most, "
                          "by failure family and cause, and where kb answers them today."}), f"# {TITLE}", ""]
    if not table:
        return "\n".join(head + ["_This knowledge base has no frequency table (tables/frequency.toml): "
                                 "`python scripts/corpus.py table` builds it from a corpus of reports._", ""])
    pages = set(families)
    c, built = table["corpus"], table.get("built", {})
    rows, causes = table["family"], table["cause"]
    widest = max((r["share"] for r in rows), default=0.0)
    parts = head + [
        f"kb's corpus holds {c['reports']} real reports of fine-tuning failures (GitHub issues, forums, Q&A; "
        f"dated {c['oldest_report']} to {c['newest_report']}), gathered by broad queries in search order, never "
        f"by error type. {c['out_of_scope']} are not failures of the fine-tuning stack (another library's bug, a "
        f"feature request, a question) and {c['unshown']} of the other {c['in_scope']} do not show their error "
        "(a title only, a screenshot): they say nothing about what fails, so the shares below leave them out. "
        f"**Shares are of the {c['counted']} in-scope reports whose error shows.**",
        "",
        f"kb's answers are today's: each report's error (or title) through `kb diagnose`, graded against its "
        f"label (table built {built.get('date', '?')}, kb at {built.get('kb_commit', '?')}). *Right*: the labelled "
        "family or a case of it; *wrong*: another; *silent*: no answer. A report of `unknown-family` (a failure kb "
        f"has no family for) cannot be answered right: silence is the best kb can do there. kb claimed "
        f"{c['out_of_scope_claimed']} of the {c['out_of_scope']} out-of-scope reports.",
        "",
        "## By family",
        "",
        _strengths(rows, pages),
        "",
        "Bar: the family's share of the counted reports; "
        + ", ".join(f'<span style="color:{colour}">■</span> {name}' for name, colour in PARTS)
        + ": kb's answers on them.",
        "",
        "| family | share | reports | with error | kb today | not shown |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    parts += [f"| {_name(r['family'], pages)} | {bar(r, widest)} {_pct(r['share'])} | {r['reports']} | "
              f"{r['with_error']:.0%} | {_kb_cell(r)} | {r['unshown']} |" for r in rows]
    parts += ["", "*With error*: the share of the family's reports that carry error output (the others are a "
              "title that names the error). *Not shown*: reports of the family whose error is not in the gathered "
              "text, left out of the shares.", ""]
    parts += _head_section(c, causes, pages)
    parts += ["## Every cause, by family", ""]
    for r in rows:
        if not r["reports"]:
            continue
        title = "unknown-family: failures kb has no family for" if r["family"] == UNKNOWN_FAMILY else r["family"]
        parts += [f"### {title}", "", f"{_name(r['family'], pages)}: {r['reports']} reports, {_pct(r['share'])} "
                  f"of the counted; kb today: {_kb_cell(r)}.", "",
                  "| cause | reports | share | kb today | triage |", "| --- | --- | --- | --- | --- |"]
        for row in (x for x in causes if x["family"] == r["family"]):
            also = f" (also labelled {', '.join(f'`{a}`' for a in row['aliases'])})" if row["aliases"] else ""
            parts.append(f"| `{row['cause']}`{also} | {row['reports']} | {_pct(row['share'])} | {_kb_cell(row)} | "
                         f"{_triage_cell(row, pages)} |")
        parts.append("")
    return "\n".join(parts).rstrip() + "\n"


def _strengths(rows: list[dict[str, Any]], pages: set[str]) -> str:
    """One sentence each: the families where kb answers most reports right, and those where it is mostly silent."""
    known = [r for r in rows if r["family"] != UNKNOWN_FAMILY and r["reports"]]
    strong = [r for r in known if r["right"] / r["reports"] >= 0.5]
    silent = [r for r in known if r["silent"] / r["reports"] > 0.5]

    def names(group: list[dict[str, Any]]) -> str:
        return ", ".join(f"{_name(r['family'], pages)} ({r['right'] / r['reports']:.0%} right)" for r in group) or "none"

    return (f"kb answers most reports right in: {names(strong)}. It is silent on most in: {names(silent)}.")


def _head_section(c: dict[str, Any], causes: list[dict[str, Any]], pages: set[str]) -> list[str]:
    head = [r for r in causes if r["head"]]
    share = c["head_reports"] / c["counted"] if c["counted"] else 0.0
    sure = [r for r in head if r["reports"] > c["head_smallest"]]
    tied = [r for r in causes if r["reports"] == c["head_smallest"]]
    known = [r for r in head if r["family"] != UNKNOWN_FAMILY]
    named = [r for r in known if r["triage"]]
    judged = [r for r in known if r["triage_judged"]]
    parts = ["## The head: the causes that make up 70%", "",
             f"The {len(head)} most frequent (family, cause) pairs together hold {c['head_reports']} of the "
             f"{c['counted']} counted reports ({_pct(share)}), the first to reach {c['head_share']:.0%}.",
             ""]
    if c["head_smallest"] and len(head) > len(sure):
        each = "one report" if c["head_smallest"] == 1 else f"{c['head_smallest']} reports"
        parts += [f"The distribution has a long tail: the {len(sure)} pairs with more than {each} hold "
                  f"{sum(r['reports'] for r in sure)} ({_pct(sum(r['reports'] for r in sure) / c['counted'])}); the "
                  f"other {len(head) - len(sure)} head pairs are {len(head) - len(sure)} of the {len(tied)} pairs with "
                  f"{each} each, taken in order (the larger family first, then by name): which of those fall inside "
                  "is the order's choice, not the corpus's.", ""]
    parts += [f"Of the {len(known)} head pairs in a family kb has, {len(judged)} are judged against the family's "
              f"triage: {len(named)} are named by a triage entry, {len(judged) - len(named)} are not. The other "
              f"{len(head) - len(known)} are `unknown-family`: no family of kb covers them yet.", "",
              "| # | family | cause | reports | cumulative | kb today | triage |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    parts += [f"| {i} | {_name(r['family'], pages)} | `{r['cause']}` | {r['reports']} | {_pct(r['cumulative'])} | "
              f"{_kb_cell(r)} | {_triage_cell(r, pages)} |" for i, r in enumerate(head, start=1)]
    parts.append("")
    return parts


def knowledge_frequency_page(families: Iterable[str]) -> str:
    """The page from the knowledge root's tables/frequency.toml (the site's build calls this)."""
    from kb.knowledge.tables import read_frequency

    return frequency_page(read_frequency(), families)

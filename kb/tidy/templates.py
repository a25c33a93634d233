"""A fix template never prints its own markup.

kb/diagnose/match.py's fill_template fills ``{name}`` from what the output showed and ``{name|text}``
falls back to ``text``; a bare ``{name}`` without a value stays as written, because in code it is an
f-string's ``{i}``. So a placeholder whose name a signature captures needs a fallback: a signature that
did not capture it (another wording, a cut paste) would print ``{name}`` raw. And an empty fallback must
read well: placeholders whose fallbacks are all empty, quoted on their own (`` `{kwarg|}` ``, ``({name|})``),
print an empty pair of quotes when the output shows none of them.
"""

from __future__ import annotations

import re

from kb.diagnose.match import PLACEHOLDER, PLACEHOLDER_RUN
from kb.knowledge.model import Case, Family

_PAIRS = {"`": "`", "(": ")", "'": "'", '"': '"', "[": "]"}
# A quote or bracket just before the placeholders, perhaps with a label: "`", "(seen: ".
_OPENED = re.compile(r"([`('\"\[])(?:[\w ]{0,12}:\s*)?$")


def template_problems(entry: Case | Family) -> list[str]:
    """Why the entry's fix template could print markup or an empty quote; [] when it cannot."""
    template = entry.fix_template
    captured = {name for s in entry.signatures for name in s.message.groupindex}
    out = []
    for run in PLACEHOLDER_RUN.finditer(template):
        members = list(PLACEHOLDER.finditer(run.group(0)))
        for m in members:
            if m.group(2) is None and m.group(1) in captured:
                out.append(f"[fix] template: {m.group(0)} has no fallback, so it prints as written when the output "
                           f"does not show {m.group(1)}: write {{{m.group(1)}|what to say then}}")
        opened = _OPENED.search(template[max(0, run.start() - 20):run.start()])
        after = template[run.end():run.end() + 1]
        if all(m.group(2) == "" for m in members) and opened and _PAIRS[opened.group(1)] == after:
            empty = opened.group(0) + after
            out.append(f"[fix] template: {opened.group(0)}{run.group(0)}{after} prints as {empty} when the output "
                       "shows none of them: give the last one a fallback")
    return out

"""The rule about a fix's computed parts (``schema``): every ``[fix] numbers`` line parses
(kb/diagnose/numbers.py), and every ``{kw:LIB.CALLABLE.KEYWORD|OLD}`` placeholder of a fix template
names a callable and keyword the API history knows (kb/diagnose/advice.py)."""

from __future__ import annotations

from kb.diagnose.advice import keywords
from kb.diagnose.numbers import line_problems
from kb.knowledge.model import Case, Family
from kb.tidy.problem import Problem


def fix_problems(entry: Case | Family) -> list[Problem]:
    out = []
    for i, line in enumerate(entry.numbers):
        out += [f"fix.numbers[{i}] ({line['name']}): {p}" for p in line_problems(line)]
    names = [line["name"] for line in entry.numbers]
    out += [f"fix.numbers: the name {n!r} is used twice" for n in sorted({n for n in names if names.count(n) > 1})]
    found = keywords(entry.fix_template)
    if entry.fix_template.count("{kw:") != len(found):
        out.append("fix.template: a {kw:...} placeholder that is not {kw:LIB.CALLABLE.KEYWORD|OLD}")
    if found:
        from kb.diagnose.drift import _history

        history = _history()
        for kw in found:
            if history is None:
                break
            present, accepted = history.param_versions(kw.library, kw.callable, kw.new)
            if not present:
                out.append(f"fix.template: {kw.placeholder}: the API history has no callable {kw.callable}")
            elif not accepted:
                out.append(f"fix.template: {kw.placeholder}: no covered {kw.library} release of {kw.callable} "
                           f"accepts {kw.new!r}")
    return [Problem(entry.file, "schema", m) for m in out]

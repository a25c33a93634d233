"""Pre-flight risk rules written as data in a case's ``[[risks]]`` and evaluated on `kb env` facts.

A rule is a list of branches; the first whose ``when`` conditions all hold decides the check's
status and message. A condition is ``fact``, ``not fact``, ``fact is unknown`` or ``fact OP
value`` where value is a number, another fact, or a quoted string, OP one of > >= < <= == !=.
A comparison with an unknown fact (None) is false, so a rule can say ``is unknown`` first and
report ``skipped``. The grammar is part of the knowledge language (checked when a case loads); kb env evaluates it.
Facts are computed in code (kb/env/facts.py): only what must compute is code.
"""

from __future__ import annotations

import re
from typing import Any

from kb.knowledge.compare import COMPARE_OPS

_OPS = {**COMPARE_OPS, "!=": lambda a, b: a != b}  # the signatures' comparisons, and inequality
_CONDITION = re.compile(
    r"^\s*(?:(?P<not>not)\s+(?P<negated>\w+)|(?P<unknown>\w+)\s+is\s+unknown|(?P<known>\w+)\s+is\s+known"
    r"|(?P<left>\w+)\s*(?P<op>>=|<=|==|!=|>|<)\s*(?P<right>-?\d+(?:\.\d+)?|\w+|\"[^\"]*\")|(?P<bare>\w+))\s*$"
)
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


class RuleError(ValueError):
    pass


def check_conditions(conditions: list[str]) -> None:
    """Raise RuleError for a condition that is not of the grammar above (checked when a case loads)."""
    for text in conditions:
        if not _CONDITION.match(text):
            raise RuleError(f"cannot read the condition {text!r} (fact, not fact, fact is unknown, fact OP value)")


def _operand(text: str, facts: dict[str, Any]) -> Any:
    if text.startswith('"'):
        return text[1:-1]
    try:
        return float(text) if "." in text else int(text)
    except ValueError:
        return facts.get(text)


def holds(condition: str, facts: dict[str, Any]) -> bool:
    m = _CONDITION.match(condition)
    if m is None:
        raise RuleError(f"cannot read the condition {condition!r}")
    if m["not"]:
        return not facts.get(m["negated"])
    if m["unknown"]:
        return facts.get(m["unknown"]) is None
    if m["known"]:
        return facts.get(m["known"]) is not None
    if m["bare"]:
        return bool(facts.get(m["bare"]))
    left, right = facts.get(m["left"]), _operand(m["right"], facts)
    if left is None or right is None:
        return False
    try:
        return bool(_OPS[m["op"]](left, right))
    except TypeError:
        return False


def fill(message: str, facts: dict[str, Any]) -> str:
    return _PLACEHOLDER.sub(lambda m: str(facts.get(m.group(1), m.group(0))), message)


def evaluate(rule: dict[str, Any], facts: dict[str, Any]) -> tuple[str, str] | None:
    """``(status, message)`` of the first branch whose conditions hold; None when none does."""
    for branch in rule["branches"]:
        if all(holds(c, facts) for c in branch["when"]):
            return branch["status"], fill(branch["message"].strip(), facts)
    return None

"""Numbers computed from the evidence, not pasted: the ``[fix] numbers`` lines of a case or family.

Each entry of ``[fix] numbers`` (kb/knowledge/schema.py, NUMBER_LINE) is a named line of text with
holes, ``{expression}`` or ``{expression:unit}``, and conditions (``when``) that must hold:

    [[fix.numbers]]
    name = "shortfall"
    when = ["requested > free"]
    text = "asked for {requested:GiB} with {free:GiB} free of {total:GiB}: short by {requested - free:GiB}"

An expression is arithmetic (``+ - * /``, parentheses, unary minus) over numbers and names. A name is
a capture of the match (or of its family's signature on the same error: the sizes of an OOM message),
or a fact read from the log (kb/diagnose/environment.py: ``batch``, ``seq``, ``vocab``,
``gpu_memory_gib``, ``model_size_b`` ...), or one of the units ``KiB``, ``MiB``, ``GiB`` (bytes).
A size (``"1.45 GiB"``) is its number of bytes. Units: ``GiB`` and ``MiB`` print bytes as such,
``int`` a whole number with thousands separators, ``pct`` a percentage; without one, the number as
it is. A condition is two expressions and one of ``< <= > >= == !=``. A line whose names are not
all known, or whose conditions do not all hold, is left out. A case's lines come first, then its
family's (a case's line of the same name replaces the family's).

This is a small parser and evaluator of its own, never ``eval``: the knowledge's text cannot run code.
"""

from __future__ import annotations

from kb.diagnose.match import size_value
from kb.knowledge.compare import COMPARE_OPS
from kb.knowledge.precompiled import pattern as _compile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kb.diagnose.answers import Answer
    from kb.diagnose.match import Match
    from kb.knowledge.model import Knowledge

UNITS = {"KiB": 2.0**10, "MiB": 2.0**20, "GiB": 2.0**30}
FORMATS = ("GiB", "MiB", "int", "pct")
# Patterns as text: re compiles (and caches) them on first use, so an answer without numbers costs nothing.
_TOKEN = r"\s*(?:(\d+(?:\.\d+)?(?:e\d+)?)|([A-Za-z_]\w*)|(\*\*|[-+*/()]))"
_HOLE = r"\{([^{}]+?)(?::(" + "|".join(FORMATS) + r"))?\}"
_CONDITION = r"^(.+?)\s*(<=|>=|==|!=|<|>)\s*(.+)$"


class FormulaError(ValueError):
    """An expression, condition or line that does not parse; the message says where."""


# An expression compiles to nested tuples: ("num", 2.0), ("name", "batch"), ("neg", e), (op, a, b).
Node = tuple


def parse_expression(text: str) -> Node:
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _compile(_TOKEN).match(text, pos)
        if m is None or m.end() == pos:
            raise FormulaError(f"cannot read {text[pos:]!r} in {text!r}")
        if m.group(3) == "**":
            raise FormulaError(f"no powers: {text!r}")
        kind = "num" if m.group(1) else "name" if m.group(2) else "op"
        tokens.append((kind, m.group(m.lastindex or 0)))
        pos = m.end()
    node, rest = _sum(tokens, 0, text)
    if rest != len(tokens):
        raise FormulaError(f"unexpected {tokens[rest][1]!r} in {text!r}")
    return node


def _sum(tokens: list[tuple[str, str]], i: int, text: str) -> tuple[Node, int]:
    left, i = _product(tokens, i, text)
    while i < len(tokens) and tokens[i] in (("op", "+"), ("op", "-")):
        op = tokens[i][1]
        right, i = _product(tokens, i + 1, text)
        left = (op, left, right)
    return left, i


def _product(tokens: list[tuple[str, str]], i: int, text: str) -> tuple[Node, int]:
    left, i = _unary(tokens, i, text)
    while i < len(tokens) and tokens[i] in (("op", "*"), ("op", "/")):
        op = tokens[i][1]
        right, i = _unary(tokens, i + 1, text)
        left = (op, left, right)
    return left, i


def _unary(tokens: list[tuple[str, str]], i: int, text: str) -> tuple[Node, int]:
    if i >= len(tokens):
        raise FormulaError(f"{text!r} ends too early")
    kind, value = tokens[i]
    if (kind, value) == ("op", "-"):
        inner, i = _unary(tokens, i + 1, text)
        return ("neg", inner), i
    if (kind, value) == ("op", "("):
        inner, i = _sum(tokens, i + 1, text)
        if i >= len(tokens) or tokens[i] != ("op", ")"):
            raise FormulaError(f"unclosed '(' in {text!r}")
        return inner, i + 1
    if kind == "num":
        return ("num", float(value)), i + 1
    if kind == "name":
        return ("name", value), i + 1
    raise FormulaError(f"unexpected {value!r} in {text!r}")


def names(node: Node) -> set[str]:
    """The names an expression reads (units excepted)."""
    if node[0] == "name":
        return set() if node[1] in UNITS else {node[1]}
    if node[0] == "num":
        return set()
    return set().union(*(names(child) for child in node[1:]))


def evaluate(node: Node, values: dict[str, float]) -> float | None:
    """The expression's value; None when a name has no value or a division is by zero."""
    kind = node[0]
    if kind == "num":
        return node[1]
    if kind == "name":
        return UNITS.get(node[1], values.get(node[1]))
    if kind == "neg":
        inner = evaluate(node[1], values)
        return None if inner is None else -inner
    a, b = evaluate(node[1], values), evaluate(node[2], values)
    if a is None or b is None:
        return None
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    return None if b == 0 else a / b


def parse_condition(text: str) -> tuple[Node, str, Node]:
    m = _compile(_CONDITION).match(text.strip())
    if m is None:
        raise FormulaError(f"a condition is `expression OP expression` (OP one of {', '.join(COMPARE_OPS)}): {text!r}")
    return parse_expression(m.group(1)), m.group(2), parse_expression(m.group(3))


def parse_line(text: str) -> list[tuple[Node, str | None]]:
    """The holes of a line of text, parsed (FormulaError when one does not parse)."""
    holes = [(parse_expression(m.group(1)), m.group(2)) for m in _compile(_HOLE).finditer(text)]
    left = _compile(_HOLE).sub("", text)
    if "{" in left or "}" in left:
        raise FormulaError(f"a brace that is not a hole {{expression}} or {{expression:unit}} ({', '.join(FORMATS)}): {text!r}")
    return holes


def line_problems(line: dict) -> list[str]:
    """What is wrong with one ``[fix] numbers`` entry (kb check)."""
    problems = []
    try:
        parse_line(line["text"])
    except FormulaError as exc:
        problems.append(f"text: {exc}")
    for condition in line["when"]:
        try:
            parse_condition(condition)
        except FormulaError as exc:
            problems.append(f"when: {exc}")
    return problems


def fmt(value: float, unit: str | None) -> str:
    if unit in ("GiB", "MiB"):
        return f"{value / UNITS[unit]:.2f} {unit}"
    if unit == "int":
        return f"{round(value):,}"
    if unit == "pct":
        return f"{value * 100:.0f}%"
    if value == int(value):
        return str(int(value))
    return f"{value:.3g}" if abs(value) < 100 else f"{value:,.0f}"


def render(line: dict, values: dict[str, float]) -> str | None:
    """One ``[fix] numbers`` entry filled from ``values``, or None when it does not apply."""
    try:
        for condition in line["when"]:
            left, op, right = parse_condition(condition)
            a, b = evaluate(left, values), evaluate(right, values)
            if a is None or b is None or not COMPARE_OPS[op](a, b):
                return None
        holes = parse_line(line["text"])
    except FormulaError:  # kb check reports it; diagnose leaves the line out
        return None
    filled = []
    for node, unit in holes:
        value = evaluate(node, values)
        if value is None:
            return None
        filled.append(fmt(value, unit))
    parts = iter(filled)
    return _compile(_HOLE).sub(lambda _m: next(parts), line["text"]).strip()


def values_from(texts: dict[str, str]) -> dict[str, float]:
    """Numbers from captures and facts: a size is its bytes, a plain number itself; the rest is left out."""
    out = {}
    for key, text in texts.items():
        value = size_value(text.replace(",", "")) if isinstance(text, str) else None
        if value is not None:
            out[key] = value
    return out


def match_values(m: Match, family_captures: dict[str, str] | None = None) -> dict[str, float]:
    """The numbers a match's lines compute with: the log's facts, its family's captures on the same error
    (an OOM message's sizes), the match's own captures (each overriding the one before)."""
    return values_from({**m.environment, **(family_captures or {}), **m.captures})


def lines_for(m: Match, knowledge: Knowledge) -> list[dict]:
    """The entry's ``[fix] numbers`` lines, then its family's whose name it does not use."""
    own = list(m.entry.numbers)
    if m.entry.kind == "case":
        family = knowledge.family(m.entry.family)
        if family is not None:
            taken = {line["name"] for line in own}
            own += [line for line in family.numbers if line["name"] not in taken]
    return own


def attach_numbers(answers: list[Answer], family_matches: list[Match], knowledge: Knowledge) -> None:
    """The numbers stage: each answer gets the lines of its ``[fix] numbers`` that its evidence fills."""
    by_error = {(id(fm.error), fm.entry.key): fm.captures for fm in family_matches}
    for answer in answers:
        m = answer.match
        lines = lines_for(m, knowledge)
        if not lines:
            continue
        values = match_values(m, by_error.get((id(m.error), m.entry.family)))
        answer.numbers = [text for text in (render(line, values) for line in lines) if text]

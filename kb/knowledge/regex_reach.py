"""What a redaction rule's regex can match, read from the regex itself (issue 26, turn 46): how few characters a match
spans, and whether a match can hold a space or a line end. Redaction (kb/diagnose/redact) scans a long text's words or
its joined lines alone for a rule whose matches cannot leave them; the index computes this once for tables/secrets.toml
when it is built (kb/knowledge/index_build.py), so a run does not parse the rules' regexes again.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# every character str.isspace() (and re's \s) calls a space
SPACES = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
LINE_ENDS = "\n\r"


def regex_reach(source: str) -> tuple[int, bool, bool]:
    """Rule.reach for a regex's source: (its least width, one_word, one_line)."""
    from re import _constants as c
    from re import _parser

    parsed = _parser.parse(source)
    ascii_only = bool(parsed.state.flags & c.SRE_FLAG_ASCII)

    def can_match(item: tuple, chars: str) -> bool:  # an IN set, a literal or ANY: may it match one of ``chars``?
        op, arg = item
        if op is c.LITERAL:
            return chr(arg) in chars
        if op in (c.NOT_LITERAL, c.ANY):
            return True
        if op is c.IN:
            negate = any(o is c.NEGATE for o, _a in arg)
            return any(_in_set(arg, ch, c, ascii_only) != negate for ch in chars)
        return True

    def reaches(items, chars: str) -> bool:  # a consuming node or a lookahead that may match one of ``chars``
        for op, arg in items:
            if op in (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN):
                if can_match((op, arg), chars):
                    return True
            elif op is c.SUBPATTERN:
                if reaches(arg[3], chars):
                    return True
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
                if reaches(arg[2], chars):
                    return True
            elif op is c.ATOMIC_GROUP:
                if reaches(arg, chars):
                    return True
            elif op is c.BRANCH:
                if any(reaches(p, chars) for p in arg[1]):
                    return True
            elif op in (c.ASSERT, c.ASSERT_NOT):
                if arg[0] >= 0 and reaches(arg[1], chars):  # a lookahead (a lookbehind reads the real text)
                    return True
            elif op is c.AT:
                if arg not in (c.AT_BOUNDARY, c.AT_NON_BOUNDARY, c.AT_BEGINNING, c.AT_BEGINNING_STRING,
                               c.AT_UNI_BOUNDARY, c.AT_UNI_NON_BOUNDARY, c.AT_LOC_BOUNDARY, c.AT_LOC_NON_BOUNDARY):
                    return True  # an end anchor: a window's end would read as the text's
            else:
                return True  # a back-reference, a conditional: not analysed
        return False

    def extent(items) -> tuple[int, int]:  # (fewest characters consumed, fewest characters consumed or looked ahead at)
        consumed = furthest = 0
        for op, arg in items:
            if op in (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN):
                used, reached = 1, 1
            elif op is c.SUBPATTERN:
                used, reached = extent(arg[3])
            elif op is c.ATOMIC_GROUP:
                used, reached = extent(arg)
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
                one, one_reached = extent(arg[2])
                used, reached = arg[0] * one, (arg[0] - 1) * one + one_reached if arg[0] else 0
            elif op is c.BRANCH:
                pairs = [extent(p) for p in arg[1]]
                used, reached = min(u for u, _r in pairs), min(r for _u, r in pairs)
            elif op is c.ASSERT and arg[0] >= 0:
                used, reached = 0, extent(arg[1])[1]
            else:  # a lookbehind, a negative lookahead, an anchor: nothing sure
                used, reached = 0, 0
            furthest = max(furthest, consumed + reached)
            consumed += used
        return consumed, max(furthest, consumed)

    width = extent(parsed)[1]
    return width, width > 0 and not reaches(parsed, SPACES), width > 0 and not reaches(parsed, LINE_ENDS)


_UNI_LINEBREAKS = "\n\x0b\x0c\r\x1c\x1d\x1e\x85\u2028\u2029"


def _in_category(name: str, ch: str, ascii_only: bool = False) -> bool:
    """Whether ``ch`` is in re's category ``name`` as the parser gives it (CATEGORY_DIGIT, CATEGORY_NOT_SPACE, ...: the
    compiler reads them as Unicode's in a str pattern without the ASCII flag); one not known here is taken to hold it."""
    kind = name.removeprefix("CATEGORY_").removeprefix("UNI_").removeprefix("LOC_")
    if kind == "DIGIT":
        return ch.isdigit() if not ascii_only else "0" <= ch <= "9"
    if kind == "WORD":
        return ch.isalnum() or ch == "_"
    if kind == "SPACE":
        return ch in " \t\n\r\x0b\x0c" if ascii_only else ch.isspace()
    if kind == "LINEBREAK":
        return ch == "\n" if ascii_only else ch in _UNI_LINEBREAKS
    if kind.startswith("NOT_"):
        return not _in_category(name.replace("NOT_", ""), ch, ascii_only)
    return True


def _in_set(items: list, ch: str, c: Any, ascii_only: bool) -> bool:
    """Whether ``ch`` is in the character set ``items`` (re's parsed IN, its NEGATE aside)."""
    code = ord(ch)
    for op, arg in items:
        if op is c.LITERAL and arg == code or op is c.RANGE and arg[0] <= code <= arg[1]:
            return True
        if op is c.CATEGORY and _in_category(str(arg), ch, ascii_only):
            return True
        if op not in (c.LITERAL, c.RANGE, c.CATEGORY, c.NEGATE):
            return True  # (not analysed: taken to hold it)
    return False


def secrets_reach(table: dict[str, Any]) -> list[list[Any]]:
    """regex_reach of each token rule of tables/secrets.toml, in the table's order: [width, one_word, one_line]."""
    return [list(regex_reach(rule["regex"])) for rule in table["rule"]]

"""Literals of which every match of a regex holds at least one: a pre-filter for the signatures that have no single
required literal (kb/knowledge/literal.py gives '' for them), worked out when the index is built.

A signature whose regex is an alternation (``CUDA out of memory|CUDA error: out of memory``) has no literal common
to every match, so `kb diagnose` built its entry's signatures and compiled its regex for every message (12 such
signatures made ~8 entries and ~11 regexes a one-line run's work). Each alternative, though, has its own required
literal: a message holding none of them cannot match. ``any_literals`` gives that set, or () when some way through
the regex needs no literal (then the regex is tried, as before). A literal of one character will do (``'`` for
``^'(?P<model_type>...)'$``, a bare KeyError's message): unlike literal.py's, these only pre-filter, and any
literal a message lacks spares its signature.

Sound by construction: a sequence needs what any one of its items needs (a literal run, a group, a repeat of at
least one); an alternation needs one of what each of its branches needs. Case-insensitive and verbose patterns
(globally or in a group), lookarounds, classes and optional parts need nothing.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_NO_CASE = re.IGNORECASE | re.VERBOSE


def any_literals(pattern: str) -> tuple[str, ...]:
    """Literals of which every match of ``pattern`` holds one, the most selective set found (its shortest literal the
    longest); () when none is certain."""
    from re import _parser  # private but stable since 3.11 (kb/knowledge/literal.py reads it too)

    try:
        parsed = _parser.parse(pattern)
    except re.error:
        return ()
    if parsed.state.flags & _NO_CASE:
        return ()
    found = _sequence(list(parsed))
    return tuple(sorted(found)) if found else ()


def _better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b, key=lambda s: (min(map(len, s)), -len(s)))


def _sequence(items: list[Any]) -> frozenset[str] | None:
    """What a sequence of parsed items needs: its longest literal run, or what one of its items needs."""
    from re import _constants as C  # noqa: N812

    best: frozenset[str] | None = None
    run: list[str] = []
    for op, arg in [*items, (None, None)]:
        if op is C.LITERAL:
            run.append(chr(arg))
            continue
        if run:
            best = _better(best, frozenset(["".join(run)]))
        run = []
        if op is C.SUBPATTERN and not (arg[1] or arg[2]):  # a group without local flags
            best = _better(best, _sequence(list(arg[3])))
        elif op is C.BRANCH:
            best = _better(best, _branch(arg[1]))
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT) and arg[0] >= 1:
            best = _better(best, _sequence(list(arg[2])))
    return best


def _branch(alternatives: list[Any]) -> frozenset[str] | None:
    """One of what each alternative needs; None when some alternative needs nothing."""
    union: set[str] = set()
    for alternative in alternatives:
        needed = _sequence(list(alternative))
        if needed is None:
            return None
        union |= needed
    return frozenset(union)

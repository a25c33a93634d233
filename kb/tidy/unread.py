"""The ``unread`` rule: a signature meant for a message pasted without its exception type that the parser never reads.

kb's parser (kb/diagnose/parser.py) reads a line that names no exception type as an error only when the line holds a
known message: one of the signatures' literals of at least KNOWN_MESSAGE_MIN characters (Knowledge.literals(); a short
literal, ``Killed`` or `` 137``, is in ordinary log lines). A signature with ``exception = []`` is written for such
lines; if a form of its message holds no literal that long, a line of that form alone never becomes an error and the
signature cannot fire on it. It still fires where the text reaches the matcher another way (inside a typed error's
message: a ``ChildFailedError``'s failure table, a ``CalledProcessError``), so the fix is to say so (list that
exception type) or to restate it: a process line goes to tables/priors.toml ``[[process]]``, whose rules find their
own literals, however short.

A form is one way through the message's alternations (``a|b``, nested groups); its literal runs are the stretches of
plain characters it must hold. The form is read when one of its runs holds a known literal. Optional parts and
repeats end a run (what they hold may be absent or repeated), so the check never calls a readable form unread for
a literal it merely might hold.
"""

from __future__ import annotations

import re

from kb.knowledge.model import KNOWN_MESSAGE_MIN, Case, Family, Knowledge, Signature
from kb.tidy.problem import Problem

MAX_FORMS = 256  # ways through a message's alternations worked out; past it the check gives up (nothing reported)
_BREAK = None  # in a form: a point where a literal run ends (a class, an optional part, a repeat)


def unread_forms(signature: Signature, known: tuple[str, ...]) -> list[str]:
    """The forms of ``signature``'s message (each shown by its longest literal run) that a line holding nothing else
    is never read by: no literal run of the form holds one of ``known``. Empty for a signature that lists exception
    types (it is written for typed lines) or whose message the check cannot take apart."""
    if signature.exceptions:
        return []
    forms = _message_forms(signature.raw["message"])
    if forms is None:
        return []
    out = []
    for runs in forms:
        if not any(k in run for run in runs for k in known):
            shown = max(runs, key=len) if runs else ""
            if shown not in out:
                out.append(shown)
    return out


def unread_problems(entry: Case | Family, knowledge: Knowledge) -> list[Problem]:
    """A Problem for each signature of ``entry`` with forms the parser never reads on their own."""
    known = knowledge.literals()
    out = []
    for signature in entry.signatures:
        forms = unread_forms(signature, known)
        if forms:
            listed = ", ".join(repr(f) for f in forms)
            out.append(Problem(
                entry.file, "unread",
                f"signature {signature.name!r} lists no exception type, but a line holding only its form(s) {listed} is "
                f"never read as an error (no literal of {KNOWN_MESSAGE_MIN}+ characters marks it): list the exception "
                f"type whose message carries it, or restate it (process evidence: tables/priors.toml [[process]])"))
    return out


def _message_forms(pattern: str) -> list[list[str]] | None:
    """Each way through ``pattern``'s alternations as its literal runs; None when it cannot be taken apart (it does not
    parse, ignores case or is verbose, or has more than MAX_FORMS ways)."""
    from re import _parser  # private but stable since 3.11 (kb/knowledge/literal.py and prefilter.py read it too)

    try:
        parsed = _parser.parse(pattern)
    except re.error:
        return None
    if parsed.state.flags & (re.IGNORECASE | re.VERBOSE):
        return None
    paths = _sequence(list(parsed))
    if paths is None:
        return None
    return [_runs(path) for path in paths]


def _runs(path: list[str | None]) -> list[str]:
    runs, run = [], []
    for item in [*path, _BREAK]:
        if item is _BREAK:
            if run:
                runs.append("".join(run))
            run = []
        else:
            run.append(item)
    return runs


def _sequence(items: list) -> list[list[str | None]] | None:
    """The ways through a sequence of parsed items: lists of characters and breaks."""
    from re import _constants as C  # noqa: N812

    paths: list[list[str | None]] = [[]]
    for op, arg in items:
        if op is C.LITERAL:
            options: list[list[str | None]] | None = [[chr(arg)]]
        elif op is C.AT:  # ^, $, \b: no character consumed, the run goes on
            continue
        elif op is C.SUBPATTERN and not (arg[1] or arg[2]):  # a group without local flags
            options = _sequence(list(arg[3]))
        elif op is C.BRANCH:
            options = []
            for alternative in arg[1]:
                found = _sequence(list(alternative))
                if found is None:
                    return None
                options += found
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            low, high, body = arg[0], arg[1], arg[2]
            if low == 0:
                options = [[_BREAK]]
            else:
                inner = _sequence(list(body))
                if inner is None:
                    return None
                options = inner if low == high == 1 else [[_BREAK, *p, _BREAK] for p in inner]
        else:  # a class, any character, a back-reference, a lookaround: the run ends
            options = [[_BREAK]]
        if options is None:
            return None
        paths = [p + o for p in paths for o in options]
        if len(paths) > MAX_FORMS:
            return None
    return paths

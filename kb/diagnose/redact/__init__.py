"""Remove secrets and personal paths from text before kb echoes it, and cut text without leaving a
piece of a secret behind.

What is a secret is data: tables/secrets.toml, read through kb/knowledge (the index's validated
copy): token shapes following gitleaks' and detect-secrets' rules, and the names beside which a
value is a secret (``NAME=value``, ``"password": "..."``, ``--token X``). Each rule is compiled
on first use, and only for text that holds one of its keywords. The rules run on the text as given,
on the text with its JSON and URL escapes decoded (a token after ``\\n`` or ``%3D``), and, for token
shapes, on the text with its line wraps joined (a token cut by the terminal's width); whatever they
find is masked in the original text. Code identifiers and numbers are never masked: a name's words
decide (``max_new_tokens`` is not a token), and a value must look like a secret, not like code.

Redaction runs on whole text first and only then is the text cut for display (a cut first could
leave 39 of a key's 40 characters, which no rule recognises any more). Where text must be cut before
it can be redacted (the parser keeps at most so many characters of a frame's code or a nearby line),
``clip`` cuts at a space and drops the word the limit fell in, so no piece of a token survives.

Every rule runs in time linear in the text: each starts at a fixed string or at the start of a run of
the characters it takes (a lookbehind), never anywhere inside a long run; the views are built in one
pass. What is redacted is listed in docs/diagnose.md ("Secrets and paths").
"""

from __future__ import annotations

from kb.diagnose.redact.rules import name_rule, name_spans, screen, table, token_rules  # noqa: F401 - table: tests
from kb.diagnose.redact.views import View, decoded, identity, joined

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from typing import Any

    from kb.diagnose.redact.rules import Rule


_SEEN: dict[str, list[tuple[int, int, str, bool]]] = {}  # secret_spans by text: a diagnosis redacts the same texts
# again and again (an error's message for its every answer, a capture in the evidence and in the fix)
SEEN_TEXT_CHARS = 4096  # texts remembered: this long at most, this many at most (then forgotten all at once)
SEEN_TEXTS = 256


def secret_spans(text: str) -> list[tuple[int, int, str, bool]]:
    """``(start, end, mask, wrapped)`` for every secret in ``text``, sorted, overlapping ones merged;
    ``wrapped``: the span crosses a line wrap, each line's piece is masked apart."""
    seen = _SEEN.get(text)
    if seen is not None:
        return list(seen)
    spans = _secret_spans(text)
    if len(text) <= SEEN_TEXT_CHARS:
        if len(_SEEN) >= SEEN_TEXTS:
            _SEEN.clear()
        _SEEN[text] = spans
        return list(spans)
    return spans


def _secret_spans(text: str) -> list[tuple[int, int, str, bool]]:
    if not text:
        return []
    found: list[tuple[int, int, str, bool]] = []
    base = identity(text)
    views = [base]
    plain = decoded(base)
    if plain is not None:
        views.append(plain)
        twice = decoded(plain)  # JSON inside a JSON string: escaped twice
        if twice is not None:
            views.append(twice)
    keywords, min_word = screen()  # (the token rules are built only for a text that one of them may apply to)
    names = name_rule()
    for view in views:
        lowered = view.text.lower()
        longest = _longest_word(view.text)
        if longest >= min_word or keywords.search(lowered) is not None:
            for rule in _applicable(token_rules(), lowered, longest):
                if rule.applies(lowered, longest):
                    for start, end in rule.spans(view.text):
                        found.append((*view.original_span(start, end), rule.mask, False))
        if any(k in lowered for k in names.keywords):
            for start, end in name_spans(view.text, names):
                found.append((*view.original_span(start, end), "***", False))
    if "\n" in text:
        found.extend(_wrapped(views[-1], token_rules()))
    return _merge(found)


_BY_KEYWORD: list[tuple[tuple[Rule, ...], tuple[int, ...], tuple[tuple[str, tuple[int, ...]], ...]]] = []


def _applicable(rules: tuple[Rule, ...], lowered: str, longest: int) -> list[Rule]:
    """The rules that may apply to a text (a superset of those whose ``applies`` holds), in table order: those
    without keywords and those with a keyword in ``lowered``, one ``in`` per distinct keyword instead of a
    generator per rule (a text with no keyword, most error messages, costs a few microseconds)."""
    if not _BY_KEYWORD or _BY_KEYWORD[0][0] is not rules:
        by_keyword: dict[str, list[int]] = {}
        for i, rule in enumerate(rules):
            for keyword in rule.keywords:
                by_keyword.setdefault(keyword, []).append(i)
        always = tuple(i for i, rule in enumerate(rules) if not rule.keywords)
        _BY_KEYWORD[:] = [(rules, always, tuple((k, tuple(v)) for k, v in by_keyword.items()))]
    _, always, by_keyword_items = _BY_KEYWORD[0]
    chosen = set(always)
    for keyword, indices in by_keyword_items:
        if keyword in lowered:
            chosen.update(indices)
    return [rules[i] for i in sorted(chosen) if longest >= rules[i].min_word]


def _wrapped(view: View, rules: tuple[Rule, ...]) -> list[tuple[int, int, str, bool]]:
    """Tokens cut across a line wrap: the rules that may wrap, on the text with its wraps joined; a match
    counts when it crosses a join and what follows the join looks like the rest of a token."""
    view = joined(view)
    if view is None:
        return []
    out = []
    lowered = view.text.lower()
    longest = _longest_word(view.text)
    for rule in rules:
        if not rule.wraps or not rule.applies(lowered, longest):
            continue
        for start, end in rule.spans(view.text):
            crossed = [j for j in view.joins if start < j < end]
            if crossed and _continues(view.text[crossed[0]:end]):
                out.append((*view.original_span(start, end), rule.mask, True))
    return out


def _longest_word(text: str) -> int:
    return max(map(len, text.split()), default=0)


def _continues(tail: str) -> bool:
    """Whether the text after a join looks like the rest of a token, not the next line's first word."""
    return any(c.isdigit() or c in "+/=_-" for c in tail) or (
        len(tail) >= 12 and any(c.isupper() for c in tail[1:]) and any(c.islower() for c in tail))


def _merge(found: list[tuple[int, int, str, bool]]) -> list[tuple[int, int, str, bool]]:
    merged: list[tuple[int, int, str, bool]] = []
    for start, end, mask, wrapped in sorted(found):
        if end <= start:
            continue
        if merged and start < merged[-1][1]:
            s, e, m, w = merged[-1]
            merged[-1] = (s, max(e, end), m if m == mask else "***", w or wrapped)
        else:
            merged.append((start, end, mask, wrapped))
    return merged


def redact(text: str) -> str:
    """``text`` with every secret masked (tables/secrets.toml)."""
    spans = secret_spans(text)
    if not spans:
        return text
    out = []
    last = 0
    for start, end, mask, wrapped in spans:
        out.append(text[last:start])
        piece = text[start:end]
        if wrapped and "\n" in piece:  # one mask per line: the line structure stays
            out.append("\n".join(mask if line.strip() else line for line in piece.split("\n")))
        else:
            out.append(mask)
        last = end
    out.append(text[last:])
    return "".join(out)


def redact_tree(value: Any) -> Any:
    """Every string in ``value`` (dicts, lists, tuples of strings and scalars) redacted; keys too."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact_tree(k) if isinstance(k, str) else k: redact_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact_tree(v) for v in value)
    return value


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters (plus "…") at a space: the word the limit falls in is
    dropped whole, so a cut never leaves part of a token that redaction would no longer recognise."""
    if len(text) <= limit:
        return text
    if limit <= 0:
        return "…"
    cut = text[:limit]
    if not text[limit].isspace():
        space = max(cut.rfind(" "), cut.rfind("\t"))
        cut = cut[:space] if space != -1 else ""
    return cut.rstrip() + "…"

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

from kb.diagnose.redact.rules import consonant_runs, keywordless_rules, name_rule, name_spans, screen, table, token_rules  # noqa: F401 - table: tests
from kb.diagnose.redact.spellings import respelled
from kb.diagnose.redact.views import (INVISIBLE, WRAP_MIN_LINE, View, decoded, doubled_quotes, erased, folded,
                                     identity, joined, odd_escapes, quoted_printable, stripped, unfolded)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from typing import Any

    from kb.diagnose.redact.rules import Names, Rule


_SEEN: dict[str, list[tuple[int, int, str, bool]]] = {}  # secret_spans by text: a diagnosis redacts the same texts
# again and again (an error's message for its every answer, a capture in the evidence and in the fix)
SEEN_TEXT_CHARS = 4096  # texts remembered: this long at most, this many at most (then forgotten all at once)
SEEN_TEXTS = 256


def secret_spans(text: str) -> list[tuple[int, int, str, bool]]:
    """``(start, end, mask, wrapped)`` for every secret in ``text``, sorted, overlapping ones merged;
    ``wrapped``: the span crosses a line wrap, each line's piece is masked apart. A base64 word that decodes
    to text holding a secret (``echo aGZf... | base64 -d``, a Docker ``auth`` of ``user:password``) is one."""
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


BASE64_DEPTH = 2  # (leaks46) a base64 word is decoded and its text searched this many levels deep: base64 of base64


def _secret_spans(text: str, inner: int = 0) -> list[tuple[int, int, str, bool]]:
    """secret_spans, not remembered; ``inner``: the text is a base64 (or hex) word decoded that many times; its words
    are decoded again up to BASE64_DEPTH (leaks46: a Kubernetes secret's data of a base64 config, ``base64 | base64``)."""
    if not text:
        return []
    found: list[tuple[int, int, str, bool]] = []
    base = identity(text)
    views = [base]
    if "\x08" in text:  # backspaces: the text as the terminal shows it, then decoded from there
        shown_bs = erased(base)
        if shown_bs is not None:
            views.append(shown_bs)
            base = shown_bs
    # (leaks45) colours gone, nothing decoded; (fix48) invisible characters too: a zero width inside a token whose shape
    # takes URL escapes (a Twitter bearer token's %2B) leaves it whole in no other view (the decoded one reads %2B as +)
    clean = (stripped(base) if "\x1b" in text or "\x9b" in text or not text.isascii() and any(c in text for c in INVISIBLE)
             else None)
    if clean is not None:
        views.append(clean)
    plain = decoded(base)
    if plain is not None:
        views.append(plain)
        if clean is None and ("\x1b" in plain.text or "\x9b" in plain.text):
            # (turn 49) a terminal sequence that an escape spelled (a notebook's JSON traceback: `\u001b[0;31mnet use`):
            # decoded, it stands before the secret's context (no word boundary after its `m`); the view without it too
            # (not last: the readings below go on from the view they did before)
            plain_clean = stripped(plain)
            if plain_clean is not None:
                views.insert(len(views) - 1, plain_clean)
        twice = decoded(plain)  # JSON inside a JSON string: escaped twice
        if twice is not None:
            views.append(twice)
            thrice = decoded(twice)  # a JSON log of a line that quoted JSON: escaped three times
            if thrice is not None:
                views.append(thrice)
    shown = None
    if ("\x1b" in text or "\x9b" in text) and (odd_escapes(text) or not text.isascii() and any(c in text for c in INVISIBLE)):
        # terminal sequences kept (an OSC's title or link; a CSI ending on a token's first letter), the rest decoded
        shown = decoded(base, raw=True)
        if shown is not None:
            views.insert(1, shown)
            again = decoded(shown, raw=True)
            if again is not None:
                views.insert(2, again)
    for encoded in (quoted_printable, doubled_quotes):  # (turn 39) a mail's quoted-printable, a CSV field
        views.extend(_and_decoded(encoded(base)))
    # (turn 42) Perl's \x{3d}, Python's \U0000003d, &#61 without ;, Markdown's \_, a form's +
    respelt = _and_decoded(respelled(base))
    if respelt:
        spelt_alike = folded(respelt[-1])  # (contraseña, a Cyrillic а in a name: as the other views read them)
        if spelt_alike is not None:
            respelt.append(spelt_alike)
    last = views[-1]
    look_alike = folded(last)  # ＰＡＳＳＷＯＲＤ=, pаssword (a Cyrillic а) read as ASCII
    if look_alike is not None:
        views.append(look_alike)
    for kept in (shown, base):  # (turn 43) an OSC's title is only in the views that keep it: the decoded one drops it
        if kept is not None and kept is not last:
            kept_alike = folded(kept)
            if kept_alike is not None:
                views.append(kept_alike)
    one_line = None
    joined_decoded: list[View] = []
    if "\n" in text or "\r" in text:  # (turn 41) a text folded at one width: its lines joined whatever they hold
        one_line = unfolded(views[-1])
        if one_line is not None:
            # (turn 48) and the text as given unfolded, then decoded: an escape or an entity that the fold cut
            # (`\"password\` / `": \"...`, `&nbs` / `p;`) is one only once its lines are joined (before the last view:
            # the wrapped readings below go on from the one they did before)
            if _cut_escape(text):
                unfolded_base = one_line if views[-1] is base else unfolded(base)
                joined_decoded = _and_decoded(unfolded_base)[1:] if unfolded_base is not None else []
                views.extend(joined_decoded)
            views.append(one_line)
    if respelt:  # (not last: the look-alike, unfolded and wrapped readings go on from the view they did before; a
        views[-1:-1] = respelt  # form's + read as a space would cut a base64 key that a wrap cut)
    keywords, min_word = screen()  # (the token rules are built only for a text that one of them may apply to)
    names = name_rule()
    for view in views:
        lowered = view.text.lower()
        longest = _longest_word(view.text)
        if keywords.search(lowered) is not None:
            rules = _applicable(token_rules(), lowered, longest)
        elif longest >= min_word:  # no rule's keyword: only the rules without one can apply (the same ones, in order)
            rules = [rule for rule in keywordless_rules() if longest >= rule.min_word]
        else:
            rules = []
        runs = _Runs(view.text) if len(view.text) >= WINDOW_TEXT else None
        for rule in rules:
            if rule.applies(lowered, longest):
                for start, end in rule.spans(view.text, runs.windows(rule) if runs is not None else None):
                    found.append(_span(text, view, start, end, rule.mask, view is one_line or view in joined_decoded))
        if any(k in lowered for k in names.keywords):
            for start, end in name_spans(view.text, names):
                found.append(_span(text, view, start, end, "***", view is one_line or view in joined_decoded))
            if "\u2514" in view.text:
                for start, end in _marked_values(view.text, names):
                    found.append(_span(text, view, start, end, "***", False))
    last = views[-1].text
    if "\n" in last or "\r" in last:  # (a JSON string's \n is a line end once decoded)
        found.extend(_wrapped(views[-1], None, names))
        if len(views) > 1 and views[-1] is not base:  # a decoded escape can end a token early (user:pa%40ss@host): the text as given too
            found.extend(_wrapped(base, None, names))
            if clean is not None and clean is not views[-1]:  # (leaks45) and as given without its colours
                found.extend(_wrapped(clean, None, names))
    if plain is not None and "%" in text and plain.text.count("\n") > text.count("\n"):
        # (fix49) a line end an escape spelled (a JSON string's \n, <br>, &#10;) inside a token whose shape holds URL
        # escapes as its own characters (a Twitter bearer token's %2B, %3D): the decoded view has the line end but
        # reads %2B as + (the shape's end), the text as given has no line end; the escapes decoded but the URL's too
        escaped_lines = decoded(base, urls=False)
        if escaped_lines is not None and escaped_lines.text.count("\n") > text.count("\n"):
            found.extend(_wrapped(escaped_lines, None, names))
    if not inner:
        found.extend(_cut_head(text))
        if "..." in text or "\u2026" in text:
            found.extend(_ellipsis_cuts(text))
    longest_word = _longest_word(text) if inner < BASE64_DEPTH else 0
    if longest_word >= BASE64_MIN:
        found.extend(_base64_secrets(text, inner + 1))
        if "\n" in text:
            found.extend(_base64_blocks(text, inner + 1))
        if longest_word >= HEX_MIN:
            found.extend(_hex_secrets(text, inner + 1))
    if not inner and any(mark in text for mark in _DUMP_MARKS):
        found.extend(_hex_dumps(text))
    merged = _merge(found)
    if not inner and merged:
        again = _recurring(text, merged)
        if again:
            merged = _merge(merged + again)
    return merged


MARKED_LINES = 8  # (turn 49) lines of markers looked through above a value's, at most, for the code line


def _marked_values(text: str, names: Names) -> list[tuple[int, int]]:
    """(turn 49) The values that loguru's ``diagnose`` (and better_exceptions) prints under a frame's code line, each
    under its variable: ``client.login(password)`` / ``│            └ 'VALUE'``: a value whose marker ``└`` stands
    under a secret-like name is judged as that name's (the key-name rule's judge). The markers' leftmost column is
    the code's first (a log record's own prefix before the code line's indentation, ``{"log": "``, shifts it; a
    prefix every line holds, _shared_prefix, is read past). Linear: each marker line reads the few lines above it."""
    out: list[tuple[int, int]] = []
    at = text.find("\u2514")
    while at != -1:
        line_start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", at)
        line_end = len(text) if line_end == -1 else line_end
        column = at - line_start
        value_start = at + 1
        while value_start < line_end and text[value_start] == " ":
            value_start += 1
        quote = text[value_start:value_start + 1]
        quoted = quote in ("'", '"')
        if quoted:
            close = text.find(quote, value_start + 1, line_end)
            value_end = close if close != -1 else line_end
            value_start += 1
        else:
            value_end = value_start
            while value_end < line_end and not text[value_end].isspace():
                value_end += 1
        value = text[value_start:value_end]
        own = text[line_start:at]
        prefix = "" if own.strip(" \u2502") == "" else _shared_prefix(text, line_start, own)
        if own.strip(" \u2502") != "" and not prefix:
            at = text.find("\u2514", line_end)
            continue  # (not a marker line)
        p = len(prefix)  # (review50) each line's own prefix (docker's `{"log":"`, compose's `app-1  | `, `srun -l`'s)
        leftmost = p + len(own[p:]) - len(own[p:].lstrip(" "))
        above = line_start
        for _ in range(MARKED_LINES):  # up through the marker lines (only spaces, │ and └ before the column)
            if above == 0 or not value:
                break
            above = text.rfind("\n", 0, above - 1) + 1
            line = text[above:text.find("\n", above)]
            if not line.startswith(prefix):
                break  # (another record's or program's line)
            marks = line[p:column + 1]
            if marks.strip(" \u2502\u2514") == "":
                leftmost = min(leftmost, p + len(marks) - len(marks.lstrip(" ")))
                continue
            code = p + len(line[p:]) - len(line[p:].lstrip(" "))
            shifted = line.find("  ", code)  # (the code after a record's prefix and the code's indentation)
            starts = [code] + ([len(line) - len(line[shifted:].lstrip(" "))] if shifted != -1 else [])
            for first in starts:
                c = column - leftmost + first
                if not 0 <= c < len(line) or not (line[c].isalnum() or line[c] == "_"):
                    continue
                name_start = name_end = c
                while name_start > 0 and (line[name_start - 1].isalnum() or line[name_start - 1] == "_"):
                    name_start -= 1
                while name_end < len(line) and (line[name_end].isalnum() or line[name_end] == "_"):
                    name_end += 1
                if names.is_secret(line[name_start:name_end], value, quoted, ""):
                    out.append((value_start, value_end))
                    break
            break
        at = text.find("\u2514", line_end)
    return out


def _shared_prefix(text: str, line_start: int, own: str) -> str:
    """(review50) The prefix a marker line (``own``: its text before the marker) shares with the line above it, when
    only spaces and ``│`` follow that prefix: a log shipper's or launcher's own prefix on every line (docker's json-file
    records, docker compose's ``app-1  | ``, ``kubectl logs --prefix``, ``srun -l``'s ``0: ``); "" otherwise."""
    if line_start == 0:
        return ""
    above = text.rfind("\n", 0, line_start - 1) + 1
    line = text[above:line_start - 1]
    n = 0
    while n < len(own) and n < len(line) and own[n] == line[n]:
        n += 1
    while n > 0 and own[n - 1] in " \u2502":
        n -= 1
    return own[:n] if n and own[n:].strip(" \u2502") == "" else ""


WINDOW_TEXT = 1024  # (leaks46) a view this long or longer is scanned in windows by the rules whose matches allow it
RUN_MIN = 14  # a word (a run of characters that are not spaces) this long or longer is a window for a rule of its width
WINDOW_GAP = 16  # windows closer than this are scanned as one (fewer scans; the characters between are scanned too)


class _Runs:
    """(leaks46) The words of a long view that a token rule may match in: a rule whose every match lies inside a word
    of ``width`` characters or more (Rule.reach: its regex consumes and looks ahead at no space, and at least that many
    characters) is run on those words alone, each with the space after it, instead of on the whole view (the rules
    without keywords, ~12 of them, were a third of redaction's CPU; most of a log's words are short). Their lookbehinds
    read the text before a window, as in a whole scan, so each finds the same matches. Linear: one scan for the words,
    then each rule's windows."""

    __slots__ = ("text", "_runs", "_by_width")

    def __init__(self, text: str) -> None:
        self.text = text
        self._runs: list[tuple[int, int]] | None = None
        self._by_width: dict[int, list[tuple[int, int]]] = {}

    def windows(self, rule: Rule) -> list[tuple[int, int]] | None:
        """The windows to scan for ``rule``, or None (the whole text: its matches may hold a space or be short)."""
        width, one_word, _one_line = rule.reach()
        if not one_word or width < RUN_MIN:
            return None
        found = self._by_width.get(width)
        if found is None:
            if self._runs is None:
                from kb.knowledge.precompiled import pattern

                self._runs = [m.span() for m in pattern(r"(?<!\S)\S{%d,}" % RUN_MIN).finditer(self.text)]
            found = self._by_width[width] = _merged_windows(
                [(a, b) for a, b in self._runs if b - a >= width], len(self.text))
        return found


def _merged_windows(spans: list[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    """``spans`` (sorted, disjoint), each with the character after it, those closer than WINDOW_GAP joined."""
    out: list[tuple[int, int]] = []
    for a, b in spans:
        b = min(b + 1, size)
        if out and a - out[-1][1] < WINDOW_GAP:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _join_lines(view: View) -> list[tuple[int, int]]:
    """(leaks46) The lines of a joined view that hold one of its joins (a wrap's removed break), each with its line
    end: a rule whose matches hold no line end (Rule.reach's one_line) finds every match that crosses or touches a
    join there, and the matches elsewhere are the text's as given, which _wrapped leaves alone."""
    text = view.text
    lines: list[tuple[int, int]] = []
    for j in view.joins:
        if lines and j < lines[-1][1]:
            continue
        start = max(text.rfind("\n", 0, j), text.rfind("\r", 0, j)) + 1
        ends = [e for e in (text.find("\n", j), text.find("\r", j)) if e != -1]
        lines.append((start, min(ends) + 1 if ends else len(text)))
    return _merged_windows([(a, b - 1) for a, b in lines], len(text))


def _span(text: str, view: View, start: int, end: int, mask: str, lines: bool) -> tuple[int, int, str, bool]:
    """A secret found in ``view`` at [start, end), in ``text``'s positions; ``lines`` (the unfolded view): wrapped
    when it crosses a line end there, so that each line's piece is masked apart and the lines stay."""
    a, b = view.original_span(start, end)
    return a, b, mask, lines and "\n" in text[a:b]


RECUR_MIN = 12  # a secret this long found once is masked wherever else it stands in the text
RECUR_MAX = 64  # distinct secrets looked for again, at most


def _recurring(text: str, spans: list[tuple[int, int, str, bool]]) -> list[tuple[int, int, str, bool]]:
    """Every other place where a secret found once stands again (turn 39): a token that a rule knows in one
    context (``model.TOKEN()``) and not in another (``Did you mean: 'TOKENs'?``, inside a longer word, after an
    escape no view decodes, a terminal sequence or a backspace's debris). Secrets of RECUR_MIN characters or more
    that are not plain digits; one ``find`` loop each: linear in the text for each of at most RECUR_MAX secrets."""
    secrets: dict[str, str] = {}
    for start, end, mask, wrapped in spans:
        piece = text[start:end]
        if wrapped or end - start < RECUR_MIN or piece.isdigit() or "\n" in piece or len(secrets) >= RECUR_MAX:
            continue
        secrets.setdefault(piece, mask)
    out: list[tuple[int, int, str, bool]] = []
    for piece, mask in secrets.items():
        at = text.find(piece)
        while at != -1:
            out.append((at, at + len(piece), mask, False))
            at = text.find(piece, at + len(piece))
    return out


HEAD_MIN = 8  # a token's head this long at the end of a text is masked
HEAD_WORD_MAX = 4096  # the last word is looked for this far back, at most (a JWT is ~1-2 KB)


def _cut_head(text: str) -> list[tuple[int, int, str, bool]]:
    """The head of a token that ends a text: a prefix of a rule that may wrap (``ghp_``, ``hf_``) and what follows
    it, too short for the rule, where the text stops (a frame's code that a box's edge cut: rich prints the rest on
    the next line, which kb does not quote). Masked when the head is HEAD_MIN characters or more and looks random
    (a digit, or upper and lower case)."""
    end = len(text.rstrip())
    while end and text[end - 1] in "\u2502\u2503\u2551)]}'\"`,; \t":
        end -= 1
    start, stop = end, max(0, end - HEAD_WORD_MAX)
    while start > stop and not text[start - 1].isspace():
        start -= 1
    if start and not text[start - 1].isspace():  # a word longer than any token (a run of one character): no head
        return []
    if end - start < HEAD_MIN + 3:
        return []
    word = text[start:end].lower()
    if screen()[0].search(word) is None:  # no rule's keyword in it (most texts): no rule is built
        return []
    rules = token_rules()
    for keyword in _plain_prefixes(rules)[2]:
        at = word.find(keyword)
        if at == -1 or (at and word[at - 1].isalnum()):
            continue
        head = text[start + at + len(keyword):end]
        if len(head) >= HEAD_MIN and all(c.isalnum() or c in "_-." for c in head) and (
                any(c.isdigit() for c in head) or head != head.lower() and head != head.upper()) and _fits(
                rules, keyword, text[start + at:end]):
            return [(start + at + len(keyword), end, "***", False)]
    return []


ELLIPSIS_HITS = 256  # (fuzz43) ellipses looked at, at most, in one text
ELLIPSIS_WORD = 200  # how far a head or a tail is read from its ellipsis, at most


def _ellipsis_cuts(text: str) -> list[tuple[int, int, str, bool]]:
    """(fuzz43) A token that a repr cut in its middle: ``reprlib`` (and a debugger's or a logger's repr that keeps a
    long string's start and end) writes ``'hf_AbC3dEfG5...rS1tUvW3xYz5a'``, whose head is too short for the token's
    rule and whose tail has no prefix. A word that holds a wrapping rule's keyword (``hf_``, ``ghp_``, ``xapp-``) and a
    head of 4 characters or more right before ``...`` or ``…``, and right after it a tail of 6 or more that looks random
    (a digit, or upper and lower case): the head and the tail are masked. Without a tail (the ellipsis ends the word), a
    head is masked as _cut_head masks one: 8 characters or more, random-looking, not words, one that can begin the
    rule's token. Linear: each ellipsis reads at most ELLIPSIS_WORD characters either side."""
    from kb.knowledge.precompiled import pattern

    keyworded = screen()[0].search(text.lower()) is not None
    rules = token_rules() if keyworded else ()
    heads = _plain_prefixes(rules)[2] if keyworded else ()
    names = name_rule()
    out: list[tuple[int, int, str, bool]] = []
    for n, m in enumerate(pattern(r"\.\.\.|\u2026").finditer(text)):
        if n >= ELLIPSIS_HITS:
            break
        e = m.start()
        s, stop = e, max(0, e - ELLIPSIS_WORD)
        while s > stop and not text[s - 1].isspace() and text[s - 1] not in "'\"`(=,\x00":
            s -= 1
        t0 = t1 = m.end()
        while t1 < len(text) and t1 - t0 < ELLIPSIS_WORD and (text[t1].isalnum() or text[t1] in "_-+/.="):
            t1 += 1
        tail = text[t0:t1]
        has_tail = len(tail) >= 6 and _random_looking(tail)
        word = text[s:e].lower()
        for keyword in heads:
            at = word.find(keyword)
            if at == -1 or (at and word[at - 1].isalnum()):
                continue
            head = text[s + at + len(keyword):e]
            if len(head) < 4 or not all(c.isalnum() or c in "_-+/." for c in head):
                continue
            if has_tail:
                out.extend(((s + at + len(keyword), e, "***", False), (t0, t1, "***", False)))
                break
            if (len(head) >= HEAD_MIN and _random_looking(head) and not _wordy(head)
                    and _fits(rules, keyword, text[s + at:e])):
                out.append((s + at + len(keyword), e, "***", False))
                break
        else:
            # no keyword: a random key that a table's cell cut (pandas' `...` ends the cell): a word of upper and lower
            # case (and digits, or 20 letters or more) that reads as drawn at random (the key-name rule's measure), right
            # before an ellipsis
            # that ends it (`hf auth login --token FsaQABOlmiBTZekKRgOG...`)
            head = text[s:e]
            if (not tail and (t1 == len(text) or text[t1] in " \t\r\n'\")") and len(head) >= 10
                    and all(c.isalnum() or c in "_-+/" for c in head)
                    and head != head.lower() and head != head.upper() and not _wordy(head)
                    and names.random_looking(head)):
                out.append((s, e, "***", False))
            elif not tail and (t1 == len(text) or text[t1] in " \t\r\n'\")"):
                out.extend(_completed_cut(text, e))
    return out


CUT_VALUE_MIN = 8  # (turn 49) a value's head this long or longer, before an ellipsis that cut it, is completed
_FILLERS = {  # what a cut value is completed with, of its head's alphabet (drawn once at random; no words in them)
    "hex": "3f9a0c7e5b1d82464c0e9b7a1f3d5c8e2a6b0d4f",
    "upper": "Q7X2K9M4R8T3W6Z1P5V0N4B7C2H9J3L8D6F1G5S0",
    "lower": "qxkmwrztpvbncdhjfglsqxkmwrztpvbncdhjfgls",
    "lowerdigit": "q7xk2mw9rz4tp8vb3nc6hd5jf1lg0ys2qx8km4w",
    "mixed": "q7Xk2Mw9Rz4Tp8Vb3Nc6Hd5Jf1Lg0Ys2Qx8Km4W",
}
_CLOSERS = {"(": ")", "[": "]", "{": "}"}


def _completed_cut(text: str, e: int) -> list[tuple[int, int, str, bool]]:
    """(turn 49) A value that a table's cell cut (pandas' ``...`` ends the cell) in a context that makes it a secret,
    though its head alone looks like no key: ``wandb login b958c33b...``, ``"value": "MdSOuvUc-Qj...``,
    ``setattr(args, "hub_token", "dUGv...``, ``s3://AKIA...:hreWjiPW5...``. The line up to the ellipsis is completed
    as the value would have gone on (characters of its head's alphabet to 40, its quote, its brackets, a URL's host)
    and searched as a text of its own; the head is masked when a secret found there takes it. Only a head of
    CUT_VALUE_MIN characters or more of a key's characters that does not read as words; one search a cut (at most
    ELLIPSIS_HITS of them, each on one line)."""
    line_start = max(text.rfind("\n", 0, e), text.rfind("\r", 0, e)) + 1
    hs = e
    while hs > line_start and e - hs < ELLIPSIS_WORD and (text[hs - 1].isalnum() or text[hs - 1] in "_-+/"):
        hs -= 1
    while hs < e and text[hs] == "/":  # (a base64 key's `/` inside it, not a URL's or a path's before it)
        hs += 1
    head = text[hs:e]
    if len(head) < CUT_VALUE_MIN or not head.isascii() or not (_random_looking(head) or len(head) >= 20):
        return []
    kind = ("hex" if all(c in "0123456789abcdef" for c in head) else "upper" if head == head.upper()
            else "mixed" if head != head.lower() else "lower" if head.replace("/", "").isalpha() else "lowerdigit")
    # (a head that reads as words, `Llama2Chat7B`, completed with random characters could read as a random key: only a
    # name's or a keyword's rule judges it then)
    wordy = kind == "mixed" and _wordy(head) and not consonant_runs(head)
    before = text[line_start:hs]
    closer = ""
    word = before[before.rfind(" ") + 1:]
    if "://" in word and not any(c in word[word.index("://") + 3:] + head for c in "@/."):
        closer += "@host.example/"  # a URL cut in its user information (no path has begun)
    if before[-1:] in ("'", '"'):
        closer += before[-1]
    opened: list[str] = []
    for c in before:
        if c in _CLOSERS:
            opened.append(_CLOSERS[c])
        elif opened and c == opened[-1]:
            opened.pop()
    closer += "".join(reversed(opened))
    # the head's own alphabet first; a head of one case may be cut before the key's other case (``PYUMZU85P3`` of
    # ``PYUMZU85P31jBBuhfJ...``): then both cases, where the context, not the completed word alone, makes it a secret
    for filler in ((kind,) if kind == "mixed" else (kind, "mixed")):
        pad = _FILLERS[filler][:40 - len(head)] if len(head) < 40 else _FILLERS[filler][:8]
        a = len(before)
        line = f"{before}{head}{pad}{closer}\n"
        if filler == kind and not wordy:
            spans = [(s, t) for s, t, mask, _wrapped in _secret_spans(line, BASE64_DEPTH)
                     if mask not in ("***@***", "~")]  # (a secret, not an address or a home path the completion made)
        else:  # (only a name's or a keyword's rule: any word completed in both cases may read as a random key)
            # (and only a match that begins before the head: its context, not a keyword inside the head, which
            # _ellipsis_cuts judged above: `hf_Llama2Chat7B...` is a name)
            lowered, names = line.lower(), name_rule()
            spans = [span for rule in token_rules() if rule.keywords and rule.applies(lowered, _longest_word(line))
                     for start, _end, pieces in rule.matches(line) if start < a for span in pieces]
            if any(k in lowered for k in names.keywords):
                spans.extend(name_spans(line, names))
        found = sorted((s, t) for s, t in spans if s < a + len(head) and t > a)
        if found:
            return [(line_start + max(found[0][0], a), e, "***", False)]
    return []


def _random_looking(word: str) -> bool:
    return any(c.isdigit() for c in word) or word != word.lower() and word != word.upper()


def _wordy(head: str) -> bool:
    """Whether a head reads as words, not as drawn at random: its runs of lower-case letters are 3 long or longer on
    average (``Llama2Chat7B``: 3.5; a random head's are ~1.7)."""
    runs = [len(r) for r in "".join(c if "a" <= c <= "z" else " " for c in head).split()]
    return bool(runs) and sum(runs) >= 3 * len(runs)


HEAD_PAD = 96  # characters a head is completed with, at most, to test it against its rule


def _fits(rules: tuple[Rule, ...], keyword: str, token: str) -> bool:
    """Whether ``token`` (a keyword and the head after it) can begin a token of a rule with that keyword: completed
    with the head's own characters, it matches the rule. A path or a name after a generic keyword
    (``checkpoints/hf_Llama2Chat7B``, ``llama-v1.0-checkpoint-500``) holds characters the rule's token never has."""
    head = token[len(keyword):]
    for rule in rules:
        if keyword not in rule.keywords:
            continue
        for n in range(HEAD_PAD + 1):
            candidate = token + (head * (n // len(head) + 1))[:n]
            found = rule.pattern.match(candidate)
            if found is not None and found.end() == len(candidate):
                return True
    return False


BASE64_MIN = 16  # a base64 word this long or longer is decoded and searched
_BASE64: list[Any] = []


def _base64_secrets(text: str, depth: int = 1) -> list[tuple[int, int, str, bool]]:
    """The base64 words of ``text`` (16 characters or more, standing alone) that decode to printable text
    holding a secret or a ``user:password`` pair. Each word is decoded once: linear."""
    if not _BASE64:
        from kb.knowledge.precompiled import pattern

        _BASE64.append(pattern(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/]{16,4096}={0,2}(?![A-Za-z0-9+/=_-])"))
    out = []
    seen: dict[str, bool] = {}  # a log repeats its words
    for m in _BASE64[0].finditer(text):
        word = m.group()
        if len(word) % 4:
            continue
        if word not in seen:
            if not ascii_heads(word):  # decodes to a byte >= 0x80: not text ("OutOfMemoryError"), no secret
                seen[word] = False
                continue
            # (binascii, a shared library, is loaded only for a word to decode: ~0.25 ms of a start-up whose
            # text holds none, though long words such as a signature's name in the evidence are common)
            from binascii import Error, a2b_base64

            seen[word] = _holds_secret(word, a2b_base64, Error, depth)
        if seen[word]:
            out.append((m.start(), m.end(), "***", False))
    out.extend(_base64url_secrets(text, depth))
    return out


_BASE64URL: list[Any] = []


def _base64url_secrets(text: str, depth: int = 1) -> list[tuple[int, int, str, bool]]:
    """(turn 39) The base64url words (``-`` and ``_`` for ``+`` and ``/``, no padding: a JWT's parts, a Kubernetes
    manifest, a URL's state) that the base64 search above does not read: a ``-`` or ``_`` in them, or a length that
    is not a multiple of 4; decoded with their padding restored, as above."""
    if not _BASE64URL:
        from kb.knowledge.precompiled import pattern

        _BASE64URL.append(pattern(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9_-]{16,4096}(?![A-Za-z0-9+/=_-])"))
    out = []
    seen: dict[str, bool] = {}
    for m in _BASE64URL[0].finditer(text):
        word = m.group()
        if len(word) % 4 == 1 or (len(word) % 4 == 0 and "-" not in word and "_" not in word):
            continue
        if word not in seen:
            if not ascii_heads(word):
                seen[word] = False
                continue
            from binascii import Error, a2b_base64

            padded = word.replace("-", "+").replace("_", "/") + "=" * (-len(word) % 4)
            seen[word] = _holds_secret(padded, a2b_base64, Error, depth)
        if seen[word]:
            out.append((m.start(), m.end(), "***", False))
    return out


_BLOCK: list[Any] = []


def _base64_blocks(text: str, depth: int = 1) -> list[tuple[int, int, str, bool]]:
    """The MIME blocks of base64 (`base64`'s lines of 76 characters, the last shorter) that decode to text holding a
    secret: each line alone decodes to a piece no rule knows. Masked line by line."""
    if not _BLOCK:
        from kb.knowledge.precompiled import pattern

        # a block starts on no line that continues one (each line start would otherwise scan the rest of the block
        # again), and its lines are not given back one by one when what follows does not end it (possessive)
        _BLOCK.append(pattern(r"(?<![A-Za-z0-9+/=_-])(?<![A-Za-z0-9+/]{76}\n)(?<![A-Za-z0-9+/]{76}\r\n)"
                              r"(?:[A-Za-z0-9+/]{76}\r?\n){1,2000}+[A-Za-z0-9+/]{0,75}={0,2}(?![A-Za-z0-9+/=_-])"))
    out = []
    for m in _BLOCK[0].finditer(text):
        word = "".join(m.group().split())
        if len(word) % 4 or not ascii_heads(word):
            continue
        from binascii import Error, a2b_base64

        if _holds_secret(word, a2b_base64, Error, depth):
            out.append((m.start(), m.end(), "***", True))
    return out


HEX_MIN = 32  # (turn 43) a word of hex digits this long or longer is decoded and searched: 16 bytes
_HEX: list[Any] = []


def _hex_secrets(text: str, depth: int = 1) -> list[tuple[int, int, str, bool]]:
    """(turn 43) The words of hex digits (HEX_MIN or more, an even number, one case, ``0x`` before them or not) that
    decode to printable text holding a secret or a ``user:password`` pair: ``bytes.hex()`` of a token, ``echo $TOKEN |
    xxd -p`` (its lines of 60 digits read as one word), a hex dump's column. A commit's or a digest's hex decodes to
    bytes that are not text: never searched further. Each word is decoded once: linear."""
    if not _HEX:
        from kb.knowledge.precompiled import pattern

        # (xxd -p's lines of 60 digits, the last one shorter or not: a line given back when what follows is a word)
        _HEX.append(pattern(r"(?<![A-Za-z0-9+/=_-])(?:0[xX])?(?=[0-9a-fA-F]{32})(?P<hex>(?:[0-9a-f]{60}\r?\n){0,2000}"
                            r"(?:[0-9a-f]{2}){0,2048}+|(?:[0-9A-F]{60}\r?\n){0,2000}(?:[0-9A-F]{2}){0,2048}+)"
                            r"(?![A-Za-z0-9+/=_-])"))
    out = []
    seen: dict[str, bool] = {}
    for m in _HEX[0].finditer(text):
        word = "".join(m.group("hex").split())
        if len(word) < HEX_MIN:
            continue
        body = word[:-2] if word[-2:] in ("0a", "0A") else word  # (echo's line end)
        body = body[:-2] if body[-2:] in ("0d", "0D") else body
        if word not in seen:
            # each byte's first digit 2 to 7: printable ASCII (else no text, no secret)
            if not all(c in "234567" for c in body[::2]):
                seen[word] = False
                continue
            from binascii import Error, a2b_hex

            seen[word] = _holds_secret(body, a2b_hex, Error, depth)
        if seen[word]:
            block = m.group("hex").rstrip()
            out.append((m.start("hex"), m.start("hex") + len(block), "***", "\n" in block))
    return out


_DUMP: list[Any] = []
# a token's punctuation (`_`, `=`, `:`, `-`, `.`, `/`, `+`) as a dump's spaced byte: a text without one holds no dump of
# a secret that _holds_secret would find (it wants a digit or such punctuation; a digit alone is not looked for)
_DUMP_MARKS = tuple(f" {h}{c} " for h, lows in (("5", "f"), ("3", "da"), ("2", "def")) for c in lows + lows.upper())


def _hex_dumps(text: str) -> list[tuple[int, int, str, bool]]:
    """(fuzz43) A secret in a hex dump of spaced bytes: ``hexdump -C`` and ``od -A x -t x1z`` (an offset, up to 16
    bytes, the ``|ASCII|`` column, which shows the token in pieces of 16), or a line of 16 spaced bytes or more
    (``68 66 5f ...``). The bytes of consecutive dump lines are decoded together and searched as _hex_secrets' words
    are; where they hold a secret, each line's bytes and ASCII column are masked. Linear: one pass of a regex anchored
    at each line's start (its byte groups bounded), each block decoded once."""
    if not _DUMP:
        from kb.knowledge.precompiled import pattern

        _DUMP.append(pattern(r"(?m)^[ \t]{0,8}(?:[0-9a-fA-F]{6,16}:?[ ]{1,2})?(?P<hex>[0-9a-fA-F]{2}(?:[ ]{1,2}[0-9a-fA-F]{2}){0,4095})"
                             r"(?:[ ]{2,60}(?P<asc>[|>][^\n]{1,16}[|<]))?[ \t]*\r?$"))
    from binascii import Error, a2b_hex

    out: list[tuple[int, int, str, bool]] = []
    block: list[Any] = []

    def flush() -> None:
        digits = "".join("".join(m.group("hex").split()) for m in block)
        body = digits[:-2] if digits[-2:] in ("0a", "0A") else digits
        if len(body) >= HEX_MIN and all(c in "234567" for c in body[::2]) and _holds_secret(body, a2b_hex, Error):
            for m in block:
                out.append((m.start("hex"), m.end("hex"), "***", False))
                if m.group("asc"):
                    out.append((m.start("asc") + 1, m.end("asc") - 1, "***", False))
        block.clear()

    last_end = -2
    for m in _DUMP[0].finditer(text):
        if block and m.start() > last_end + 2:
            flush()
        block.append(m)
        last_end = m.end()
    if block:
        flush()
    return out


_ASCII_HEADS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef")  # the base64 digits below 32


def ascii_heads(word: str) -> bool:
    """Whether each 4-character group of a base64 word starts with a digit below 32 (A-Z, a-f): else the group's
    first byte is 0x80 or more, and the word does not decode to ASCII text (_holds_secret would say no)."""
    return all(c in _ASCII_HEADS for c in word[::4])


def _holds_secret(word: str, a2b_base64: Any, error: Any, depth: int = 1) -> bool:
    try:
        plain = a2b_base64(word).decode("ascii")
    except (error, ValueError):
        return False
    # printable text (lines of it: `echo ... | base64` adds a line end) with a digit or a token's punctuation
    # (plain words hold no secret: not searched)
    if not plain.replace("\n", "").replace("\r", "").replace("\t", "").isprintable() or not any(
            c.isdigit() or c in "_-.:=@/" for c in plain):
        return False
    plain = plain.rstrip("\r\n")
    user, colon, password = plain.partition(":")
    if colon and 0 < len(user) <= 64 and len(password) >= 4 and " " not in plain:
        return True  # user:password (HTTP basic auth, a Docker config's auth)
    return bool(_secret_spans(plain, inner=depth))


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
        by_first: dict[str, list[tuple[str, tuple[int, ...]]]] = {}
        for keyword, indices in _BY_KEYWORD[0][2]:
            by_first.setdefault(keyword[0], []).append((keyword, indices))
        _BY_FIRST[:] = [by_first]
        _OVERLAPPING.clear()
    always = _BY_KEYWORD[0][1]
    chosen = set(always)
    # (leaks46) one scan of the screen's regex (non-overlapping hits, in C), then the keywords that may start inside
    # each hit (_overlapping: the hit's own and those that start at one of its characters): none starts outside every
    # hit (the scan's next hit is the leftmost keyword at or after the last hit's end). A hit whose every such keyword
    # was found costs a set lookup (a log repeats its words). Linear; before, a text with more than 64 hits asked each
    # of ~200 keywords `in` the whole text.
    by_first = _BY_FIRST[0]
    found: set[str] = set()
    done: set[str] = set()
    for hit in screen()[0].finditer(lowered):
        word = hit.group()
        if word in done:
            continue
        a = hit.start()
        left = False
        for offset, keyword, indices in _overlapping(word, by_first):
            if keyword in found:
                continue
            if lowered.startswith(keyword, a + offset):
                found.add(keyword)
                chosen.update(indices)
            else:
                left = True
        if not left:
            done.add(word)
    return [rules[i] for i in sorted(chosen) if longest >= rules[i].min_word]


_BY_FIRST: list[Any] = []  # [keywords by their first character]
_OVERLAPPING: dict[str, tuple[tuple[int, str, tuple[int, ...]], ...]] = {}


def _overlapping(word: str, by_first: dict[str, list[tuple[str, tuple[int, ...]]]]) -> tuple[tuple[int, str, tuple[int, ...]], ...]:
    """(offset, keyword, its rules) of each keyword that can start at a character of ``word`` (a screen's hit): it agrees
    with the hit's rest from there (``key`` in ``api_key``, ``keyfactor`` at ``key``'s start). Remembered by hit."""
    found = _OVERLAPPING.get(word)
    if found is None:
        found = _OVERLAPPING[word] = tuple((o, k, i) for o in range(len(word)) for k, i in by_first.get(word[o], ())
                                           if word.startswith(k[:len(word) - o], o))
    return found


_CUT_ESCAPE: list[Any] = []


def _cut_escape(text: str) -> bool:
    """(turn 48) Whether a line of ``text`` ends in what may begin an escape (``&nbs``, ``&#x3``, ``\\``, ``\\u00``,
    ``%2``): only then may the fold have cut one, and the text as given is unfolded and decoded too."""
    if "&" not in text and "\\" not in text and "%" not in text:
        return False
    if not _CUT_ESCAPE:
        from kb.knowledge.precompiled import pattern

        _CUT_ESCAPE.append(pattern(r"(?:&#?[A-Za-z0-9]{0,7}|\\(?:u[0-9A-Fa-f]{0,3}|x[0-9A-Fa-f]?)?|%[0-9A-Fa-f]?)\r?\n"))
    return _CUT_ESCAPE[0].search(text) is not None


def _and_decoded(view: View | None) -> list[View]:
    """``view`` (none when None) and, where it holds escapes, its decoding: an encoded view is read both ways. (turn 48)
    Decoded again while it holds escapes, three times at most, as the text's own views are: a JSON string's ``\\"``
    inside a query's value that a form's ``+`` and URL escapes spelled (``q=%22%7B%5C%22password%5C%22%3A+...``)."""
    if view is None:
        return []
    out = [view]
    for _ in range(3):
        again = decoded(out[-1])
        if again is None:
            break
        out.append(again)
    return out


def _wrapped(view: View, rules: tuple[Rule, ...] | None, names: Names) -> list[tuple[int, int, str, bool]]:
    """Tokens cut across a line wrap: the rules that may wrap (``None``: the table's token rules) and the key-name
    rule, on the text with its wraps joined; a match counts when it crosses a join and what follows the join looks
    like the rest of a token (``_pieces``)."""
    body = view.text.rstrip("\r\n")
    if "\n" not in body and "\r" not in body:
        return []  # one line: no break inside it can be a wrap (and the prefixes need not be built for it)
    if rules is None:  # (turn 44) built here, after the one-line return: a one-line input ends in a line end, and
        rules = token_rules()  # building the table's ~150 rules for it was ~0.1-0.2 ms of its start-up
    out = _setting_rests(view, rules)
    out.extend(_short_rests(view, rules))
    view = joined(view, _plain_prefixes(rules)[:2], screen()[0], names.strength)
    if view is None:
        return out
    lowered = view.text.lower()
    longest = _longest_word(view.text)
    starts_at_join = frozenset(view.joins)  # (turn 39) a token or value that begins the line after a wrap
    lines = _join_lines(view) if len(view.text) >= WINDOW_TEXT else None
    for rule in _applicable(rules, lowered, longest):
        if not rule.wraps:
            continue
        for match_start, match_end, spans in rule.matches(view.text, lines if lines is not None and rule.reach()[2] else None):
            if (not _crossed(view.joins, _word_start(view.text, match_start), match_end)
                    and match_start not in starts_at_join and match_end not in starts_at_join):
                # on one line: the text as given has it, unless what its lookbehind needs ends the line before or (turn
                # 40) what its lookahead needs begins the line after (a token wrapped right after itself: `/`, `@`)
                continue
            for start, end in spans:
                crossed = _crossed(view.joins, start, end)
                if not crossed:  # the secret on one line, its prefix (hf_, 123:) or suffix (@host) on the other
                    out.append((*view.original_span(start, end), rule.mask, False))
                    continue
                # a rule with keywords has its prefix before the join, and a long shape of fixed form without
                # (a 40-character AWS secret, 40 hex digits: min_word 40) whose first 20 characters or more end
                # a line, or (turn 41: an Asana token's `2/<16 digits>` before the wrap, `/<16>:<32 hex>` after
                # it) whose last 20 or more begin the next, is as sure, and so is a random word's head of 16 or
                # more with upper and lower case and a digit; else (a commit hash and the next line's first word)
                # what follows the join must look like the rest of a token
                head = view.text[start:crossed[0]]
                sure = bool(rule.keywords) or (rule.min_word >= 40 and (
                    len(head) >= 20 or end - crossed[-1] >= 20)) or (
                    len(head) >= 16 and any(c.isupper() for c in head) and any(c.islower() for c in head)
                    and any(c.isdigit() for c in head)) or _fills_word(view, start, end, crossed[-1], match_end)
                out.extend(_pieces(view, start, end, crossed, rule.mask, trusted=sure))
    if any(k in lowered for k in names.keywords):
        extents: list[tuple[int, int]] = []
        for (start, end), (match_start, match_end) in zip(name_spans(view.text, names, extents), extents):
            crossed = _crossed(view.joins, start, end)
            if not crossed and any(view.text[j] in "=:" and (view.text[j - 1].isalnum() or view.text[j - 1] == "_")
                                   for j in _crossed(view.joins, match_start + 1, start)):
                # (turn 49) the wrap cut between the name and its separator (`--from-literal=HUB_PASSWORD` / `=VALUE`):
                # the value is whole on its line, where nothing names it (the name's last letter ends the line before)
                out.append((*view.original_span(start, end), "***", False))
                continue
            if not crossed and _inside_word_cut(view.text, _crossed(view.joins, match_start, match_end)):
                # (leaks45) the value on one line, its name or its closing tag cut inside a word by the wrap (rich's soft
                # wrap: `--set auth.adminPasswor` / `d=VALUE`, `<password>VALUE</` / `password>`): the text as given has
                # no match. (Not a join between two words: a line's last word is no name of the next line's value.)
                out.append((*view.original_span(start, end), "***", False))
                continue
            if not crossed and start in starts_at_join and view.text[start - 1:start] in ("=", ":") and (
                    names.random_looking(view.text[start:end])):
                # `_gitlab_session=` ends a line of full width, the random value fills the next (turn 39)
                out.append((*view.original_span(start, end), "***", False))
                continue
            if not crossed and end in starts_at_join and view.text[end:end + 1] in ("'", '"', "<"):
                # (leaks44) a quoted value whose closing quote or tag a wrap moved to the next line
                out.append((*view.original_span(start, end), "***", False))
                continue
            # (leaks44) a value between its quotes (an element's text between its tags) is whole across the wrap, however
            # short its rest (``...cG`` / ``W")``)
            quoted = start > 0 and (view.text[start - 1] in ("'", '"') and view.text[end:end + 1] == view.text[start - 1]
                                    or view.text[start - 1] == ">" and view.text.startswith("</", end))
            out.extend(_pieces(view, start, end, crossed, "***", trusted=quoted or _named_rest(view, start, end, crossed)))
    return out


def _named_rest(view: View, start: int, end: int, crossed: list[int]) -> bool:
    """(leaks46) Whether a value beside a secret-like name, cut by one join, has a rest that is the whole next line and
    reads as a key's, not as a word: 6 letters and digits or more, with a digit or a capital after its first character
    (``mot_de_passe=6CUfuCbD`` / ``EDxrivTS``; not ``Finished``). joined() joins such a line however short it is (the
    line's last word is a named value), and a rest of letters alone does not look like a token's (_continues)."""
    if len(crossed) != 1:
        return False
    text = view.text
    rest = text[crossed[0]:end]
    if not (len(rest) >= 6 and rest.isascii() and rest.isalnum()
            and (any(c.isdigit() for c in rest) or any(c.isupper() for c in rest[1:]) and any(c.islower() for c in rest))):
        return False
    if end == len(text) or text[end] in "\r\n":
        return True
    # (turn 49) more words after the rest on its line (`0: JQSbhpIqve trainer.max_steps=10`, `kBILQaExge, push: true}`):
    # the rest is the line's first word and the line the join ended was of full width (a wrap, not a line of its own)
    line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    return text[end] in " \t,;)]}\"'" and start > line_start and crossed[0] - line_start >= WRAP_MIN_LINE


def _inside_word_cut(text: str, joins: list[int]) -> bool:
    """(leaks45) Whether one of ``joins`` cuts a word (a letter or a digit on both sides) or a closing tag after its
    ``</``."""
    return any(0 < j < len(text) and (text[j - 1].isalnum() and text[j].isalnum() or text[j - 2:j] == "</")
               for j in joins)


REST_MAX = 400  # (fuzz43) the next line's first word read as a token's rest, this long at most


def _setting_rests(view: View, rules: tuple[Rule, ...]) -> list[tuple[int, int, str, bool]]:
    """(fuzz43) The rest of a token cut where the rest reads as a setting: a Bitbucket access token (``ATCTT3xFfGN0``,
    ~180 characters, ``=``, 8 hex digits) wrapped a few characters before its ``=``, so that the next line starts
    ``nehe=CD8AC2D3``, which joined() leaves alone (a ``NAME=value`` line is no wrap's rest). A rule with a
    ``wrap_rest`` (tables/secrets.toml: the rest's own shape) whose match ends a line of full width masks that line's
    first word when the word has the rest's shape and the token and the word together match the rule whole
    (``WANDB_PROJECT=llama-sft-run2`` after a line that ends in a token does neither). Linear: each such rule's
    matches once."""
    from kb.diagnose.redact.views import _continuation
    from kb.knowledge.precompiled import pattern

    text = view.text
    out: list[tuple[int, int, str, bool]] = []
    lowered = None
    for rule in rules:
        if not rule.wraps or not rule.wrap_rest:  # (leaks46: these first; the text lowered and split only for one)
            continue
        if lowered is None:
            lowered = text.lower()
        if rule.keywords and not any(k in lowered for k in rule.keywords) or _longest_word(text) < rule.min_word:
            continue
        rest = pattern(rule.wrap_rest)
        for match_start, match_end, _spans in rule.matches(text):
            if text[match_end:match_end + 1] not in ("\r", "\n"):
                continue
            line_start = max(text.rfind("\n", 0, match_start), text.rfind("\r", 0, match_start)) + 1
            if match_end - line_start < WRAP_MIN_LINE:
                continue
            nxt = match_end + (2 if text.startswith("\r\n", match_end) else 1)
            a = nxt + _continuation(text, line_start, nxt, False, True)
            b = a
            while b < len(text) and b - a < REST_MAX and not text[b].isspace():
                b += 1
            if b == a or rest.fullmatch(text, a, b) is None:
                continue
            candidate = text[match_start:match_end] + text[a:b]
            found = rule.pattern.match(candidate)
            if found is not None and found.end() == len(candidate):
                out.append((*view.original_span(a, b), rule.mask, False))
    return out


def _short_rests(view: View, rules: tuple[Rule, ...]) -> list[tuple[int, int, str, bool]]:
    """(leak49) The rest of a token cut by a wrap where the rest is shorter than RANDOM_NAME_MIN and a colon follows it
    (``client ghp_zQcs...`` / ``Uqms0L10KOl5I: unauthorized``): joined() reads such a line as a setting unless the name
    reads as random (views._short_token_rest), which a short piece of a key may not. Here the evidence is the rule's:
    a rule with keywords matches the line's last token-shaped run and the name together, from within the run to the
    name's end (the token ends right at the colon), and does not match the run alone from the same place (the run is an
    incomplete token: ``hub_token: ghp_<36>`` / ``fp16: true`` stays). Linear: one look at each line end, the rules
    tried only where a short name and a colon begin the next line after a run of 8 or more."""
    from kb.diagnose.redact.views import (TOKEN_CHARS, TOKEN_HEAD_MIN, _before_border, _break, _continuation,
                                          _line_ends, colon_name, token_head)

    text = view.text
    out: list[tuple[int, int, str, bool]] = []
    line_start = 0
    for i in _line_ends(text):
        brk = _break(text, i)
        nxt = i + 1
        start, line_start = line_start, nxt
        end, bordered = _before_border(text, start, brk)
        if (end - start < TOKEN_HEAD_MIN or nxt >= len(text)
                or not all(c in TOKEN_CHARS for c in text[end - TOKEN_HEAD_MIN:end])):
            continue  # (most lines: no run of 8 token characters ends them)
        at = nxt + _continuation(text, start, nxt, bordered, end - start >= WRAP_MIN_LINE)
        n = colon_name(text, at)
        head = token_head(text, start, end, REST_MAX)
        if not n or end - head < TOKEN_HEAD_MIN:
            continue
        run = text[head:end]
        candidate = run + text[at:at + n]
        lowered = candidate.lower()
        for rule in rules:
            if not rule.wraps or not rule.keywords or not any(k in lowered for k in rule.keywords):
                continue
            found = next((m for m in rule.pattern.finditer(candidate) if m.start() < len(run) < m.end() == len(candidate)),
                         None)
            if found is None:
                continue
            alone = rule.pattern.match(run, found.start())
            if alone is not None and alone.end() == len(run):
                continue
            out.append((*view.original_span(head + found.start(), end), rule.mask, False))
            out.append((*view.original_span(at, at + n), rule.mask, False))
            break
    return out


WORD_BACK = 64  # (fuzz43) how far back a match's word is looked for: a rule's lookbehind reads at most this far


def _word_start(text: str, at: int) -> int:
    """Where the word (no spaces) holding ``at`` starts, WORD_BACK characters back at most: a match that starts after a
    join inside its word (the kubeadm token's secret after its dot, the id before it cut by the wrap) needed the line
    before for its lookbehind, which the text as given does not have."""
    start, stop = at, max(0, at - WORD_BACK)
    while start > stop and not text[start - 1].isspace():
        start -= 1
    return start


def _fills_word(view: View, start: int, end: int, last_join: int, match_end: int) -> bool:
    """(fuzz43) Whether the secret's last piece, after its last join, is the whole first word of the line the join
    began: the match ends where that word does, with the secret's head before the join of full PIECE length or more. A
    token of fixed length (the kubeadm token's 16 characters) cut two before its end is completed exactly by that
    word, which a prose line's first word would not be."""
    text = view.text
    return (end == match_end and last_join - start >= 8 and (end == len(text) or text[end].isspace())
            and all(not c.isspace() for c in text[last_join:end]))


def _crossed(joins: tuple[int, ...], start: int, end: int) -> list[int]:
    """The joins strictly inside [start, end) (``joins`` is sorted): by bisection, so that a text of many wraps (a
    shell script's `\\` continuations) is not scanned whole for every match (review38: quadratic)."""
    from bisect import bisect_left, bisect_right

    return list(joins[bisect_right(joins, start):bisect_left(joins, end)])


def _pieces(view: View, start: int, end: int, crossed: list[int], mask: str,
            trusted: bool) -> list[tuple[int, int, str, bool]]:
    """A match across wraps as one span a line (what lies between the pieces, the break and a launcher's
    prefix, stays), up to the first piece after a join that does not look like the rest of a token. The
    first piece after a join is ``trusted`` for a rule with keywords: its prefix lies before the join; a rule
    without (a bare 40-character key, a value beside a name) could join two words, and a piece holding `=` or
    `:` is the next line's setting (leaks44: not a base64 value's padding `=` that ends the piece: a WireGuard key's
    rest, ``WNWvoZ6VQ7l0CpZDfh9tg=``)."""
    if not crossed:
        return []
    bounds = [start, *crossed, end]
    out = []
    for k in range(len(bounds) - 1):
        a, b = bounds[k], bounds[k + 1]
        piece = view.text[a:b]
        # the next line of an env dump or a log (NAME=value, Error: ...) is not the rest of a value; what follows a
        # shell's `\` is, and so is a word that is a wrapped line's whole rest
        if (k and not (trusted and k == 1) and bounds[k] not in view.sure and not (k == 1 and _whole_rest(view, a, b))
                and (not _continues(piece) or "=" in piece.rstrip("=") or ":" in piece)):
            break
        out.append((*view.original_span(a, b), mask, False))
    return out if len(out) > 1 else []


def _whole_rest(view: View, a: int, b: int) -> bool:
    """Whether ``view.text[a:b]``, just after a join, is one word of 6 characters or more (letters and digits) that
    is all the wrapped line had left: the line before the join was of full width and the word ends the line."""
    text = view.text
    if b - a < 6 or not text[a:b].isalnum() or (b < len(text) and text[b] not in "\r\n"):
        return False
    line_start = max(text.rfind("\n", 0, a), text.rfind("\r", 0, a)) + 1
    return a - line_start >= WRAP_MIN_LINE


_PLAIN: list[tuple[frozenset[str], tuple[str, ...], tuple[str, ...]]] = []


def _plain_prefixes(rules: tuple[Rule, ...]) -> tuple[frozenset[str], tuple[str, ...], tuple[str, ...]]:
    """(the beginnings of the wrapping rules' keywords, their keywords of lower-case letters only): a line whose
    last word is one of the first (``e`` of ``eyj``) or ends in one of the second (``dapi``) may end inside a
    token, though the word reads like prose."""
    if not _PLAIN:
        keywords = {k for r in rules if r.wraps for k in r.keywords}
        starts = frozenset(k[:i] for k in keywords for i in range(1, len(k) + 1))
        # (and, for _cut_head, the keywords that end in a token's separator, longest first: ``github_pat_``, ``ghp_``)
        heads = tuple(sorted((k for k in keywords if len(k) >= 3 and k[-1] in "_-.:"), key=lambda k: (-len(k), k)))
        _PLAIN.append((starts, tuple(sorted(k for k in keywords if k.isalpha())), heads))
    return _PLAIN[0]


def _longest_word(text: str) -> int:
    return max(map(len, text.split()), default=0)


def _continues(tail: str) -> bool:
    """Whether the text after a join looks like the rest of a token, not the next line's first word: a digit
    or a symbol, or mixed case that changes often (``CnLmWcSd``, not ``RuntimeError``)."""
    if any(c.isdigit() or c in "+/=_-" for c in tail):
        return True
    if len(tail) >= 12 and any(c.isupper() for c in tail[1:]) and any(c.islower() for c in tail):
        return True
    changes = sum(a.isupper() != b.isupper() for a, b in zip(tail, tail[1:]))
    return len(tail) >= 6 and changes >= 0.5 * (len(tail) - 1)


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


def inside_secret(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` overlaps a secret of ``text``: a fact read from a line (a model name) must
    not be a piece of a key, which redaction would no longer recognise once cut out."""
    return any(s < end and start < e for s, e, _mask, _wrapped in secret_spans(text))


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


def redact_in(text: str, start: int = 0, end: int | None = None, before: str = "") -> str:
    """``text[start:end]`` redacted as a part of ``before``, a line end and ``text``: a secret that starts outside
    the piece (a signature's match that begins inside a token, the last line of a key pasted over several lines,
    whose first line is in ``before``) is masked in the piece too; then the piece is redacted on its own."""
    end = len(text) if end is None else end
    whole = f"{before}\n{text}" if before else text
    shift = len(whole) - len(text)
    a, b = start + shift, end + shift
    out: list[str] = []
    last = a
    for s, e, mask, _wrapped in secret_spans(whole):
        if e <= a or s >= b:
            continue
        s, e = max(s, a), min(e, b)
        out.append(whole[last:s])
        piece = whole[s:e]
        out.append("\n".join(mask if line.strip() else line for line in piece.split("\n")) if "\n" in piece else mask)
        last = e
    out.append(whole[last:b])
    return redact("".join(out))


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

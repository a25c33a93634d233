"""Streaming: find the lines worth parsing with plain substring search, feed them to the parser,
give each error the lines around it. Works on chunks of lines so a large log is read in bounded
memory; only lines holding a trigger word (or inside an open traceback) reach the parser.
"""

from __future__ import annotations

from kb.diagnose.errors import ParsedError, RankCounter
from kb.diagnose.input import REMAINDER_DELETE as _DELETE
from kb.diagnose.input import hand_out, lines_of, remainder_of
from kb.diagnose.parser import (
    _ENDS_MESSAGE, STRUCTURAL_TOKENS, TYPELESS_SEARCH_CHARS, TYPELESS_SEARCH_LINES, _Parser, _without_digits,
    context_text, expand_flattened,
)
from kb.diagnose.patterns import AFTER_LINES, CONTEXT_LINES, IMPLIED_LITERALS, MAX_MESSAGE_CHARS, MAX_MESSAGE_LINES
from kb.diagnose.redact import clip
from kb.diagnose.textclean import CURLY, clean_line

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from collections import deque
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

# Literal substrings, at least one of which every line the parser acts on contains: the structural
# words, and (in the first lines, see parser.TYPELESS_SEARCH_LINES and _CHARS) the signatures' literals.
# A block of log text is searched for them with str.find, far faster than a regex on every line.


def trigger_tokens(known: tuple[str, ...] = ()) -> tuple[str, ...]:
    return STRUCTURAL_TOKENS + tuple(k for k in known if k not in STRUCTURAL_TOKENS)


TRIGGER_TOKENS = trigger_tokens()
# The words that end a message (parser._ENDS_MESSAGE) beyond the structural ones, which the chunk's hits cover.
_ENDS_EXTRA = tuple(w for w in _ENDS_MESSAGE if w not in STRUCTURAL_TOKENS)
CHUNK_LINES = 4096
# The prefilter: lines holding no trigger are not parsed, only kept as context. False parses every line
# (tests/test_prefilter.py checks that the answers are the same either way).
PREFILTER = True
# The continuation fast path: a plain line after an open message is added to it by _Parser.continue_message
# (one regex search) instead of feed (eight tests). False always takes feed (tests/test_speed_paths.py
# checks that the answers are the same either way).
FAST_CONTINUATION = True


# Each token is searched for with one str.find pass over the chunk: about as long as grep takes for all of
# them, so most of the time of a long log. A cheaper search tells most of it: delete from the chunk's bytes
# every byte but the rarer letters and marks and the line ends (one translate pass per chunk, shared by every
# scanner that searches the same chunk: its "remainder", a tenth of its size), and delete the same bytes from
# the token. Deleting a fixed set of bytes keeps an occurrence of the token in a line an occurrence of what is
# left of it in what is left of that line, and the remainder keeps the chunk's line ends, so its k-th line is
# what is left of the chunk's k-th line. A token whose remainder is in no line of the chunk's remainder is not
# in the chunk; else the lines whose remainder holds the token's are the only ones that can hold the token, and
# each is checked (``token in line``) when the chunk's lines are at hand. A token whose remainder is empty or
# in too many lines is searched for in the chunk itself. Exact either way (tests/test_prefilter.py).
# (The bytes kept: kb/diagnose/input.py REMAINDER_DELETE, which keeps CR as well: no token holds one.)
PRESENCE_MIN_CHARS = 64 * 1024  # shorter texts: searching every token costs less than the translate
# Candidate lines checked one by one, at most one per this many characters of the chunk per token; past it the
# token is searched for in the chunk (a str.find pass costs about what checking ~2,000 lines of a MB costs).
CANDIDATE_SPACING = 2048
# A token found in more lines than that in a long text is searched for in the text directly in the next
# CAPPED_CHUNKS long texts without its lines being counted first (a log says "epoch" on every line: "nproc", whose
# remainder is "pc", is in every line's remainder). Only which of two exact searches runs depends on it.
_CAPPED: dict[str, int] = {}
CAPPED_CHUNKS = 16
# [the last text, its remainder, {a character: where the remainder first holds it, or -1}, {a token's remainder: where the
# first line of the text's remainder that holds it ends, or -1}, [the tokens' remainders it does not hold]]
_presence: list[Any] = [None, "", {}, {}, []]
_remainders: dict[str, str] = {}
_remainder_chars: dict[str, str] = {}  # a token: the distinct characters of its remainder
# A long text's remainder is searched with the regex of the token's remainder (half str.find's time, see
# _literal_search); the remainder is ASCII (every non-ASCII byte is deleted), so it is read as a str.
LITERAL_REGEX_MIN_CHARS = 64 * 1024  # (shorter texts: str.find; a token from the input never gets a regex)


def _remainder(text: str) -> str:
    return text.encode("utf-8", "surrogatepass").translate(None, _DELETE).decode("latin-1")


def _token_remainder(token: str) -> str:
    found = _remainders.get(token)
    if found is None:
        found = _remainders[token] = _remainder(token)
    return found


def _text_remainder(text: str) -> str:
    """``text``'s remainder, computed once per text (the scanners search the same chunk in turn)."""
    if _presence[0] is not text:
        found = remainder_of(text)
        _presence[:] = [text, _remainder(text) if found is None else found.decode("latin-1"), {}, {}, []]
        _serial[0] += 1
    return _presence[1]


def _holds_bytes(remainder: str, token: str) -> bool:
    """Whether the (current text's) remainder holds every character of the token's remainder: one memchr each,
    far cheaper than searching for the whole remainder, and most tokens hold a byte that most chunks lack."""
    wanted = _remainder_chars.get(token)
    if wanted is None:
        wanted = _remainder_chars[token] = "".join(dict.fromkeys(_token_remainder(token)))
    seen = _presence[2]
    for char in wanted:
        first = seen.get(char)
        if first is None:
            first = seen[char] = remainder.find(char)
        if first == -1:
            return False
    return True


# A long text's remainder is searched for a token's remainder from its rarest character: where that character is
# (str.find of one character: memchr, ~30 times the speed of the regex engine's scan for a literal), what is left
# of the token is looked for at the place it would start. Which character is rarest is guessed from where each
# first is in the chunk's remainder (_holds_bytes found it): the later, the rarer (INFO, "loss", "epoch" hold the
# common ones, at the start of every chunk). Past ANCHOR_MISSES places where the token is not (a check costs about
# what the regex's scan of 0.6 KB of remainder costs), the rest of the remainder is searched by the regex
# (_line_ends), and the character is not tried again in the next CAPPED_CHUNKS long texts. Exact either way: only
# the speed depends on the guess.
ANCHOR_MISSES = 128
_COMMON: dict[str, int] = {}  # a character: the serial number of the last text it is not tried in
_serial = [0]  # texts whose remainder was made (_text_remainder)


def _anchor(rest: str) -> tuple[str, int] | None:
    """The character of ``rest`` the current chunk's remainder holds first farthest from its start, and its index
    (None when each was found common in a recent chunk)."""
    seen = _presence[2]
    serial = _serial[0]
    k = -1
    best = -2
    for j, char in enumerate(rest):
        first = seen.get(char, -1)
        if first > best and _COMMON.get(char, -1) < serial:
            best, k = first, j
    return None if k == -1 else (rest[k], k)


def _ends_from(remainder: str, rest: str, start: int, limit: int) -> list[int]:
    """Where the first ``limit`` lines of ``remainder`` at or after ``start`` that hold ``rest`` end (their line end,
    or the remainder's length), found from ``rest``'s rarest character (_anchor)."""
    from itertools import islice  # (here: a text under PRESENCE_MIN_CHARS never comes here, nor imports itertools)

    anchored = _anchor(rest)
    if anchored is None:
        return [m.end() for m in islice(_line_ends(rest)(remainder, start), limit)]
    anchor, k = anchored
    ends: list[int] = []
    misses = 0
    q = remainder.find(anchor, start + k)
    while q != -1:
        at = q - k  # (q >= start + k: at >= start >= 0)
        if remainder.startswith(rest, at):
            end = remainder.find("\n", q)
            if end == -1:
                ends.append(len(remainder))
                return ends
            ends.append(end)
            if len(ends) >= limit:
                return ends
            q = remainder.find(anchor, end + 1 + k)
            continue
        misses += 1
        if misses > ANCHOR_MISSES:  # (a common character after all: the regex scans the rest)
            _COMMON[anchor] = _serial[0] + CAPPED_CHUNKS
            ends.extend([m.end() for m in islice(_line_ends(rest)(remainder, at + 1), limit - len(ends))])
            return ends
        q = remainder.find(anchor, q + 1)
    return ends


def _first_end(remainder: str, rest: str) -> int:
    """Where the first line of the current text's remainder that holds ``rest`` ends, -1 when none does: found once per
    text for every scanner that searches it (two tokens may share a remainder: "OOM killer", "OOM-killer"), and not
    searched for at all when ``rest`` holds a token's remainder that the text's does not ("prc", from "nproc", in
    "um_prc", from "num_processes"): a scan of the remainder costs about as much whatever is searched for."""
    known = _presence[3]
    first = known.get(rest)
    if first is not None:
        return first
    first = -1
    for absent in _presence[4]:
        if absent in rest:
            break
    else:
        ends = _ends_from(remainder, rest, 0, 1)
        if ends:
            first = ends[0]
    known[rest] = first
    if first == -1:
        _presence[4].append(rest)
    return first


_LITERALS: dict[str, Any] = {}  # a token: its regex's search (the token, escaped)


def _literal_search(token: str) -> Callable[[str, int], Any]:
    """The search method of a regex of the token alone. The regex engine finds a literal in a long text in about
    half the time str.find takes (measured on CPython 3.11, a MB of log: 0.37 against 0.64 ms for "nproc"; in its
    remainder, 0.03-0.05 against 0.07-0.11 ms)."""
    found = _LITERALS.get(token)
    if found is None:
        from kb.knowledge.precompiled import escape, pattern

        found = _LITERALS[token] = pattern(escape(token)).search
    return found


_LINE_ENDS: dict[str, Any] = {}  # a token's remainder: the finditer of its regex followed by the rest of its line


def _line_ends(rest: str) -> Callable[[str, int], Iterator[Any]]:
    """The finditer method of a regex of ``rest`` and the rest of its line: each match ends where a line that holds
    ``rest`` ends, and the next is looked for from there (one step of the regex engine per line, where a str.find
    for the line's end and another for the next occurrence cost ~1.3 us a line)."""
    found = _LINE_ENDS.get(rest)
    if found is None:
        from kb.knowledge.precompiled import escape, pattern

        found = _LINE_ENDS[rest] = pattern(escape(rest) + "[^\n]*").finditer
    return found


def _found_lines(text: str, tokens: tuple[str, ...] | list[str]) -> set[int]:
    """Indices of the lines of ``text`` that contain any of ``tokens``: one pass per token (str.find, or in a
    long text the token's regex). A token with a character beyond ASCII is not in an ASCII text (str.isascii
    reads a flag): not searched for."""
    positions: set[int] = set()
    long = len(text) >= LITERAL_REGEX_MIN_CHARS
    ascii_text = text.isascii()
    for token in tokens:
        if ascii_text and not token.isascii():
            continue
        if long and token:
            search = _literal_search(token)
            m = search(text, 0)
            while m is not None:
                start = m.start()
                end = text.find("\n", start)
                positions.add(text.rfind("\n", 0, start) + 1)  # start of that line
                if end == -1:
                    break
                m = search(text, end + 1)
            continue
        start = text.find(token)
        while start != -1:
            end = text.find("\n", start)
            positions.add(text.rfind("\n", 0, start) + 1)  # start of that line
            if end == -1:
                break
            start = text.find(token, end + 1)
    indices = set()
    line, last = 0, 0
    for pos in sorted(positions):
        line += text.count("\n", last, pos)
        last = pos
        indices.add(line)
    return indices


def trigger_lines(text: str, tokens: tuple[str, ...] = TRIGGER_TOKENS, lines: list[str] | None = None) -> list[int]:
    """Indices of the lines of ``text`` (split on "\\n") that contain any of ``tokens``, ascending. ``lines``:
    ``text.split("\\n")`` when the caller has it (else the reader's, for the chunk it handed out last)."""
    if len(text) < PRESENCE_MIN_CHARS:
        return sorted(_found_lines(text, tokens))
    remainder = _text_remainder(text)
    if lines is None:
        lines = lines_of(text)
    cap = len(text) // CANDIDATE_SPACING + 16
    long = len(text) >= LITERAL_REGEX_MIN_CHARS
    direct: list[str] = []  # searched for in the text itself
    # (where the line ends in the remainder, the token or the tokens it may hold)
    candidates: list[tuple[int, str | tuple[str, ...]]] = []
    hard: list[tuple[str, str]] = []  # (token, its remainder): searched for together (_search_together)
    for token in tokens:
        rest = _token_remainder(token)
        if not rest:
            direct.append(token)
            continue
        if not _holds_bytes(remainder, token):
            continue  # a byte of what is left of the token is not in what is left of the text
        if long:
            if lines is not None and GROUPED and rest not in _presence[3] and _CAPPED.get(token, 0) <= 0:
                hard.append((token, rest))  # (searched for after the loop: with others that share a character)
                continue
            _search_long(remainder, token, rest, lines, cap, direct, candidates)
            continue
        at = remainder.find(rest)
        if at == -1:
            continue  # what is left of the token is not in what is left of the text
        if lines is None:
            direct.append(token)
            continue
        ends = []
        while at != -1 and len(ends) <= cap:
            end = remainder.find("\n", at)
            if end == -1:
                ends.append(len(remainder))
                break
            ends.append(end)
            at = remainder.find(rest, end + 1)
        if len(ends) > cap:
            direct.append(token)
            continue
        candidates.extend([(end, token) for end in ends])
    if hard:
        _search_together(remainder, hard, lines, cap, direct, candidates)  # type: ignore[arg-type]
    indices = _found_lines(text, direct) if direct else set()
    if candidates:
        candidates.sort(key=_end_of)
        line, last = 0, 0
        for end, held in candidates:
            if end != last:
                line += remainder.count("\n", last, end)
                last = end
            if line not in indices:
                if held.__class__ is str:
                    if held in lines[line]:  # type: ignore[index]
                        indices.add(line)
                else:
                    text_line = lines[line]  # type: ignore[index]
                    for token in held:
                        if token in text_line:
                            indices.add(line)
                            break
    return sorted(indices)


def _end_of(candidate: tuple[int, Any]) -> int:
    return candidate[0]


def _search_long(remainder: str, token: str, rest: str, lines: list[str] | None, cap: int, direct: list[str],
                 candidates: list[tuple[int, str | tuple[str, ...]]]) -> None:
    """Search a long text's remainder for one token's ``rest``: add the ends of the lines that may hold the token to
    ``candidates``, or the token to ``direct`` (searched for in the text: no lines at hand, or in too many lines)."""
    first = _first_end(remainder, rest)
    if first == -1:
        return  # what is left of the token is not in what is left of the text
    if lines is None:
        direct.append(token)
        return
    if _CAPPED.get(token, 0) > 0:  # (in too many lines of a recent chunk: likely of this one too)
        _CAPPED[token] -= 1
        direct.append(token)
        return
    ends = [first]
    if first < len(remainder):  # (up to cap + 1 lines: past cap, the text is searched)
        ends.extend(_ends_from(remainder, rest, first + 1, cap))
    if len(ends) > cap:
        _CAPPED[token] = CAPPED_CHUNKS
        direct.append(token)
        return
    candidates.extend([(end, token) for end in ends])


# Each token searched for in a long text's remainder costs either a scan of it by the regex engine (~50 us for a MB of
# log's remainder, whatever is searched for) or, from its rarest character (_ends_from), a few tenths of a us for each
# place that character is; in a chunk of a training log a dozen tokens cost 30-170 us each ("Fl", "Ful", "Irrup", "prc":
# their every character is common). Tokens that share a character c are found in one scan instead: the regex
# c(?:S1(?<=P1cS1)|S2(?<=P2cS2)|...)[^\n]* (each remainder Pk c Sk split at its first c), whose scan costs about one token's
# (the engine looks for the literal c first) plus ~10 ns per token for each place c is. A match is the first place in a
# line where one of them is, and runs to the line's end: every line that holds one of them gives a match (the next scan
# starts at the line's end), and each such line is checked for each token of the group (``token in line``). Exact
# either way: which tokens go together (greedily, the character that saves the most by the counts of the characters in
# a sample of the remainder) only changes the speed. False: each token is searched for alone (the tests compare).
GROUPED = True
SCAN_US_PER_CHAR = 0.0004  # what a scan costs per character of the remainder (us; ~50 us for a MB of log's remainder)
GROUP_HIT_US = 0.01  # what each place of the group's character costs the scan, per token of the group (us)
ANCHOR_HIT_US = 0.3  # what each place of a token's rarest character costs a lone search from it (us, _ends_from)
FREQ_SAMPLE = 4096  # characters of the remainder counted to guess how often a character is in it
FREQ_CHUNKS = 16  # texts a guess is kept for (a log's characters change slowly)
_FREQ: dict[str, tuple[int, float]] = {}  # a character: (the serial of the text it was counted in, its share)
_GROUPS: dict[tuple[str, tuple[str, ...]], Any] = {}  # (c, the remainders): the finditer of their regex
GROUPS_KEPT = 64


def _share(remainder: str, char: str) -> float:
    """About what share of the remainder's characters are ``char`` (counted in a sample, kept for FREQ_CHUNKS)."""
    serial = _serial[0]
    known = _FREQ.get(char)
    if known is not None and serial - known[0] < FREQ_CHUNKS:
        return known[1]
    sample = min(len(remainder), FREQ_SAMPLE)
    share = (remainder.count(char, 0, sample) + 0.5) / (sample + 1)
    _FREQ[char] = (serial, share)
    return share


def _group_search(char: str, rests: tuple[str, ...]) -> Callable[[str], Iterator[Any]]:
    """The finditer of the group's regex. Compiled by ``re`` itself, not kept in kb's cache of compiled patterns
    (kb/knowledge/precompiled.py keeps every pattern for good): which tokens go together varies from chunk to chunk."""
    found = _GROUPS.get((char, rests))
    if found is None:
        import re  # (already imported on diagnose's path)

        if len(_GROUPS) >= GROUPS_KEPT:
            _GROUPS.clear()
        alternatives = []
        for rest in rests:  # (S, then the lookbehind of the whole P c S: most places of c fail S's first character,
            k = rest.index(char)  # which the engine tests before anything else; a lookbehind first cost a third more)
            alternatives.append(re.escape(rest[k + 1:]) + (f"(?<={re.escape(rest)})" if k else ""))
        found = _GROUPS[(char, rests)] = re.compile(re.escape(char) + "(?:" + "|".join(alternatives) + ")[^\n]*").finditer
    return found


# The greedy choice of the groups (_plan) costs ~0.4 ms for the ~90 tokens of the priors' process evidence: made once
# for a list of hard tokens and kept for FREQ_CHUNKS texts, as the guessed counts it reads are (which tokens go together
# only changes the speed).
_PLANS: dict[tuple[str, ...], tuple[int, list[tuple[str, list[tuple[str, str]], tuple[str, ...]]],
                                    list[tuple[str, str]]]] = {}
PLANS_KEPT = 16


def _plan(remainder: str, hard: list[tuple[str, str]]) -> tuple[list[tuple[str, list[tuple[str, str]], tuple[str, ...]]],
                                                                 list[tuple[str, str]]]:
    """Which of the ``hard`` tokens (token, remainder) are searched for together: [(their character, the tokens, their
    distinct remainders)], and the tokens searched for alone, chosen greedily by the guessed counts (_share)."""
    key = tuple(token for token, _rest in hard)
    serial = _serial[0]
    known = _PLANS.get(key)
    if known is not None and serial - known[0] < FREQ_CHUNKS:
        return known[1], known[2]
    size = len(remainder)
    scan = SCAN_US_PER_CHAR * size
    places: dict[str, float] = {}  # a character: about how many places of the remainder hold it
    for _token, rest in hard:
        for char in rest:
            if char not in places:
                places[char] = _share(remainder, char) * size
    alone = {rest: min(scan + ANCHOR_MISSES * ANCHOR_HIT_US, ANCHOR_HIT_US * min(places[c] for c in rest))
             for _token, rest in hard}
    groups: list[tuple[str, list[tuple[str, str]], tuple[str, ...]]] = []
    pending = hard
    while len(pending) > 1:
        best, best_saving = "", 0.0
        by_char: dict[str, list[str]] = {}
        for _token, rest in pending:
            for char in set(rest):
                by_char.setdefault(char, []).append(rest)
        for char, rests in by_char.items():
            if len(rests) < 2:
                continue
            saving = sum(alone[r] for r in rests) - scan - places[char] * GROUP_HIT_US * len(rests)
            if saving > best_saving:
                best, best_saving = char, saving
        if not best:
            break
        group = [(token, rest) for token, rest in pending if best in rest]
        pending = [(token, rest) for token, rest in pending if best not in rest]
        groups.append((best, group, tuple(dict.fromkeys(rest for _token, rest in group))))
    if len(_PLANS) >= PLANS_KEPT:
        _PLANS.clear()
    _PLANS[key] = (serial, groups, pending)
    return groups, pending


def _search_together(remainder: str, hard: list[tuple[str, str]], lines: list[str], cap: int, direct: list[str],
                     candidates: list[tuple[int, str | tuple[str, ...]]]) -> None:
    """Search the remainder for the ``hard`` tokens (token, remainder): those that share a character in one scan where
    that saves time (by the guessed counts), each of the others alone (_search_long)."""
    from itertools import islice  # (see _ends_from)

    groups, pending = _plan(remainder, hard)
    for best, group, rests_of in groups:
        ends = [m.end() for m in islice(_group_search(best, rests_of)(remainder), cap + 1)]
        if not ends:
            known = _presence[3]
            for rest in rests_of:  # (none of them is in the text, as _first_end would have found)
                if rest not in known:
                    known[rest] = -1
                    _presence[4].append(rest)
            continue
        if len(ends) > cap:  # (in too many lines together: each on its own, as before)
            for token, rest in group:
                _search_long(remainder, token, rest, lines, cap, direct, candidates)
            continue
        held = tuple(token for token, _rest in group)
        candidates.extend([(end, held) for end in ends])
    for token, rest in pending:
        _search_long(remainder, token, rest, lines, cap, direct, candidates)


# The cuts clean_line makes in the lines of a continuation run, by the run's text with its digits made 0: a log
# repeats the same lines with other numbers (progress bars, INFO lines after each of thousands of warnings), and
# cleaning a line of ASCII without ESC, NUL or a code fence only cuts it (at its start and end), at places that
# depend on which characters are digits, not on which digits (the one exception, a fence's language tag such as
# "python3", is left out). A run's lines are then cut where the memo says, instead of each being cleaned.
_RUN_MEMO: dict[bytes, tuple[list[tuple[int, int, bool]], int] | None] = {}
RUN_MEMO_SIZE = 256
RUN_MEMO_CHARS = 4096  # longer runs are not kept (12 lines of up to 64 KiB each: the memo's memory stays small)
_ZERO_DIGITS = bytes.maketrans(b"123456789", b"000000000")
_FENCES = ("```", "~~~", "\'\'\'", '"""')


def _fenced(text: str) -> bool:
    """Whether ``text`` holds one of _FENCES (spelled out: a generator over them cost ~0.1 s of the 200 MB log)."""
    return "```" in text or "~~~" in text or "'''" in text or '"""' in text


# Keep the run memo (tests/test_speed_paths.py checks that the answers are the same without it).
RUN_MEMO = True


def _run_cuts(window: list[str], joined: str) -> tuple[list[tuple[int, int, bool]], int] | None:
    """For each line of ``window`` (ASCII, without ESC or NUL), up to the first that cleans to blank: where its
    cleaned, stripped text starts and ends in it, and whether it has a rank prefix; and how many lines come before
    the first with a rank prefix or blank. None when the run cannot be cut by the memo (a fence, or a cleaned
    text found more than once in its line)."""
    if len(joined) > RUN_MEMO_CHARS:
        return None
    if _fenced(joined):
        return None
    key = joined.encode("ascii").translate(_ZERO_DIGITS)
    if key in _RUN_MEMO:
        return _RUN_MEMO[key]
    if len(_RUN_MEMO) >= RUN_MEMO_SIZE:
        _RUN_MEMO.clear()
    cuts: list[tuple[int, int, bool]] = []
    plain = -1
    for raw in window:
        line, rank = clean_line(raw)
        text = line.strip()
        at = raw.find(text) if text else 0
        if at == -1 or (text and raw.find(text, at + 1) != -1):
            _RUN_MEMO[key] = None  # (where the text was cut from is not known: a text found twice)
            return None
        if plain == -1 and (rank is not None or not text):
            plain = len(cuts)
        cuts.append((at, at + len(text), rank is not None))
        if not text:
            break
    found = _RUN_MEMO[key] = (cuts, len(cuts) if plain == -1 else plain)
    return found


def _continue_run(parser: _Parser, pending: ParsedError, lines: list[str], i: int, stop: int,
                  follow: Callable[[list[str]], None] | None, context: deque[str]) -> tuple[int, bool]:
    """Add lines ``i`` to ``stop`` (exclusive) to the open message for as long as each is a plain continuation
    line, as _Parser.continue_message would one line at a time; return how many were taken (0: none, the
    caller takes the usual path for line ``i``) and whether the line after them ends the message and does
    nothing else (see _plain: it is in the window, whose lines are plain, and its rank, blankness or the
    message's size ends the message).

    None of these lines holds a structural word (they are not among the chunk's hits), and when they are ASCII
    without ESC or NUL, each cleaned line is a piece of its raw line (clean_line only cuts), so none holds a
    word that could end the message: the search continue_message runs on every line is run once over them all.
    What is left per line is its cleaning (or the memo's cuts), for the rank and the text."""
    window = lines[i:stop]
    joined = "\n".join(window)
    if not _plain(joined):
        return 0, False
    rank_wanted = pending.rank
    message = pending.message
    size = len(message)
    pieces = [message] if message else []
    taken = 0
    ends = False
    memo = _run_cuts(window, joined) if RUN_MEMO else None
    if memo is not None and rank_wanted is None and follow is None:
        # The lines before the first with a rank or blank are taken whole when the message stays short of
        # MAX_MESSAGE_CHARS with all of them (no clip); that line, if any, ends the message.
        cuts, count = memo
        added = [raw[start:end] for raw, (start, end, _ranked) in zip(window, cuts[:count])]
        if size + sum(map(len, added)) + len(added) < MAX_MESSAGE_CHARS:
            if added:
                pending.message = "\n".join(pieces + added)
                parser.pending_lines += len(added)
                context.extend(window[:len(added)])
            return len(added), len(added) < len(window)
    if memo is not None:
        for raw, (start, end, ranked) in zip(window, memo[0]):
            rank = clean_line(raw)[1] if ranked else None
            if rank != rank_wanted or size >= MAX_MESSAGE_CHARS or start == end:
                ends = True
                break
            if follow is not None:
                follow([raw])
            stripped = raw[start:end]
            if end - start > MAX_MESSAGE_CHARS - size:
                stripped = clip(stripped, MAX_MESSAGE_CHARS - size)
            size += len(stripped) + 1 if pieces else len(stripped)
            pieces.append(stripped)
            taken += 1
        context.extend(window[:taken])  # (no raw line taken is empty: its cleaned line is not)
    else:
        for raw in window:
            line, rank = clean_line(raw)
            stripped = line.strip()
            if rank != rank_wanted or size >= MAX_MESSAGE_CHARS or not stripped:
                ends = True
                break
            if follow is not None and raw:
                follow([raw])
            stripped = clip(stripped, MAX_MESSAGE_CHARS - size)
            size += len(stripped) + 1 if pieces else len(stripped)
            pieces.append(stripped)
            context.append(raw)  # (raw is not empty: its cleaned line is not)
            taken += 1
    if taken:
        pending.message = "\n".join(pieces)
        parser.pending_lines += taken
    return taken, ends


# The message memo: a log repeats the same warning or error line thousands of times, each followed by a few lines
# that only the digits tell apart (a progress bar, an INFO line), and each a repeat of a recent error: the parser
# only counts it (ParsedError.repeats). A hit line whose message was such a repeat, read from the quiet state (no
# open message or traceback, no chain marker pending, no error still collecting its following lines, past the
# window where lines are searched for known messages), is remembered with what followed it: the lines the message
# took and the plain line that ended it (their text with digits made 0), and the repeat key. Met again from the
# quiet state, with the same lines after it apart from their digits, no hit among them, and the key still among
# the recent errors, it is counted without being parsed: feeding it would leave the same state (the same context
# lines, the repeat counted, nothing yielded).
#
# Why the digits do not matter: the message's rank is None (the hit line has no rank prefix), so a following line
# ends it when it has a rank prefix (any digits), is blank after cleaning, or the message is full; the lines are
# plain (ASCII without ESC or NUL, no word that ends a message: _plain), so cleaning only cuts them, at places
# that depend on where their digits are, not which (the run memo's argument), and feed adds each to the message
# or only ends it. The message's repeat key is its text with digit runs made "#" (parser._without_digits). A
# message naming CUDA or "Device-side" (whose advice a regex cuts off) is not remembered.
# a hit line: its forms, each (how many lines after it, their shape, the repeat key)
_MESSAGE_MEMO: dict[str, list[tuple[int, bytes, tuple[str, str]]]] = {}
MESSAGE_MEMO_SIZE = 64  # hit lines kept (at most 64 * MESSAGE_MEMO_FORMS shapes of RUN_MEMO_CHARS: 2 MiB)
MESSAGE_MEMO_FORMS = 8  # forms kept per hit line (a progress bar's step padded to 5 places: "    1", "   51")
MESSAGE_MEMO_CHARS = 1000  # longer hit lines are not kept (the memo's memory stays small)
# Keep the message memo (tests/test_speed_paths.py checks that the answers are the same without it).
MESSAGE_MEMO = True


def _shape(lines: list[str]) -> bytes | None:
    """The lines joined, with each digit made 0, when they are ASCII and hold no code fence (else None): a fence's
    language tag ("python3") is read by which digits it has, not only where (the run memo leaves fences out too)."""
    joined = "\n".join(lines)
    if not joined.isascii() or _fenced(joined):
        return None
    return joined.encode("ascii").translate(_ZERO_DIGITS)


def _digits_zeroed(lines: list[str]) -> bytes | None:
    """The lines joined with each digit made 0 when they are ASCII, else None: _shape without its fence search. A
    shape the memo holds has no fence (_remember keeps only _shape's), and making digits 0 neither makes nor unmakes
    one (no fence holds a digit), so lines holding a fence never give a remembered shape: comparing with this is
    comparing with _shape. (The fence search read every line after each repeated warning four times: ~0.1 s of the
    200 MB log's 0.95 s.)"""
    joined = "\n".join(lines)
    if not joined.isascii():
        return None
    return joined.encode("ascii").translate(_ZERO_DIGITS)


def _remember(hit: str, lines: list[str], error: ParsedError) -> None:
    """Keep ``hit`` (the line that opened ``error``, a repeat just counted) with ``lines``, those after it up to the
    one that ended the message."""
    message = error.message
    if (len(hit) > MESSAGE_MEMO_CHARS or error.rank is not None or error.frames or error.kind != "python"
            or "CUDA" in message or "Device-side" in message):
        return
    shape = _shape(lines)
    if shape is None or len(shape) > RUN_MEMO_CHARS:
        return
    known = _MESSAGE_MEMO.get(hit)
    if known is None:
        if len(_MESSAGE_MEMO) >= MESSAGE_MEMO_SIZE:
            _MESSAGE_MEMO.clear()
        known = _MESSAGE_MEMO[hit] = []
    elif len(known) >= MESSAGE_MEMO_FORMS:
        del known[0]
    known.append((len(lines), shape, (error.short_type, _without_digits(message[:300]))))


def _repeated(lines: list[str], i: int, stop: int, recent: dict[tuple[str, str], ParsedError]) -> int:
    """When line ``i`` and those after it repeat a message the memo holds (no hit before ``stop``, the key still
    among the ``recent`` errors), count the repeat and return the index of the line that ends it; else -1."""
    known = _MESSAGE_MEMO.get(lines[i])
    if known is None:
        return -1
    last_after, last_shape = -1, None  # (forms of the same length share the lines' shape: computed once)
    for after, shape, key in known:
        end = i + after
        if end >= stop or key not in recent:
            continue
        if after != last_after:
            last_after, last_shape = after, _digits_zeroed(lines[i + 1:end + 1])
        if last_shape == shape:
            recent[key].repeats += 1
            return end
    return -1


def _plain(text: str) -> bool:
    """``text`` (lines that hold no structural word) is ASCII without ESC or NUL and holds no other word that
    ends a message (parser._ENDS_MESSAGE): each cleaned line is a piece of its raw line and holds none of
    them, so for feed it is either a message's continuation or a line that only ends the open message."""
    if not text.isascii() or "\x1b" in text or "\x00" in text:
        return False
    for word in _ENDS_EXTRA:
        if word in text:
            return False
    return True


def chunk_lines(lines: Iterable[str], size: int = CHUNK_LINES) -> Iterator[tuple[str, list[str]]]:
    """Group an iterable of lines into (text, lines) chunks, the form parse_chunks takes."""
    batch: list[str] = []
    for line in lines:
        batch.append(line.rstrip("\n").replace("\n", " "))
        if len(batch) >= size:
            yield hand_out("\n".join(batch), batch)
            batch = []
    if batch:
        yield hand_out("\n".join(batch), batch)


def parse_chunks(chunks: Iterable[tuple[str, list[str]]], known: tuple[str, ...] = (),
                 leading: frozenset[str] = frozenset(), ranks: RankCounter | None = None,
                 noise: list[dict[str, Any]] | None = None) -> Iterator[ParsedError]:
    """Yield every error in the chunks, in input order.

    Each chunk is ``(text, lines)`` with ``text == "\\n".join(lines)``. Lines that hold no
    trigger token are skipped unless a traceback or message is open; they only feed the short
    window of context lines kept for each error. ``ranks`` counts every error's rank, repeats included.
    """
    parser = _Parser(known, leading, ranks, noise)
    # (with the unquoted forms of Python's messages the parser reads without a signature's literal: IMPLIED_LITERALS)
    # and a command line's usage error: its usage, its error line (patterns.USAGE_LITERALS, parser._usage_words)
    literals = tuple(k for k in known if k not in STRUCTURAL_TOKENS) + (
        (*IMPLIED_LITERALS, "sage: ", "rror: ") if known else ())
    typeless_left = TYPELESS_SEARCH_CHARS  # characters still searched for the literals
    context = parser.context
    trailing: list[ParsedError] = []  # errors still collecting the lines after them

    def follow(following: list[str], start: int = 0, stop: int | None = None) -> None:
        """Give the errors still collecting their following lines the lines ``following[start:stop]``, in order,
        until each holds AFTER_LINES: a line that leaves no context text (blank, noise) does not count, as when
        the lines come one at a time."""
        end = len(following) if stop is None else min(stop, len(following))
        for error in trailing:
            k = start
            while k < end and len(error.after) < AFTER_LINES:
                text = context_text(following[k])
                if text:
                    error.after.append(text)
                k += 1
        trailing[:] = [e for e in trailing if len(e.after) < AFTER_LINES]

    base = 0
    carry: list[str] = []  # the previous chunk's last lines (an error's source may begin there)
    watch = -1  # the hit line whose message the message memo may remember (its index in the chunk), else -1
    for text, lines in chunks:
        watch = -1
        if not PREFILTER:
            hits = list(range(len(lines)))
        else:
            hits = trigger_lines(text, STRUCTURAL_TOKENS, lines)
        if typeless_left > 0 and base < TYPELESS_SEARCH_LINES:  # the literals, in the window at the start
            head = text if len(text) <= typeless_left else text[:typeless_left]
            typeless_left -= len(head)
            if len(head) < len(text):
                parser.typeless_last_line = min(TYPELESS_SEARCH_LINES, base + head.count("\n") + 1)
            if PREFILTER:
                if not head.isascii():  # (turn 43) the parser reads curly quotes as straight ones (textclean.CURLY):
                    head = head.translate(CURLY)  # so do the literals' search (one character for one: lines stay)
                hits = sorted(set(hits).union(trigger_lines(head, literals)))
        else:
            parser.typeless_last_line = min(parser.typeless_last_line, base)
        h = 0
        i = 0
        n = len(lines)
        while i < n:
            if parser.pending is None and not parser.tracebacks and not parser.frame_heads:
                while h < len(hits) and hits[h] < i:
                    h += 1
                if h == len(hits):
                    if trailing:
                        follow(lines, i)
                    context.extend(lines[max(i, n - CONTEXT_LINES):n])
                    break
                j = hits[h]
                if j > i:
                    if trailing:
                        follow(lines, i, j)
                    context.extend(lines[max(i, j - CONTEXT_LINES):j])
                    i = j
                watch = -1
                if (MESSAGE_MEMO and not trailing and not parser.chain_next
                        and (not parser.known or base + i + 1 > parser.typeless_last_line)):
                    end = _repeated(lines, i, hits[h + 1] if h + 1 < len(hits) else n, parser.recent_errors)
                    if end != -1:
                        context.extend(lines[i:end + 1] if lines[end] else lines[i:end])  # (only the last may be blank)
                        i = end + 1
                        continue
                    watch = i  # (a repeat opened here, from this state, is remembered when its message ends)
            pending = parser.pending
            ends = False  # line i only ends the open message (feed would flush it and do nothing else)
            if pending is not None and FAST_CONTINUATION and pending.kind == "python" and not parser.frame_heads:
                while h < len(hits) and hits[h] < i:
                    h += 1
                next_hit = hits[h] if h < len(hits) else n
                stop = min(next_hit, i + MAX_MESSAGE_LINES - parser.pending_lines)
                if stop > i:
                    taken, ends = _continue_run(parser, pending, lines, i, stop, follow if trailing else None,
                                                context)
                    i += taken
                    if taken and not ends:
                        continue
                elif i < next_hit:  # the message holds its MAX_MESSAGE_LINES lines: a plain line ends it
                    ends = _plain(lines[i])
                if ends and (parser.tracebacks or (parser.known and base + i + 1 <= parser.typeless_last_line)):
                    ends = False  # (feed would also read it: an open traceback's line, a known message's search)
            raw = lines[i]
            line_no = base + i + 1
            found: list[ParsedError] = []
            if ends:
                if trailing and raw:
                    follow([raw])
                pending = parser.pending
                found.extend(parser._flush())
                if (watch != -1 and not found and pending is not None and pending.line_no == base + watch + 1
                        and parser.pending_lines == i - watch - 1):
                    _remember(lines[watch], lines[watch + 1:i + 1], pending)
                watch = -1
            else:
                line, rank = clean_line(raw)
                if trailing and raw:
                    follow([raw])
                if parser.pending is not None and FAST_CONTINUATION and parser.continue_message(line, rank):
                    context.append(raw)  # (raw is not empty: its cleaned line is not)
                    i += 1
                    continue
                pieces = expand_flattened(line)
                for piece in pieces:
                    found.extend(parser.feed(piece, rank, line_no))
                if parser.pending is not None and parser.pending.line_no == line_no and raw.rstrip().endswith("`"):
                    found.extend(parser._flush())  # `Error: message` in inline code: the message ends here
                if watch == i and (found or len(pieces) != 1):
                    watch = -1  # (the memo holds a line that only opens a message)
            if found:
                first_after = context_text(raw)
                for error in found:
                    if error.line_no < line_no and first_after:  # this line ended it: it is the first after
                        error.after.append(first_after)
                    error.source = source_lines(error, carry, lines, base, i)
                    trailing.append(error)
                    yield error
            if raw:
                context.append(raw)
            i += 1
        carry = lines[-SOURCE_CARRY:]
        base += n
    for error in parser.end():
        error.source = source_lines(error, [], carry, base - len(carry), len(carry) - 1)
        yield error


# An error's source (ParsedError.source): the raw lines from CONTEXT_LINES before its line (and before its traceback's
# frames, two lines each, up to SOURCE_FRAME_LINES) to AFTER_LINES after the line that ended it: what kb quotes of it (its
# message, its frames, its context and the lines after it) came from. A list slice of the chunk's lines (no copy); the
# previous chunk's last SOURCE_CARRY lines are kept for an error that began there.
SOURCE_FRAME_LINES = 64
SOURCE_CARRY = CONTEXT_LINES + MAX_MESSAGE_LINES + SOURCE_FRAME_LINES + 2


def source_lines(error: ParsedError, carry: list[str], lines: list[str], base: int, i: int) -> tuple[int, list[str]]:
    """The raw lines around ``error`` that line ``i`` of ``lines`` (whose first line is the input's line ``base`` + 1;
    ``carry``: the lines just before them) ended, and the index of the first of them in the input (0-based)."""
    start = max(0, min(error.line_no - 1, base + i) - CONTEXT_LINES - min(SOURCE_FRAME_LINES, 2 * len(error.frames)))
    stop = base + i + 1 + AFTER_LINES
    if start >= base:
        return start, lines[start - base:stop - base]
    first = max(0, len(carry) - (base - start))
    return base - (len(carry) - first), carry[first:] + lines[:max(0, stop - base)]


def parse(lines: Iterable[str], known: tuple[str, ...] = (), leading: frozenset[str] = frozenset()) -> Iterator[ParsedError]:
    """Yield every error found in ``lines`` in input order (``known``: the signatures' literals,
    ``leading``: those that begin their message)."""
    return parse_chunks(chunk_lines(lines), known, leading)

"""The rules of tables/secrets.toml, loaded on first use and compiled one by one, only for text that
holds one of a rule's keywords (most texts hold none: an error message compiles a handful).

Two kinds: token shapes (a regex per rule) and the key-name rule (a value beside a secret-like name:
``NAME=value``, ``"name": "value"``, ``name: value``, ``--name value``), whose names, entropy
threshold and placeholders are the table's ``[names]``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    import re
    from typing import Any


class Rule:
    __slots__ = ("id", "keywords", "min_word", "min_entropy", "regex", "mask", "wraps", "not_after", "wrap_rest",
                 "_compiled", "_reach", "index")

    def __init__(self, entry: dict[str, Any]) -> None:
        self.id: str = entry["id"]
        self.keywords: tuple[str, ...] = tuple(entry["keywords"])
        self.min_word: int = entry["min_word"]
        self.min_entropy: float = float(entry.get("min_entropy") or 0)
        self.regex: str = entry["regex"]
        self.mask: str = entry["mask"] or "***"
        self.wraps: bool = entry["wraps"]
        self.not_after: str = entry.get("not_after") or ""
        self.wrap_rest: str = entry.get("wrap_rest") or ""  # (fuzz43) __init__._setting_rests
        self._compiled: re.Pattern[str] | None = None
        self._reach: tuple[int, bool, bool] | None = None  # (leaks46) (width, one_word, one_line), read on first use
        self.index = -1  # its place in the table (_rule), where the index's reach list has it

    def applies(self, lowered: str, longest_word: int) -> bool:
        if longest_word < self.min_word:
            return False
        return not self.keywords or any(k in lowered for k in self.keywords)

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._compiled is None:
            from kb.knowledge.precompiled import pattern

            self._compiled = pattern(self.regex)
        return self._compiled

    def spans(self, text: str, windows: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
        """The spans to mask: each named group that took part in a match, else the whole match."""
        return [span for _start, _end, spans in self.matches(text, windows) for span in spans]

    def reach(self) -> tuple[int, bool, bool]:
        """(leaks46) What a match can span, read from the regex (re's parser) on first use: the fewest characters it
        consumes or looks ahead at from its start; whether no character it consumes or looks ahead at can be a space (``one_word``: each match lies
        inside a run of ``width`` or more characters that are not spaces, and a scan of that run alone, its lookbehinds
        reading the text before it, finds it) or a line end (``one_line``: a scan of the lines that hold a join finds
        every match that crosses one). An end anchor or a back-reference counts as both."""
        if self._reach is None:
            from kb.knowledge.index import remembered_reach

            known = remembered_reach(secrets_table()) if self.index >= 0 else None
            if known is not None and known[self.index] is not None:
                width, one_word, one_line = known[self.index]
                self._reach = (width, one_word, one_line)
            else:  # (a table the index did not load: its regex parsed here, re imported)
                from kb.knowledge.regex_reach import regex_reach

                self._reach = regex_reach(self.regex)
        return self._reach

    def matches(self, text: str, windows: list[tuple[int, int]] | None = None) -> list[tuple[int, int, list[tuple[int, int]]]]:
        """(start, end, spans to mask) of each match: each named group that took part, else the whole match.
        ``windows`` (leaks46): only these (start, end) parts of ``text`` are scanned (each match lies in one of them:
        the caller's word or line windows, per ``reach``); lookbehinds still read what precedes a window."""
        out = []
        found = self.pattern.finditer(text) if windows is None else (
            m for a, b in windows for m in self.pattern.finditer(text, a, b))
        for m in found:
            if m.end() <= m.start() or self.min_entropy and not random_word(m.group(), self.min_entropy):
                continue
            if self.not_after and self._said_before(text, m.start()):
                continue
            groups = [name for name, value in m.groupdict().items() if value]
            out.append((m.start(), m.end(), [m.span(name) for name in groups] if groups else [m.span()]))
        return out

    def _said_before(self, text: str, start: int) -> bool:
        """Whether ``not_after`` holds in the 48 characters before ``start`` on its line."""
        from kb.knowledge.precompiled import pattern

        line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
        return pattern(self.not_after, 2).search(text, max(line_start, start - 48), start) is not None


class Names:
    """The key-name rule: which names are secret-like and which of their values are secrets."""

    def __init__(self, entry: dict[str, Any]) -> None:
        self.strong = tuple(tuple(n.split("_")) for n in entry["strong"])
        self.weak = frozenset(entry["weak"])
        self.numeric = frozenset(entry["numeric"])
        self.upper_strong = frozenset(entry.get("upper_strong") or ())
        self.min_length: int = entry["min_length"]
        self.min_entropy: float = float(entry["min_entropy"])
        self.placeholders = frozenset(entry["placeholders"])
        self.prefixes = tuple(entry["placeholder_prefixes"])
        self._by_last: dict[str, list[tuple[str, ...]]] = {}
        for phrase in self.strong:
            self._by_last.setdefault(phrase[-1], []).append(phrase)
        self._seen: dict[str, str | None] = {}  # strength by name, memoised: a log repeats its names
        self._joined: frozenset[str] | None = None
        self.keywords = name_keywords(entry)

    def strength(self, name: str) -> str | None:
        """"strong", "weak" or None for a name (``KAGGLE_KEY``, ``api-key``, ``AccountKey``, ``max_new_tokens``)."""
        if name in self._seen:
            return self._seen[name]
        if len(self._seen) > 4096:
            self._seen.clear()
        words = _words(name)
        strength = None
        if words:
            for phrase in self._by_last.get(words[-1], ()):
                if len(words) >= len(phrase) and tuple(words[-len(phrase):]) == phrase:
                    strength = "strong"
                    break
            else:
                # one word written with a capital inside it (passWord, PassPhrase, apiKEY): its pieces joined
                if len(words) >= 2 and self._joined_tail(words):
                    strength = "strong"
                elif words[-1] in self.weak:
                    env_style = name.isupper() and ("_" in name and len(words) >= 2
                                                    or len(words) == 1 and words[0] in self.upper_strong)
                    strength = "strong" if env_style else "weak"
                elif len(words) == 1:
                    strength = self._run_together(words[0], name.isupper())
        self._seen[name] = strength
        return strength

    def _joined_tail(self, words: list[str]) -> bool:
        """Whether the name's last two or three words, joined, are a strong name written as one word
        (``pass``+``word``, ``pass``+``phrase``): a capital inside a word splits it where nothing else would."""
        joined = self._joined
        if joined is None:
            joined = self._joined = frozenset("".join(phrase) for phrase in self.strong)
        return any("".join(words[-k:]) in joined for k in (2, 3) if len(words) >= k)

    def _run_together(self, word: str, upper: bool) -> str | None:
        """The strength of a one-word name that ends in a secret-like word run together with what qualifies
        it (``PGPASSWORD``, ``DBPASS``, ``GITHUBTOKEN``): a strong word of 6 letters or more (of 3 or more in
        an UPPER-CASE name: ``SMTPPASS``, not ``bypass``), a weak one of 5 or more."""
        for phrase in self.strong:
            last = phrase[-1] if len(phrase) == 1 else "".join(phrase)
            if len(word) > len(last) >= (3 if upper else 6) and word.endswith(last):
                return "strong"
        for weak in self.weak:
            if len(word) > len(weak) >= 5 and word.endswith(weak):
                return "weak"
        return None

    def is_secret(self, name: str, value: str, quoted: bool, after: str) -> bool:
        """Whether ``value``, written beside ``name`` (in quotes or bare, followed by ``after``), is a secret."""
        strength = self.strength(name)
        if strength is None:
            return False
        v = value.strip()
        if not v or v.lower() in self.placeholders or set(v) <= set("*xX.-_ "):
            return False
        if v.startswith(self.prefixes) and not (v[0] == "/" and not _is_path(v)):
            return False
        if _is_number(v):
            return strength == "strong" and _words(name)[-1] in self.numeric
        if strength == "strong":
            if quoted:
                return True
            env_style = name.isupper() and "_" in name
            if after[:1] in ("(", "[") or (_is_code(v) and not (env_style and v.isidentifier())):
                return False  # code: a call, a subscript, a variable or attribute (password=args.password)
            return True
        # beside a weak name (session, key, token), an issue reference is prose: "this session: img2img-turbo#97"
        head, hash_, number = v.rpartition("#")
        if hash_ and head and number.isdigit() and "#" not in head:
            return False
        return self.random_looking(v)

    def random_looking(self, v: str) -> bool:
        """A long random value (gitleaks' generic-api-key: entropy): letters and digits, enough of
        them, and entropy of at least min_entropy bits a character (or 3/4 of the most a value of its length
        can have, when that is less)."""
        if len(v) < self.min_length or " " in v:
            return False
        if not any(c.isdigit() for c in v) and len(v) >= 20 and v.isalpha() and v.isascii():
            # (turn 39) a long value of letters alone, drawn at random (an HF token's 34 mixed-case letters), not words
            return random_word(v, 4.0)
        if not any(c.isdigit() for c in v) or not any(c.isalpha() for c in v):
            return False
        if all(c in "0123456789abcdefABCDEF" for c in v):
            return True  # hex digits and letters beside a key-like name: a key or an id, whatever its entropy
        # a short value's entropy is bounded by log2 of its length (12 characters: 3.58 bits at most)
        from math import log2

        return entropy(v) >= min(self.min_entropy, 0.75 * log2(len(v)))


def random_word(v: str, min_entropy: float) -> bool:
    """Whether ``v`` looks drawn at random, not made of words: entropy of at least ``min_entropy`` bits a
    character; the character class (upper, lower, digit or symbol) changing at 25 % of its positions or more
    (a random key of 32 letters and digits changes at 62 % on average); and its runs of lower-case letters
    shorter than 3 on average (1.7 in a random key; ``Wav2Vec2ForSequenceClassification``: 5,
    ``modelWav2Vec2Qwen2Mistral``: 3.6), or (turn 49) those 3 long or longer less than a quarter vowels. Measured on 20,000 of each: 98.5 % of random keys of 32 letters and
    digits pass, 99.5 % of 40 base64 characters, 95.7 % of 24; 4 of 4,081 names joined from model and layer
    words (``T5``, ``LM``, ``Qwen2`` ...) do."""
    if len(v) < 2 or entropy(v) < min_entropy:
        return False
    kinds = [0 if c.isupper() else 1 if c.islower() else 2 for c in v]
    changes = sum(a != b for a, b in zip(kinds, kinds[1:]))
    if changes < 0.25 * (len(v) - 1):
        return False
    runs = [m.group() for m in _pattern("lower_runs").finditer(v)]
    if not runs or sum(map(len, runs)) < 3.0 * len(runs):
        return True
    # (turn 49) long runs by chance (~1 % of random keys of 24-40: ``kqczreh``, ``cckjvbsn``): a word's runs are
    # syllables, a random key's are consonants (vowels 5 of 26 letters; ``equence``, ``lassification``: half vowels;
    # ``modelWav2Vec2Qwen2Mistral``'s long runs 36 %)
    return consonant_runs(v, runs)


def consonant_runs(v: str, runs: list[str] | None = None) -> bool:
    """(turn 49) Whether the runs of lower-case letters of ``v`` that are 3 long or longer (8 letters at least) are less
    than a quarter vowels: drawn at random, not syllables."""
    if runs is None:
        runs = [m.group() for m in _pattern("lower_runs").finditer(v)]
    long_runs = "".join(r for r in runs if len(r) >= 3)
    return len(long_runs) >= 8 and sum(c in "aeiou" for c in long_runs) < 0.25 * len(long_runs)


def name_keywords(entry: dict[str, Any]) -> tuple[str, ...]:
    """What a secret-like name's last word starts with (lower case): the key-name rule runs only on text holding one."""
    last = {n.split("_")[-1] for n in entry["strong"]} | set(entry["weak"])
    return tuple(sorted({w[:4] for w in last}))


def entropy(v: str) -> float:
    """Shannon entropy of ``v``, in bits a character."""
    from math import log2

    counts: dict[str, int] = {}
    for c in v:
        counts[c] = counts.get(c, 0) + 1
    n = len(v)
    return -sum(k / n * log2(k / n) for k in counts.values())


_PATTERNS: dict[str, re.Pattern[str]] = {}
_SOURCES = {
    "words": r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+",
    "lower_runs": r"[a-z]+",
    # where a value with spaces within a line stops: the next setting, a separator, a closing bracket or quote
    "value_stop": r"""[,;)\]}"'`]|\s[A-Za-z_][A-Za-z0-9_.-]{0,63}[ \t]?[=:]|&[A-Za-z_][A-Za-z0-9_.-]{0,63}=|\s\(|\s-{1,2}[A-Za-z]""",
    # a panel's border standing alone after a space: `value   │` (and a fold's `││ ❱  492 │` joined after it)
    "border": r"\s[\u2502\u2503\u2551]",
    # (fix48: an exponent of 1 to 3 digits, as a float's is: 12 hex digits with one e in them, 67445e814610, are a key)
    "number": r"[-+]?(?:[0-9][0-9_,]*)?(?:\.[0-9]+)?(?:[eE][-+]?[0-9]{1,3})?%?|[-+]?[0-9][0-9.:/-]*",
    "identifier": r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*",
    # NAME = value, "name": "value", name: 'value', name => value, env["NAME"] = value, "api key": value,
    # password：value (a full-width colon). The name starts a run of name characters (a lookbehind), so no
    # position inside a long run starts a match: linear.
    "assignment": (
        # (turn 43) a quoted name may be a bytes or unicode literal: {b'password': b'...'}, a dict of bytes' repr
        r"""(?<![A-Za-z0-9_.$])(?:(?:[bBuU]|[bB][rR]|[rR][bB])?(?P<q>["'`])(?P<qname>[A-Za-z_][A-Za-z0-9_. -]{0,63})(?P=q)\]?"""
        r"""|(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,63}))[ \t\u00a0]{0,8}"""
        r"""(?P<sep>=>|:=|\?=|==?|:|\uff1a|\uff1d)[ \t\u00a0]{0,8}"""  # (leaks45: make's ?=)
        # a string literal's prefix (b'...', r"...", f"..."), a triple-quoted value
        # (turn 40: bash's $'...' quoting, as `declare -p` and `set` print a value with a line end)
        r"""(?:(?:[rRbBuUfF]{1,2}(?=["'])|\$(?='))?(?:"{3}(?P<tdq>[^"\n]{1,1000}(?:\n[^"\n]{0,1000})?)"{3}"""
        r"""|'{3}(?P<tsq>[^'\n]{1,1000}(?:\n[^'\n]{0,1000})?)'{3}"""
        # a quoted value may go on for one more line (a terminal wrapped it)
        r'''|"(?P<dq>(?:[^"\\\n]|\\.){0,1000}(?:\n(?:[^"\\\n]|\\.){0,1000})?)"'''
        r"""|'(?P<sq>(?:[^'\\\n]|\\.){0,1000}(?:\n(?:[^'\\\n]|\\.){0,1000})?)')"""
        # (turn 40) a quoted value that a table's cell or a clipped line cut: its quote opens, an ellipsis ends the line
        r"""|"(?P<cutdq>[^"\\\n]{8,1000}?)(?:\.\.\.|\u2026)(?=[ \t]*(?:\r?\n|$))"""
        r"""|'(?P<cutsq>[^'\\\n]{8,1000}?)(?:\.\.\.|\u2026)(?=[ \t]*(?:\r?\n|$))"""
        # (turn 49) a literal that a secret's type wraps: pydantic's SecretStr("...") and SecretBytes(b"..."), Rust's
        # String::from("...") and Some("..."), as a settings object's repr or a config's source shows it
        r"""|(?:SecretStr|SecretBytes|Secret|String::from|Some)\([ \t]{0,8}[bB]?"""
        r'''(?:"(?P<wdq>(?:[^"\\\n]|\\.){1,1000}(?:\n(?:[^"\\\n]|\\.){0,1000})?)"'''
        r"""|'(?P<wsq>(?:[^'\\\n]|\\.){1,1000}(?:\n(?:[^'\\\n]|\\.){0,1000})?)')[ \t]{0,8}\)"""
        # an ODBC connection string's braced value (Pwd={...;...}): only after `=` (name_spans)
        r"""|\{(?P<brace>[^{}\n]{1,1000}(?:\n[^{}\n]{0,1000})?)\}(?!\})"""
        # (turn 41: a terminal's colour sequence is no part of a bare value: `password=\x1b[38;5;28mFalse` is code that
        # pygments coloured, judged in the view with the sequences decoded)
        r"""|(?P<bare>[^\s"'`,;&<>(){}\[\]|=:\uff1a\uff1d\x1b\x9b]{1,2000}={0,3})"""
        # the value alone on the next, indented line: a YAML block scalar (password: |), a pretty-printed JSON
        # object ("password":\n    "value"); one word or one quoted string (a mapping's next key is not a value)
        r"""|(?:[|>][-+0-9]{0,2}[ \t]{0,8}\r?\n[ \t]{0,40}|[ \t]{0,8}\r?\n(?=[ \t]{0,40}["']|[ \t]{1,40}[^\s])[ \t]{0,40})(?:"(?P<nldq>[^"\\\n]{1,1000})"|'(?P<nlsq>[^'\\\n]{1,1000})'"""
        r"""|(?P<nl>[^\s"'#:{}\[\]|>-][^\s"']{0,1000})(?=[ \t]*(?:\r?\n|$)|["'])))"""
    ),
    # <password>value</password>, <entry key="api.key">value</entry> (XML): the element's name, or its key attribute
    "element": (
        r"""<(?P<tag>[A-Za-z_][A-Za-z0-9_.:-]{0,63})(?:[ \t]+(?:key|name)=["'](?P<name>[A-Za-z_][A-Za-z0-9_. -]{0,63})["'])?"""
        r"""[ \t]*>(?P<xv>[^<\n]{1,2000})</(?P=tag)>"""
    ),
    # ("NAME", "value"): a quoted name and a quoted value as a call's or a tuple's two arguments
    # (os.environ.setdefault, SetEnvironmentVariable, monkeypatch.setenv, gRPC metadata)
    "pair": (
        r"""(?<![A-Za-z0-9_])(?:[bBuU](?=["']))?(?P<q>["'])(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,63})(?P=q)[ \t]{0,8},[ \t]{0,8}"""
        r"""(?:[bBuU](?=["']))?(?:"(?P<dq>[^"\\\n]{1,1000})"|'(?P<sq>[^'\\\n]{1,1000})')"""
    ),
    # (turn 41) a row of a name and its value that ends its line: a Java properties file's `db.password VALUE`, a TSV
    # row, a markdown table's `| DB_PASSWORD | VALUE |`; the name holds a `.` or `_` (a key, not a word of prose)
    "row": (
        # (possessive: what a run took is never given back, so a line that does not end after the value costs one try)
        # (leaks46: the name holds its `.` or `_` in the regex, not only in name_spans: a row may now go on after its
        # value, and every pair of words of prose would be a match to judge)
        r"""(?<![A-Za-z0-9_.$-])(?=[A-Za-z0-9_-]{0,127}[._])(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,127}+)"""
        # (it ends its line, a NUL-separated entry, a quoted string or a JSON string with its escaped quote or line end)
        # (leaks46: a C0 control ends the value too: the BEL that ends an OSC's title, the ESC of a colour)
        r"""(?:[ \t]{0,8}+\|[ \t]{0,8}+|[ \t]{1,8}+)`?(?P<bare>[^\s|"'`=:\\\x00-\x08\x0e-\x1b\x7f<]{1,2000}+)`?[ \t|]{0,8}+"""
        # (leaks45: or a CR-only line end, a progress bar's; or an HTML tag that closes the row, `</pre>`, `</td>`)
        # (leaks46: or a C0 control; or more text after a space, `more`: a row quoted within a line, a request's
        # ` HTTP/1.1`, a command's next word, a panel's border; then only a value drawn at random is a secret)
        r"""(?=[\r\n]|$|[\x00-\x08\x0e-\x1b\x7f"'}\]),;]|</|\\[nrt"']|(?<=[ \t])(?P<more>[^\s]))"""
    ),
    # (turn 41) a call's one quoted argument: a builder's `.password("...")`, a setter's `setPassword("...")`
    "call": (
        r"""(?<![A-Za-z0-9_$])(?P<name>[A-Za-z_][A-Za-z0-9_]{0,63}+)\([ \t]{0,8}+"""
        r"""(?:"(?P<dq>[^"\\\n]{1,1000}+)"|'(?P<sq>[^'\\\n]{1,1000}+)')[ \t]{0,8}+\)"""
    ),
    # --name value, -name value (flags): after a space or at the start only
    # (leaks45) and as argv's items: NUL-separated (/proc/PID/cmdline, `xargs -0`), or a list's quoted items (a
    # CalledProcessError's command, sys.argv printed: `'--hub-credential', 'VALUE'`; not the next flag)
    "flag": (
        r"""(?<![^\s\x00'"])--?(?P<name>[A-Za-z][A-Za-z0-9_-]{0,63})(?:[ \t]+|\x00|["'][ \t]{0,8},[ \t]{0,8}(?=["'][^-]))"""
        r"""(?:"(?P<dq>(?:[^"\\\n]|\\.){0,1000})"|'(?P<sq>(?:[^'\\\n]|\\.){0,1000})'|(?P<bare>[^\s"'`\x00]{1,2000}))"""
    ),
    # (leaks45) YAML's explicit key: `? api_key` and its value on the next line, `: VALUE`
    "explicit": (
        r"""(?<![^\s>'"])\?[ \t]{1,8}(?:(?P<q>["'])(?P<qname>[A-Za-z_][A-Za-z0-9_. -]{0,63})(?P=q)|(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,63}))"""
        r"""[ \t]{0,8}\r?\n[ \t]{0,40}:[ \t]{1,8}"""
        r"""(?:"(?P<dq>[^"\\\n]{1,1000})"|'(?P<sq>[^'\\\n]{1,1000})'|(?P<bare>[^\s"'`,#<>]{1,2000}))"""
    ),
}


def _pattern(name: str) -> re.Pattern[str]:
    """One of the key-name rule's regexes, compiled on first use (a text holding a secret-like name's keyword but no
    assignment needs only "assignment")."""
    found = _PATTERNS.get(name)
    if found is None:
        from kb.knowledge.precompiled import pattern as compile_

        found = _PATTERNS[name] = compile_(_SOURCES[name])
    return found


def _words(name: str) -> list[str]:
    return [w.lower() for w in _pattern("words").findall(name)]


def _is_number(v: str) -> bool:
    return _pattern("number").fullmatch(v) is not None


def _is_path(v: str) -> bool:
    """A path (``/workspace/ckpt``), not a base64 key that starts with a slash (``/M3GW/KEf8+L``): no ``+`` or
    ``=``, and letters that change case rarely (words, not random characters)."""
    if "+" in v or "=" in v:
        return False
    letters = [c for c in v if c.isalnum()]
    kinds = [0 if c.isupper() else 1 if c.islower() else 2 for c in letters]
    changes = sum(a != b for a, b in zip(kinds, kinds[1:]))
    return changes < 0.35 * max(1, len(kinds) - 1)


def _is_code(v: str) -> bool:
    """A variable or attribute without digits (``args.password``), or a call or subscript
    (``getpass.getpass("Password: ")``, ``os.environ["KEY"]``)."""
    m = _pattern("identifier").match(v)
    if m is None:
        return False
    if m.end() == len(v):
        return not any(c.isdigit() for c in v)
    return v[m.end():].lstrip()[:1] in ("(", "[")


_VALUE_GROUPS = {"assignment": ("tdq", "tsq", "dq", "sq", "cutdq", "cutsq", "wdq", "wsq", "brace", "bare", "nldq", "nlsq", "nl"), "flag": ("dq", "sq", "bare"),
                 "explicit": ("dq", "sq", "bare"), "element": ("xv",), "pair": ("dq", "sq"), "row": ("bare",), "call": ("dq", "sq")}

_NAME_GROUPS = {"assignment": ("qname", "name"), "flag": ("name",), "explicit": ("qname", "name"), "element": ("name", "tag"), "pair": ("name",),
                "row": ("name",), "call": ("name",)}


def name_spans(text: str, names: Names, extents: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """The values beside secret-like names in ``text``; ``extents`` (leaks45), when given, gets each value's whole match
    (its name, separator and closing quote or tag too), in the same order."""
    out: list[tuple[int, int]] = []
    decided: dict[tuple[str, str, bool, str], bool] = {}
    for kind in ("assignment", "flag", "element", "pair", "row", "call", "explicit"):
        if (kind == "flag" and "-" not in text or kind == "element" and "</" not in text
                or kind == "explicit" and "? " not in text
                or kind == "pair" and '",' not in text and "'," not in text
                or kind == "call" and '("' not in text and "('" not in text):
            continue
        pattern = _pattern(kind)
        groups, name_groups = _VALUE_GROUPS[kind], _NAME_GROUPS[kind]
        pos = 0
        while True:
            m = pattern.search(text, pos)
            if m is None:
                break
            group = m.lastgroup  # (the value's group closes last in each of the patterns' forms)
            if group not in groups:
                group = next(g for g in groups if m.group(g) is not None)
            value = m.group(group)
            start, end = m.span(group)
            # the next search starts at this value, which may itself be a name (`settings: KAGGLE_KEY=...`):
            # a bare value holds no `=` or `:`, so each character is read about twice, whatever the text
            pos = max(start, m.start() + 1)
            if group in ("dq", "sq") and text[start - 1:start] in "\"'":
                # (turn 40) from its opening quote: a quoted value may be a quoted name in turn (`settings: "password":
                # "..."`, `headers: {'X-Amz-Security-Token': '...'}`), which its quote begins
                pos = max(start - 1, m.start() + 1)
            if group == "brace" and m.group("sep") != "=":
                continue  # `name: {...}` is a YAML or Python mapping, not a braced value
            quoted = group not in ("bare", "brace", "nl")  # (a braced `{password}` is a template's field: code)
            if group.startswith("nl") and m.group("sep") not in (":", "\uff1a"):
                continue  # a value on the next line follows a colon only (YAML, JSON)
            if kind == "flag" and not quoted and value.startswith("-") and not (
                    any(c.isupper() for c in value) and names.random_looking(value.lstrip("-"))):
                continue  # the next flag, unless it looks like a random key that starts with a dash
            name = next((n for n in (m.group(g) for g in name_groups) if n), None)
            word_end = end
            if kind == "assignment" and not quoted and names.strength(name) == "strong":
                end = _rest_of_line(text, m.start(), end)  # YAML, env dumps: a value may hold spaces
                value = text[start:end]
            if kind == "row":  # (no separator: a value that is a word, "api_key argument", is prose; random ones only)
                strength = names.strength(name) if "." in name or "_" in name else None
                secret = strength is not None and (names.random_looking(value) or strength == "strong" and any(
                    c.isdigit() for c in value) and any(c.isalpha() for c in value) and not _is_number(value)
                    and m.group("more") is None)
            elif kind == "call":  # (a strong name's argument whatever it looks like, as a quoted value; a weak one's if random)
                secret = names.strength(name) is not None and names.is_secret(name, value, True, ")")
            elif kind == "pair":  # a list of names ("password", "token") is not a name and its value: random values only
                secret = names.strength(name) is not None and names.random_looking(value)
                if not secret:  # (turn 39) the value may be a name in turn: config.set("hub", "password", "...")
                    pos = start - 1
            else:
                judged = _unwrapped(value) if quoted and "\n" in value else value
                secret = _judged(names, decided, name, judged, quoted, text[end:end + 1])
                if not secret and end != word_end:  # the words after it made it read as a path: the word alone
                    end, value = word_end, text[start:word_end]
                    secret = names.is_secret(name, value, quoted, text[end:end + 1])
            if secret:
                out.append((start, end))
                if extents is not None:
                    extents.append((m.start(), max(m.end(), end)))
                pos = max(pos, end)
                after = end + (1 if quoted and text[end:end + 1] in "\"'" else 0)
                if kind == "assignment" and text.startswith(("->", " ->", "=>", " =>", "\u2192", " \u2192"), after):
                    changed = _changed_to(text, after)  # terraform's `~ password = "old" -> "new"`
                    if changed is not None:
                        out.append(changed)
                        if extents is not None:
                            extents.append(changed)
                        pos = max(pos, changed[1])
    return out


DECIDED_MAX = 4096  # is_secret's answers one name_spans call keeps (a log repeats its settings lines)


def _judged(names: Names, decided: dict[tuple[str, str, bool, str], bool], name: str, value: str, quoted: bool,
            after: str) -> bool:
    """``names.is_secret``, memoised in ``decided`` for the text at hand."""
    key = (name, value, quoted, after)
    found = decided.get(key)
    if found is None:
        if len(decided) >= DECIDED_MAX:
            decided.clear()
        found = decided[key] = names.is_secret(name, value, quoted, after)
    return found


def _unwrapped(value: str) -> str:
    """A quoted value a terminal wrapped onto a second line, as it was typed: the break gone, and the second line's
    indentation and continuation prompt (Python's ``... ``, a shell's ``> ``) with it; what is_secret judges."""
    head, _brk, tail = value.partition("\n")
    tail = tail.lstrip(" \t")
    for prompt in ("... ", "> "):
        if tail.startswith(prompt):
            tail = tail[len(prompt):]
            break
    return head.rstrip("\r") + tail


def _changed_to(text: str, at: int) -> tuple[int, int] | None:
    """The new value of a change written ``old -> new`` (a terraform plan, a diff of settings) that starts at ``at``
    after the old value, a secret: its span (turn 39: the old value was masked, the new one printed)."""
    i = at
    while i < len(text) and text[i] in " \t":
        i += 1
    i += 1 if text[i:i + 1] == "\u2192" else 2
    while i < len(text) and text[i] in " \t":
        i += 1
    if i >= len(text) or text[i] == "\n":
        return None
    if text[i] in "\"'":
        close = text.find(text[i], i + 1)
        newline = text.find("\n", i + 1)
        if close == -1 or (newline != -1 and newline < close):
            return None
        return (i + 1, close) if close > i + 1 else None
    j = i
    while j < len(text) and not text[j].isspace() and text[j] not in ",;)]}":
        j += 1
    return (i, j) if j > i else None


def _rest_of_line(text: str, name_start: int, end: int) -> int:
    """Where a bare value ends when it may hold spaces: at the end of its line when the name starts the line
    (``password: correct horse battery staple`` in YAML, an env dump); when the name is within a line (a
    message quoting settings), at the end of the line or before the next setting (`` user: x``), a `,`, `;`
    or a closing bracket or quote, whichever comes first."""
    line_start = text.rfind("\n", 0, name_start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end
    rest = text[end:line_end].rstrip()
    if text[line_start:name_start].strip(" \t-") not in ("", "export"):
        stop = _pattern("value_stop").search(rest)
        rest = rest[:stop.start()].rstrip() if stop else rest
    border = _pattern("border").search(rest)  # (turn 41) a panel's right border (rich's boxed traceback) is no
    if border is not None:  # part of a value, nor the next line's left border and gutter that a fold joined to it
        rest = rest[:border.start()].rstrip()
    if not rest or rest.lstrip().startswith("#"):
        return end
    return end + len(rest)


def secrets_table() -> dict[str, Any]:
    """tables/secrets.toml: the index's validated copy when it has been loaded (kb.knowledge.model.LOADED_TABLES: a
    warm `kb diagnose` imports no kb.knowledge.tables), else read_table's (the file, validated)."""
    from kb.knowledge.model import LOADED_TABLES

    loaded = LOADED_TABLES.get("secrets")
    if loaded is not None:
        return loaded
    from kb.knowledge.tables import read_table

    return read_table("secrets")


_RULES: list[tuple[Rule, ...]] = []
_NAMES: list[Names] = []
_SCREEN: list[tuple[re.Pattern[str], int]] = []


def screen() -> tuple[re.Pattern[str], int]:
    """What a text must hold for a token rule to apply, read from the table without building its rules: a regex
    finding any of their keywords, and the shortest ``min_word`` of a rule without keywords. Most texts kb redacts
    (an error message, an evidence line) hold neither (kb/diagnose/redact/__init__.py then builds no rule)."""
    if not _SCREEN:
        from kb.knowledge.index import remembered_screen, secrets_screen
        from kb.knowledge.precompiled import pattern

        data = secrets_table()
        # (the index computed it when it was built, for the very table it hands out: ~0.15 ms a run)
        source, min_word = remembered_screen(data) or secrets_screen(data)
        _SCREEN.append((pattern(source), min_word))
    return _SCREEN[0]


def table() -> tuple[tuple[Rule, ...], Names]:
    """tables/secrets.toml's rules and names (the index's validated copy when it has been loaded)."""
    return token_rules(), name_rule()


def token_rules() -> tuple[Rule, ...]:
    """tables/secrets.toml's token rules, built on first use."""
    if not _RULES:
        _RULES.append(tuple(_rule(i, r) for i, r in enumerate(secrets_table()["rule"])))
    return _RULES[0]


_BUILT: dict[int, Rule] = {}  # rules by their place in the table: token_rules and keywordless_rules share them
_KEYWORDLESS: list[tuple[Rule, ...]] = []


def _rule(i: int, entry: dict[str, Any]) -> Rule:
    found = _BUILT.get(i)
    if found is None:
        found = _BUILT[i] = Rule(entry)
        found.index = i
    return found


def keywordless_rules() -> tuple[Rule, ...]:
    """The token rules without keywords, in table order: all that can apply to a text holding none of the
    rules' keywords (screen() says which do), built without building the ~100 others (~0.1 ms)."""
    if not _KEYWORDLESS:
        if _RULES:
            _KEYWORDLESS.append(tuple(r for r in _RULES[0] if not r.keywords))
        else:
            _KEYWORDLESS.append(tuple(_rule(i, r) for i, r in enumerate(secrets_table()["rule"])
                                      if not r["keywords"]))
    return _KEYWORDLESS[0]


def name_rule() -> Names:
    """tables/secrets.toml's key-name rule, built on first use."""
    if not _NAMES:
        _NAMES.append(Names(secrets_table()["names"]))
    return _NAMES[0]

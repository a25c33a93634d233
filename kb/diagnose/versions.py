"""Installed library versions read from a log as it streams past (VersionScanner), for `kb diagnose`.

Every diagnosis runs it (its facts join the environment the matcher and the API-drift stage read), so it lives
apart from kb/diagnose/drift.py, which a diagnosis imports only when an answer may get a drift section
(kb/diagnose/diagnosis.py): ~0.27 ms of start-up for an input that has none.
"""

from __future__ import annotations

from kb.diagnose.parser import TYPELESS_SEARCH_LINES
from kb.diagnose.stream import trigger_lines

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

VERSION_SEARCH_LINES = TYPELESS_SEARCH_LINES  # versions are read from the first lines, as known messages are

_PATTERNS: dict = {}  # by library list: compiled on the first line that may hold a version (start-up stays unchanged)
_V = r"(\d+\.\d+(?:\.\d+)?(?:\.post\d+|\.dev\d+|rc\d+)?)"
_BULLET = r"^\s*(?:[-*+>|]\s*)*[`*'\"]*"  # list markers, quotes and markdown before a name at a line's start
# Installed-version evidence outranks a `pip install lib==x` command (run, or only suggested); a pin in prose
# ("it works with transformers==4.38.2", "downgrading to 4.38 fixed it") is no evidence at all.
INSTALLED, STATED = 2, 1  # evidence; a `pip install` command or "I am using trl 0.11.3" in prose
# In prose, a version counts only in a clause that says it is the one in use ("I am using", "but found", "my")
# and none that says it is another ("works with", "downgrading to", "fixed", "try", "instead").
_IN_USE = r"\b(?:using|use|installed|have|has|found|running|current(?:ly)?|my|with|on)\b"
_NOT_IN_USE = (r"\b(?:works?|worked|working|fix(?:es|ed)?|solv\w*|resolv\w*|downgrad\w*|upgrad\w*|revert\w*"
               r"|roll(?:ed|ing)? back|back to|switch\w*|change\w*|try|tried|trying|instead|recommend\w*|should"
               r"|suggest\w*|required|requires|needs?|pinn?\w*|latest|newer|older|before|after|until|since)\b")
_CLAUSE = r"[!?;,]|(?<!\d)[.:](?!\d)|\.(?=\s|$)|[，。；：]|\s(?:but|and then|so)\s"
# (issue #25, turn 50) A version the report names as a fix, a pin in the command the user ran to fix it, or one that
# works in the report's words is the report's WORKING version, never the installed one: its cue in the clause, or in the
# report's line just above the command ("我通过降级transformer得到了解决" over "pip install transformers==4.28.0"), unless
# negated ("didn't fix it", "没有解决"). An upgrade alone is no cue ("I upgraded: pip install x==y" may be what failed);
# a downgrade is. A downgrade (or an upgrade that fixed it) says which side of it the failing install was on.
_WORKS = (r"\b(?:works|worked|fix(?:es|ed)|solv(?:e[sd]?|ing)|resolv(?:e[sd]?|ing)|downgrad\w*|revert\w*"
          r"|roll(?:ed|ing)? back|went back|back to|need(?:ed)? to (?:use|install|pin)|had to (?:use|install|pin))\b"
          r"|降级|回退|解决|修复|正常|可以了|好了")
_NEGATED = (r"\b(?:not|no|never|didn'?t|doesn'?t|don'?t|isn'?t|wasn'?t|won'?t|can'?t|cannot|nor|unable)\b"
            r"|n't\b|没|未|不行|无效|无法")
_DOWN = r"\b(?:downgrad\w*|revert\w*|roll(?:ed|ing)? back|went back|back to|older)\b|降级|回退"
_UP = r"\b(?:upgrad\w*|newer)\b|升级"


def _patterns(libraries: tuple[str, ...]):
    """(line patterns, pin-only line, pip install command, pin, "Successfully installed" name, a version in
    prose, clause split, in-use cue, other-version cue, working cue, negation, downgrade cue, upgrade cue, pip show
    Name, pip show Version); compiled once."""
    if libraries not in _PATTERNS:
        from kb.knowledge.precompiled import Deferred as later
        from kb.knowledge.precompiled import pattern as compile_

        libs = "|".join(libraries)
        v, b = _V, _BULLET
        i = 2  # re.IGNORECASE: "Transformers version: 4.36.2", "- `transformers` version: 4.36.2"
        _PATTERNS[libraries] = (
            (
                compile_(rf"{b}({libs})[`*]*\s+version[`*]*\s*:?\s*[`*]*{v}", i),                # - `transformers` version: 4.44.2
                compile_(rf"(?<![\w.-])({libs})-{v}(?:\.dist-info|-py3|\.egg)", i),      # trl-0.12.2.dist-info, wheels
                compile_(rf"^\s*(?:[-*|]\s*)?({libs})\s{{2,}}{v}\s*(?:\||$)", i),          # pip list
                compile_(rf"^\s*({libs})\s+{v}\s+(?:pypi_0|py\w*_\d+|\w+_\d+)\s+\S+\s*$", i),  # conda list
                compile_(rf"{b}({libs})[`*]*(?:\s*[:=]\s*|\s+v?|-v?)[`*]*{v}[`*]*\s*[,;.]?\s*$", i),  # a line: Transformers 4.36.2
                compile_(rf"Requirement already satisfied: ({libs})\b\S* in \S.*\({v}\)", i),  # pip install's own report
            ),
            later(rf"{b}(?:[\w.-]+\s*==\s*[\w.+!-]+[`*'\",;\s]*)+(?:#.*)?$"),          # pip freeze: pins only
            later(r"^\s*(?:[!%]|(?:\(\S+\)\s*)?[^\s$#]*[$#]\s|>\s)?\s*(?:python3?\s+-m\s+)?pip3?\s+install\s"),  # !pip install ...
            later(rf"(?<![\w-])({libs})\s*==\s*{v}", i),                                # trl==0.12.2
            later(rf"(?<![\w.-])({libs})-{v}(?=[\s,]|$)", i),                          # Successfully installed trl-0.12.2
            later(rf"(?<![\w.-])({libs})[`*]*(?:\s*==\s*|\s+version\s*(?:is\s+)?:?\s*['\"]?|\s+v?)[`*]*{v}", i),  # prose
            later(_CLAUSE), later(_IN_USE, i), later(_NOT_IN_USE, i),
            later(_WORKS, i), later(_NEGATED, i), later(_DOWN, i), later(_UP, i),
            later(r"^\s*Name:\s*(" + libs + r")\s*$"),                                   # pip show: Name: trl
            later(r"^\s*Version:\s*" + v + r"\s*$"),                                      # pip show: Version: 0.12.2
        )
    return _PATTERNS[libraries]


def log_versions_libraries() -> tuple[str, ...]:
    """tables/libraries.toml's libraries whose installed versions a log states (role ``log_versions``): from the index's
    copy of the table when one is loaded (kb.knowledge.model's LOADED_TABLES, the table kb.knowledge.tables' read_table
    hands out then), else through kb.knowledge.tables. (turn 48: the API-drift stage reads the versions a report states
    around each error it dates; kb.knowledge.tables' import, with the schema and compare modules its role check
    imports, cost such a run ~0.5-1 ms.)"""
    from kb.knowledge.model import LOADED_TABLES, library_names

    loaded = LOADED_TABLES.get("libraries")
    if loaded is not None:
        return library_names(loaded, "log_versions")
    from kb.knowledge.tables import libraries

    return libraries("log_versions")


def _above(lines: list[str], i: int) -> str:
    """The nearest line above ``lines[i]`` (within the chunk, at most three up) that is neither blank nor a code
    fence: the report's words above a command."""
    for j in range(i - 1, max(-1, i - 4), -1):
        text = lines[j].strip()
        if text and not text.startswith("```"):
            return lines[j][:500]
    return ""


def _was(words: str, down: Any, up: Any) -> str:
    """Which side of the working version the failing install was on, by the words that named it: "newer" (a
    downgrade), "older" (an upgrade) or "" (they do not say)."""
    return "newer" if down.search(words) else "older" if up.search(words) else ""


class VersionScanner:
    """Installed versions of the libraries tables/libraries.toml marks ``log_versions``, read from the log
    as it streams past. Only installed-version evidence counts: env reports (`transformers-cli env`,
    "Transformers version: 4.36.2"), pip freeze / pip list / conda list / pip show lines, pip's
    "Successfully installed" and "Requirement already satisfied" reports, dist-info and wheel names, a line
    that is only a name and a version; a `pip install lib==x` command counts less (replaced by any of
    those). A pin inside prose ("it works with transformers==4.38.2") is not the installed version; a version the
    report names as its fix or as working (that pin, a `pip install` under "降级...得到了解决") is kept apart as
    ``working_<lib>`` (see _WORKS)."""

    def __init__(self, libraries: tuple[str, ...] | None = None) -> None:
        if libraries is None:
            libraries = log_versions_libraries()
        self.libraries = tuple(sorted(libraries))
        names = tuple(n for lib in self.libraries for n in (lib, lib.capitalize()))
        fixed = ("==", "ersion", "dist-info", ".whl", "Name: ", "nstalled", "satisfied")
        self._tokens = fixed + tuple(f"{n}{sep}" for n in names for sep in (" ", "-", ":", "`", "*"))
        # Searched for: the fixed tokens and the names (each name once, not once per separator: a fifth of the
        # substring scans); a line found by a name alone is read only if it holds one of ``_tokens``.
        self._search = fixed + names
        self.facts: dict[str, str] = {}
        self._strength: dict[str, int] = {}
        self._pip_show: str | None = None
        self._above = ""  # the last non-blank line that is no code fence (read_lines: what is above a command)

    def read_lines(self, lines: Iterable[str], limit: int = 40) -> dict[str, str]:
        """The versions the first ``limit`` of ``lines`` state (each read to 500 characters): a report's own lines
        around one error, read apart from the log's scan."""
        for n, line in enumerate(lines):
            if n >= limit:
                break
            self._look(line[:500], self._above)
            if line.strip() and not line.lstrip().startswith("```"):
                self._above = line[:500]
        return self.facts

    def scan(self, chunks: Iterable[tuple[str, list[str]]]) -> Iterator[tuple[str, list[str]]]:
        """Pass the chunks on; read versions from the first VERSION_SEARCH_LINES lines only (a pasted
        report is short; in a long training log eleven substring scans per chunk cost ~1 s per 200 MB)."""
        seen = 0
        for text, lines in chunks:
            if seen < VERSION_SEARCH_LINES:
                tokens = self._tokens
                for i in trigger_lines(text, self._search):
                    if seen + i < VERSION_SEARCH_LINES and any(t in lines[i] for t in tokens):
                        self._look(lines[i][:500], _above(lines, i))
                seen += len(lines)
            yield text, lines

    def _set(self, lib: str, version: str, strength: int = INSTALLED) -> None:
        key = f"{lib.lower()}_version"
        if strength > self._strength.get(key, 0):
            self.facts[key], self._strength[key] = version, strength

    def _work(self, lib: str, version: str, was: str) -> None:
        """``version`` of ``lib`` is the report's working version: kept apart from the installed one as
        ``working_<lib>``, with ``working_<lib>_was``: "newer" (the failing install was newer: a downgrade to it fixed
        the error), "older" (an upgrade to it did) or "" (the words do not say). The first one read stands."""
        key = f"working_{lib.lower()}"
        if key not in self.facts:
            self.facts[key], self.facts[f"{key}_was"] = version, was

    def _look(self, line: str, above: str = "") -> None:
        """Read one line; ``above``: the report's line above it (not blank, no code fence), whose words may make a
        `pip install` command's pin the working version."""
        forms, pins_only, pip_install, pin, installed, prose, clause, in_use, not_in_use, works, negated, down, up, \
            name, version = _patterns(self.libraries)
        for form in forms:
            m = form.search(line)
            if m:
                self._set(m.group(1), m.group(2))
                return
        if "==" in line and (pins_only.match(line) or pip_install.match(line)):
            strength = INSTALLED if pins_only.match(line) else STATED
            # a command under the report's words that it fixed the error ("降级...得到了解决", "needed to use the
            # following pip command"), not denied there ("didn't fix it"), installed the working version
            working = strength == STATED and works.search(above) is not None and negated.search(above) is None
            was = _was(above, down, up) if working else ""
            for lib, found in pin.findall(line):
                if working:
                    self._work(lib, found, was)
                else:
                    self._set(lib, found, strength)
            return
        if "Successfully installed" in line:
            for lib, found in installed.findall(line):
                self._set(lib, found)
            return
        for part in clause.split(line):
            if part and prose.search(part):
                if works.search(part) and not negated.search(part):  # "it works with trl==0.11.4", "fixed by x==y"
                    was = _was(part, down, up)
                    for lib, found in prose.findall(part):
                        self._work(lib, found, was)
                elif in_use.search(part) and not not_in_use.search(part):
                    for lib, found in prose.findall(part):
                        self._set(lib, found, STATED)
        m = name.match(line)
        if m:
            self._pip_show = m.group(1)
            return
        m = version.match(line)
        if m and self._pip_show:
            self._set(self._pip_show, m.group(1))
            self._pip_show = None

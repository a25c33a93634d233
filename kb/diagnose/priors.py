"""Priors: a family answer for an error that no signature matched, from what generalises beyond wordings.

This module holds what every diagnosis reads (the input's process evidence and first lines, ``LineEvidence``; other
software's words; an answer's ``basis``); the stage's rules, run only for an input no signature matched, are in
kb/diagnose/prior_rules.py (``prior_answers``).

A signature knows a wording it has seen. When none matched anything, four kinds of evidence still point to a
family (tables/priors.toml, read through kb/knowledge): how the process died (a bare ``Killed``, exit code -9
or 137, SIGKILL: process evidence, looked for on every line), the root error's exception class or the stack
words in its message (``GatedRepoError``, ``NCCL``), the innermost frame of the stack it was raised in
(``bitsandbytes/cextension.py``, ``deepspeed/runtime/zero/``; frames that only wrap the work, Trainer or a
launcher, are passed over, and the walk stops at the user's own code), and the words of a title-only or prose
report ("stuck at 0%", "OOM with 7B on 2xT4"). Each answer is a family at low (at most medium) confidence with
an evidence line that says what decided it, and a ``basis`` (docs/diagnose.md) below any signature's.

Only the fine-tuning stack is named in the table, so an error from other software stays unanswered. Words that
name other software (the table's ``[other]``) are kept once and read by ``names_other_software``: a report whose
first lines name them gets no keyword answer (nor a learned one, kb/diagnose/fallback.py) unless a typed error
raised in a stack lets its frames decide (``other_software_report``), and a signature that matched only a title
does not answer one that names them (``title_ruled_out``, kb/diagnose/match.py). Other software's code paths (the
table's ``[other_code]``) are kept once too: an error whose deciding frame is there gets no prior's answer, as it gets
no signature's (``other_software_frame``, kb/diagnose/match.py).
"""

from __future__ import annotations

from kb.diagnose.answers import Answer
from kb.diagnose.errors import ParsedError
from kb.diagnose.match import Match, code_path, other_software_frame, wrapper_frame
from kb.diagnose.stream import trigger_lines
from kb.knowledge.precompiled import pattern as _compile

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Iterator
    from typing import Any


# What an answer rests on, strongest first; a weaker basis never ranks above a stronger one.
BASES = ("case", "family-evidence", "family-prior", "family-keyword", "family-learned")
LINE_CHARS = 500  # of a line, what process rules read
MAX_PROCESS_LINES = 2000  # lines holding a process literal that are read in all (a log of a million "Killed")
# (turn 44) ... and once they are spent, the input's last TAIL_LINES lines are read at its end, with a budget of as many:
# a process dies at the end of its log, and a long log's numbers ("step 137", "loss 2.137") spent the budget in its
# first ~28 MB (benchmarks/diagnose_speed.py's log), so a "Killed" after them went unread
TAIL_LINES = 200
BEFORE_LINES = 3  # the lines just before a process rule's line that its ``excludes_before`` read
KEYWORD_LINES = 3  # a title-only or prose report: its first non-blank lines (the title, a sentence) ...
PATH_TOKEN = r"\S*[\\/]\S*"  # a path or URL in a line (banner_lines blanks it) ...
BANNER_NAME_CHARS = 40  # a banner's program name opens its line
VERSION_TOKEN = r"\d\.\d{1,4}\.\d"  # ... and the version a banner states (3.9.17, not a timestamp's 01.762829)
KEYWORD_CHARS = 1024  # ... and at most this much of them
PROSE_SCAN_LINES = 12  # non-blank lines looked at for the prose the keywords read, past an issue template's lines

# (root49) the noise reason of an error that a warning the run went on past quotes (LineEvidence.went_on_past)
WENT_ON = "quoted in a warning before a retry that the run went on past"

IGNORECASE = 2  # re.IGNORECASE (kb/knowledge/precompiled.py takes re's flags as ints)


def _rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """The table's regexes compile on first use (diagnose's start-up), once per process."""
    return _compile(pattern, flags)


class PriorSignature:
    """Stands where a signature would in a match: only its name is read (the document's ``signature``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class PriorMatch(Match):
    """A family matched by a prior: ``basis`` is family-prior or family-keyword, ``why`` the rule's meaning."""

    __slots__ = ("basis", "why")

    def __init__(self, entry: Any, kind: str, error: ParsedError, score: float, evidence: list[str],
                 basis: str, why: str) -> None:
        super().__init__(entry, PriorSignature(f"prior:{kind}"), error, score, {}, evidence)  # type: ignore[arg-type]
        self.basis, self.why = basis, why


def basis(answer: Answer) -> str:
    """What the answer rests on (BASES): an exact case, a family's own evidence, a prior, or keywords."""
    m = answer.match
    if isinstance(m, PriorMatch):
        return m.basis
    return "case" if answer.kind == "case" else "family-evidence"


def prior_why(m: Match) -> str | None:
    """The document's ``why`` for a prior's answer (None for a signature's)."""
    if not isinstance(m, PriorMatch):
        return None
    what = {"family-keyword": "the report's words", "family-learned": "the nearest labelled reports (kb/diagnose/fallback.py)"
            }.get(m.basis, "a prior")
    return (f"{m.confidence} confidence: no signature of any case or family matched; {what} decided the family "
            f"({m.why}); the triage below tells its causes apart")


class LineEvidence:
    """Reads the chunks as they stream past: the first line of each process rule (tables/priors.toml
    ``[[process]]``), found by its literals (str.find over the chunk, then the rule's regex on at most
    LINE_CHARS of a line), and the input's first lines for the keywords. Linear in the input: at most MAX_PROCESS_LINES
    lines are read, then, at the input's end, its last TAIL_LINES (_look_at_tail)."""

    def __init__(self, table: dict[str, Any] | None) -> None:
        # the process rules, then (mix48) the [[program_line]] rules: lines only another program prints (tables/priors.toml
        # [program]), found in the same pass; they name no family (first_hit passes them over, program_hit reads them)
        self.rules: list[dict[str, Any]] = [*table["process"], *(table.get("program_line") or [])] if table else []
        self.literals = tuple(sorted({lit for r in self.rules for lit in r["literals"]}))
        self.hits: dict[int, tuple[int, str]] = {}  # rule index -> (1-based line number, the line)
        self.went_on_lines: set[int] = set()  # (root49) lines of warnings the run went on past (went_on_past)
        self.head: list[str] = []  # the input's first non-blank lines (the keywords read them) ...
        self.head_line_nos: list[int] = []  # ... and their 1-based line numbers
        self._head_chars = 0
        # (titles44) what the keyword rules read: the first KEYWORD_LINES non-blank lines that are not an issue
        # template's (tables/priors.toml [template]: "### Describe the bug", "- [x] I have searched the existing
        # issues"), among the first PROSE_SCAN_LINES; the head itself when the table has no [template]
        template = (table or {}).get("template") or {}
        self._template: str | None = template.get("lines") or None
        # (review44) the characters a template's line opens with, from the table (empty: every line is asked)
        self._openers: str = template.get("openers") or ""
        self.prose: list[str] = []
        self.prose_line_nos: list[int] = []
        self._prose_chars = 0
        self._scanned = 0
        self._read_left = MAX_PROCESS_LINES
        self._asked = 0  # hit lines asked for every literal (past KEYED_AFTER, only those of the keys they hold: _keyed)
        self._tail: list[str] = []  # the previous chunk's last BEFORE_LINES lines (``excludes_before`` reads them)
        self._read_to = 0  # the lines before this one (0-based) were looked at while the budget lasted
        # the input's last TAIL_LINES + BEFORE_LINES lines (at most LINE_CHARS of each: what the rules read) and the
        # index of the first of them, kept once the budget is spent (_look_at_tail)
        self._last: list[str] = []
        self._last_base = 0

    def scan(self, chunks: Iterable[tuple[str, list[str]]]) -> Iterator[tuple[str, list[str]]]:
        base = 0
        for text, lines in chunks:
            if self._head_open() or self._prose_open():
                self._keep_head(lines, base)
            if self.literals and self._read_left > 0 and len(self.hits) < len(self.rules):
                self._look(text, lines, base)
            if self._read_left <= 0:
                self._keep_last(lines, base)
            self._tail = (self._tail + lines[-BEFORE_LINES:])[-BEFORE_LINES:]
            base += len(lines)
            yield text, lines
        if self._read_left <= 0 and self._read_to < base and len(self.hits) < len(self.rules):
            self._look_at_tail(base)

    def _keep_last(self, lines: list[str], base: int) -> None:
        """Keep the input's last lines, ``lines`` (whose first is line ``base``, 0-based) the latest of them."""
        keep = TAIL_LINES + BEFORE_LINES
        if not self._last:  # (the first chunk kept: the lines just before it too, which ``excludes_before`` reads)
            self._last = [line[:LINE_CHARS] for line in self._tail]
            self._last_base = base - len(self._tail)
        if len(lines) >= keep:
            self._last = [line[:LINE_CHARS] for line in lines[-keep:]]
            self._last_base = base + len(lines) - keep
        else:
            drop = max(0, len(self._last) + len(lines) - keep)
            self._last = self._last[drop:] + [line[:LINE_CHARS] for line in lines]
            self._last_base += drop

    def _look_at_tail(self, end: int) -> None:
        """Once the budget is spent, the input's last TAIL_LINES lines (those not looked at yet) are looked at, with a
        budget of TAIL_LINES lines: bounded work, whatever the input."""
        start = max(self._read_to, end - TAIL_LINES, self._last_base)
        if start >= end:
            return
        k = start - self._last_base
        lines = self._last[k:]
        self._tail = self._last[max(0, k - BEFORE_LINES):k]
        self._read_left = TAIL_LINES
        self._look("\n".join(lines), lines, start)

    def _keep_head(self, lines: list[str], base: int) -> None:
        """The first KEYWORD_LINES non-blank lines, at most KEYWORD_CHARS in all (blank lines are skipped one
        chunk at a time: a chunk is at most stream.CHUNK_LINES lines)."""
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            if self._head_open():
                piece = line[: KEYWORD_CHARS - self._head_chars]
                self.head.append(piece)
                self.head_line_nos.append(base + i + 1)
                self._head_chars += len(piece) + 1
            if self._prose_open():
                self._scanned += 1
                if not self._templated(line):
                    piece = line[: KEYWORD_CHARS - self._prose_chars]
                    self.prose.append(piece)
                    self.prose_line_nos.append(base + i + 1)
                    self._prose_chars += len(piece) + 1
            if not self._head_open() and not self._prose_open():
                return

    def _head_open(self) -> bool:
        return len(self.head) < KEYWORD_LINES and self._head_chars < KEYWORD_CHARS

    def _prose_open(self) -> bool:
        return (self._template is not None and len(self.prose) < KEYWORD_LINES
                and self._prose_chars < KEYWORD_CHARS and self._scanned < PROSE_SCAN_LINES)

    def _templated(self, line: str) -> bool:
        """The line is an issue template's (a section header, a checklist item): no words of the report. Only a line
        that opens with a template's mark is asked (the regex is never built for most inputs)."""
        opening = line.lstrip()[:1]
        return bool(opening) and (not self._openers or opening in self._openers) and self._template is not None \
            and _rx(self._template, IGNORECASE).search(line[:LINE_CHARS]) is not None

    def keyword_head(self) -> tuple[list[str], list[int]]:
        """The lines the keyword rules read, with their line numbers: the prose past a template's lines (``prose``),
        or the head when the table names no template."""
        if self._template is None:
            return self.head, self.head_line_nos
        return self.prose, self.prose_line_nos

    def _look(self, text: str, lines: list[str], base: int) -> None:
        # Only rules still without a line are looked for, and only their lines spend the budget: a build log's
        # thousand lines that a rule already found its line in must not hide a later "Killed".
        pending = [i for i in range(len(self.rules)) if i not in self.hits]
        # The pending rules by literal: a line's candidates are the rules of the literals it holds (one ``in`` per
        # literal, where asking each rule for each of its literals cost ~20 us a line in a log of "137"s).
        by_literal: dict[str, list[int]] = {}
        for i in pending:
            for lit in self.rules[i]["literals"]:
                by_literal.setdefault(lit, []).append(i)
        literals = tuple(sorted(by_literal))
        keyed = _keyed(literals) if self._asked >= KEYED_AFTER else None
        self._read_to = base + len(lines)
        for index in trigger_lines(text, literals):
            if self._read_left <= 0 or not pending:
                self._read_to = base + index if self._read_left <= 0 else self._read_to
                return
            line = lines[index][:LINE_CHARS].strip()
            if keyed is None:
                held = [lit for lit in literals if lit in line]
                self._asked += 1
            else:
                held = [lit for char, some in keyed if char in line for lit in some if lit in line]
            if not held:
                continue  # a literal past LINE_CHARS
            candidates = sorted({i for lit in held for i in by_literal[lit] if i not in self.hits})
            if not candidates:
                continue  # a literal of a rule that already holds
            self._read_left -= 1
            for i in candidates:
                rule = self.rules[i]
                if _line_holds(rule, line) and not self._ruled_out_before(rule, lines, index):
                    self.hits[i] = (base + index + 1, line)
                    pending.remove(i)

    def _ruled_out_before(self, rule: dict[str, Any], lines: list[str], index: int) -> bool:
        """A line of the BEFORE_LINES just before ``lines[index]`` (the previous chunk's too) matches one of the rule's
        ``excludes_before``: the record the line belongs to says what it is (kubectl's ``Reason: Error`` above a
        container's ``Exit Code: 137``: killed, but not by the OOM killer, which kubelet reports as ``OOMKilled``)."""
        patterns = rule.get("excludes_before") or ()
        if not patterns:
            return False
        before = (self._tail + lines[:index])[-BEFORE_LINES:] if index < BEFORE_LINES else lines[index - BEFORE_LINES:index]
        return any(_rx(p).search(b[:LINE_CHARS]) for p in patterns for b in before)

    def one_line(self) -> bool:
        """The input held one non-blank line, all of it read (a title, a sentence)."""
        return len(self.head) == 1 and self._head_chars < KEYWORD_CHARS

    def first_hit(self, table: dict[str, Any] | None,
                  errors: list[ParsedError] | None = None) -> tuple[dict[str, Any], int, str] | None:
        """The process rule that holds, first in the table's order, with its line number and line. A rule that
        ``needs_context`` (an orchestrator's or the kernel's line, every program's) holds only where the report's
        other first lines name the stack or a run, or its own line names the stack (``names_context``; ``table``:
        tables/priors.toml). A run's words on its own line do not count: SLURM's "oom-kill event(s) in step 3756240"
        speaks of a job step, not a training step; nor anywhere for a rule that ``needs_stack`` (nbclient's own lines
        speak of launching a kernel). A rule with ``after_types`` (a warning that runs which go on print too:
        huggingface_hub's retry line) holds only where the last typed error after its line, if any (``errors``: the
        input's errors; warnings and follow-on noise left out), is of a class it names (review49)."""
        for i in sorted(self.hits):
            rule, (line_no, line) = self.rules[i], self.hits[i]
            if "family" not in rule:  # a [[program_line]] rule (program_hit)
                continue
            if rule.get("after_types") and not _after_types_hold(rule["after_types"], line_no, errors or ()):
                continue
            if line_no in self.went_on_lines:
                continue  # (root49) the run went on past the warning (went_on_past): the retry succeeded
            needs = ("stack",) if rule.get("needs_stack") else ("stack", "run")
            if not rule.get("needs_context") or names_context(
                    [h for h, no in zip(self.head, self.head_line_nos) if no != line_no], table, needs) \
                    or names_context([line], table, ("stack",)):
                return rule, line_no, line
        return None

    def went_on_past(self, errors: list[ParsedError]) -> list[ParsedError]:
        """(root49) The errors that only a warning the run went on past quotes: an error parsed from the line of a
        process rule with ``after_types`` (huggingface_hub's retry warning quotes the ReadTimeoutError it retries
        after), where the run shows it went on past that line (_went_on): a later typed error not of the rule's
        ``after_types``, one of the lines after the error matching the rule's ``went_on`` (training progress, a death
        no rule names: a segfault), or another family's process evidence (a bare ``Killed``, torchrun's ``exitcode:
        -9``) on a later line. Such an error is marked follow-on noise
        (``noise``) and is not the root error nor matched: the retry succeeded and something else ended the run.
        Reads each error's own raw line (``source``: call before kb/diagnose/quoted.py drops it)."""
        rules = [r for r in self.rules if r.get("after_types") and "family" in r]
        if not rules:
            return []
        found: list[ParsedError] = []
        for error in errors:
            if error.source is None or error.in_traceback or not error.type:
                continue
            first, raw = error.source
            k = error.line_no - 1 - first
            if not 0 <= k < len(raw):
                continue
            line = raw[k][:LINE_CHARS].strip()
            for rule in rules:
                if not any(lit in line for lit in rule["literals"]) or not _line_holds(rule, line):
                    continue
                if self._went_on(rule, error, errors):
                    error.noise = f"{WENT_ON} (line {error.line_no}): the retry succeeded, not the failure"
                    self.went_on_lines.add(error.line_no)
                    found.append(error)
                break
        return found

    def _went_on(self, rule: dict[str, Any], error: ParsedError, errors: list[ParsedError]) -> bool:
        """The run went on past ``error``'s line: where a typed error follows (a warning or follow-on noise is none),
        the last one's class is not of ``rule``'s ``after_types`` (the run failed otherwise: a user's error, a shape
        mismatch; a network error after the retries is the warning's own failure); else a line just after it matches
        ``rule``'s ``went_on``, or a process rule of another family (not itself such a warning) holds on a later
        line."""
        later = _failed_after(error.line_no, errors)
        if later:
            return _compile(rule["after_types"]).search(later[-1].short_type) is None
        went_on = rule.get("went_on")
        if went_on and any(_rx(went_on).search(line[:LINE_CHARS]) for line in error.after):
            return True
        return any(line_no > error.line_no and "family" in self.rules[i] and not self.rules[i].get("after_types")
                   and self.rules[i]["family"] != rule["family"] for i, (line_no, _line) in self.hits.items())

    def program_hit(self, whole_run: bool = False) -> tuple[dict[str, Any], int, str] | None:
        """(mix48) The first [[program_line]] rule that holds (tables/priors.toml [program]: a line only an
        image-generation program prints, its log's own structure or its modules' paths), with its line number and line;
        None when no such line was read. ``whole_run`` (wrong49): only the rules with ``whole_run``, a line only a
        trainer or generator of another kind of model prints (kohya's sd-scripts, FramePack), whose whole run is out of
        kb's scope."""
        found = [(i, *self.hits[i]) for i in sorted(self.hits)
                 if "program" in self.rules[i] and (not whole_run or self.rules[i].get("whole_run"))]
        if not found:
            return None
        i, line_no, line = min(found, key=lambda f: f[1])
        return self.rules[i], line_no, line


# The literals a line holds (LineEvidence._look) are asked for only among those whose key, their character that a log's
# line least often holds (by this guess: the characters most lines hold first), the line holds: a literal the line holds
# holds its key. ~40 keys looked for (memchr) in place of ~160 literals: 2,000 lines of "step 137" cost ~0.01 s less.
# Choosing the keys costs ~4.7 M instructions (a one-line input's start-up is ~81 M): made only once an input has had
# KEYED_AFTER hit lines asked for every literal.
KEYED_AFTER = 64
_OFTEN = " e0t1a2o3i4n5s6r7l8d9.h:c-u/m_p,=g()[]f'\"ybwvTkSEIRNAPCL"
_KEYED: dict[tuple[str, ...], list[tuple[str, list[str]]]] = {}


def _keyed(literals: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """``literals`` by their key ("" for an empty literal, which every line holds), computed once per list."""
    found = _KEYED.get(literals)
    if found is None:
        by_key: dict[str, list[str]] = {}
        for lit in literals:
            key = max(lit, key=_rarity) if lit else ""
            by_key.setdefault(key, []).append(lit)
        if len(_KEYED) >= 64:
            _KEYED.clear()
        found = _KEYED[literals] = list(by_key.items())
    return found


def _rarity(char: str) -> int:
    at = _OFTEN.find(char)
    return len(_OFTEN) if at == -1 else at


def _line_holds(rule: dict[str, Any], line: str) -> bool:
    """``line`` (a line's first LINE_CHARS, stripped) matches a process or program rule's ``line`` and none of its
    ``excludes``."""
    return _rx(rule["line"]).search(line) is not None and not any(_rx(p).search(line) for p in rule.get("excludes") or ())


def _failed_after(line_no: int, errors: Iterable[ParsedError]) -> list[ParsedError]:
    """The typed errors after line ``line_no``, warnings and follow-on noise left out: what failed after a line."""
    return [e for e in errors if e.type and e.line_no > line_no and e.noise is None
            and not e.short_type.endswith("Warning")]


def _after_types_hold(pattern: str, line_no: int, errors: Iterable[ParsedError]) -> bool:
    """No typed error after line ``line_no`` (a warning or follow-on noise is none), or the last one's class matches
    ``pattern`` (a process rule's ``after_types``): a line that runs which go on print too (a retry's warning) is read as
    the failure only where nothing else failed after it, or what failed is what it warned of."""
    later = _failed_after(line_no, errors)
    return not later or _compile(pattern).search(later[-1].short_type) is not None


def names_context(lines: list[str], table: dict[str, Any] | None, needs: tuple[str, ...] = ("stack", "run")) -> bool:
    """``lines`` name the fine-tuning stack or a training run (tables/priors.toml [stack] or [run] words, or those of
    ``needs``): what a process rule that ``needs_context`` asks of a report (unrelated39: SLURM's "Detected 1 oom_kill
    event" under a chemistry code or a cluster's batch job is every program's, not a fine-tuning run's)."""
    text = _rx(CJK_SEAM).sub(" ", "\n".join(lines)[:KEYWORD_CHARS])
    for need in needs:
        words = ((table or {}).get(need) or {}).get("words")
        if words and _rx(words, IGNORECASE).search(text):
            return True
    return False


# A letter or digit of a CJK script next to a Latin one: Python's regexes count both as word characters, so a rule's
# ``\bnccl\b`` does not hold in "训练产生NCCL错误". The keywords read the head with a space put at each such seam.
CJK_SEAM = (r"(?<=[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef])(?=[A-Za-z0-9])"
            r"|(?<=[A-Za-z0-9])(?=[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef])")


def names_other_software(text: str, table: dict[str, Any] | None) -> str | None:
    """The first word of other software that ``text`` names (tables/priors.toml [other]: another kind of model,
    another framework, another program), or None. The one reader of that table: the keyword rules, the title check of
    a signature's match (``title_ruled_out``) and the learned fallback (kb/diagnose/fallback.py) all ask it."""
    words = ((table or {}).get("other") or {}).get("words")
    if not words or not text:  # (no text names a word: its two regexes, ~0.1 ms of a start-up, are not built for it)
        return None
    found = _rx(words, IGNORECASE).search(_rx(CJK_SEAM).sub(" ", text))
    return found.group(0) if found else None


def other_software_report(head: list[str], errors: list[ParsedError], table: dict[str, Any] | None,
                          cut: bool = False) -> str | None:
    """Why a report is another program's, so that no keyword rule, no process evidence and no learned guess may claim
    it, or None: every typed error raised in a stack was raised in other software's code (tables/priors.toml
    [other_code], ``other_software_frame``), or, when none was raised in a stack, every traceback cut before its
    exception line ran in other software's code (only with ``cut``: the low-confidence stages ask it, the process
    evidence, the keyword rules and the learned fallback; a signature's match on an error line without frames is not
    ruled out by it: "Please upgrade transformers" printed under a ComfyUI node's cut traceback is still the stack's), or
    its first lines (``head``: a title, a sentence, a log's first lines) name other software. A typed error raised in
    the stack's code is exempt: its frames decide, and a path such as ``ComfyUI/custom_nodes/...`` above the stack's
    frame that raised says where the user ran the stack, not whose error it is."""
    stacked = [e for e in errors if e.type and e.frames]
    if stacked:
        others = [other_software_frame(e, table) for e in stacked]
        if all(f is not None for f in others):
            return f"the error was raised in other software's code ({others[-1].file})"  # type: ignore[union-attr]
        return None
    # (oos46) A traceback cut off before its exception line (an excerpt, a rich traceback's box cut short) still shows
    # whose code ran: when every such traceback's deciding frame is other software's (kohya's train_network.py, an
    # mmaction head, a ComfyUI node), the report is that program's as a typed one would be. Such a traceback never
    # exempts a report: without its exception line it says nothing of what failed in the stack.
    cuts = [e for e in errors if e.frames and not e.type] if cut else []
    if cuts:
        others = [other_software_frame(e, table) for e in cuts]
        if all(f is not None for f in others):
            return f"a traceback cut before its error line ran in other software's code ({others[-1].file})"  # type: ignore[union-attr]
    word = names_other_software("\n".join(head)[:KEYWORD_CHARS], table)
    return f"the report's first lines name other software ({word!r})" if word is not None else None


def program_keeps(m: Match, table: dict[str, Any] | None) -> bool:
    """(mix48) Whether a signature's match stands in an image-generation program's run (the input holds a line of
    tables/priors.toml [[program_line]], LineEvidence.program_hit): only a family of [program] ``families`` (the errors of
    a model's own computation: dtype, device, shape, NaN, memory) is given up there, and not when the error was raised
    in the stack's own code (a frame whose path [program] ``stack`` names: transformers/, peft/, ...), which says the
    stack ran inside that program (the deciding frame, as [other_code] finds it: the innermost that is neither a
    [[wrapper]]'s nor `shared` code's). An import or API error of the stack's libraries (api-drift, package-install,
    cuda-setup) stays the stack's under any program, as the dev set expects of ComfyUI nodes."""
    program = (table or {}).get("program") or {}
    family = m.entry.family if m.entry.kind == "case" else m.entry.key  # type: ignore[union-attr]
    if family not in (program.get("families") or ()):
        return True
    stack = program.get("stack")
    shared = ((table or {}).get("other_code") or {}).get("shared")
    for frame in reversed(m.error.frames):  # the deciding frame: the innermost that is neither a wrapper's nor shared
        path = code_path(frame.file)
        if wrapper_frame(frame, table) or (shared and _rx(shared).search(path)):
            continue
        return bool(stack) and _rx(stack).search(path) is not None
    return False


def banner_lines(error: ParsedError, evidence: LineEvidence, table: dict[str, Any] | None) -> list[str]:
    """The report's first lines that are another program's banner: the line opens with the program's name (tables/
    priors.toml [other]) and states a version ("Ultralytics YOLOv8.0.139 🚀 Python-3.9.17 torch-2.0.0+cu117 CUDA:0"),
    paths blanked, the error's own line left out: not the error's words ("If you tried to load a PyTorch model from a
    TF 2.0 checkpoint"), nor the folder a venv sits in (.../kohya_ss/venv/), nor a sentence saying where the user ran
    something ("When I try to use automatic1111 with the trained model"), nor an environment's list of versions that
    names other software among the stack's ("Environment: torch 2.1.0, transformers 4.36.2, keras 2.15.0"; "Colab:
    Python 3.10.12, torch 2.1.0+cu121, jax 0.4.23": review38, such lines silenced the stack's own errors). (oos46) A
    record of Python's logging whose logger is other software (tables/priors.toml [other_code] ``named_record``: "2025-07-26
    13:19:25,777 - ControlNet - INFO - ...", mmcv's runner's "- mmaction - INFO -") is that program's banner too."""
    stack = ((table or {}).get("stack") or {}).get("words")
    named = ((table or {}).get("other_code") or {}).get("named_record")
    found = []
    for line, no in zip(evidence.head, evidence.head_line_nos):
        if no == error.line_no:
            continue
        record = _rx(named).search(line[:LINE_CHARS]) if named else None
        if record is not None and names_other_software(record.group("name"), table) is not None:
            found.append(line)  # (oos46) a record of another program's logger: "... - ControlNet - INFO - ..."
            continue
        line = _rx(PATH_TOKEN).sub(" ", line)
        if not _rx(VERSION_TOKEN).search(line) or (stack and _rx(stack, IGNORECASE).search(line)):
            continue
        opening = line.lstrip(" \t>*#-:|[(")[:BANNER_NAME_CHARS]
        word = names_other_software(opening, table)
        if word is not None and opening.lower().startswith(word.lower()):
            found.append(line)
    return found


def title_ruled_out(line: str, table: dict[str, Any] | None) -> str | None:
    """Why a signature that matched an untyped one-line input (a title, a sentence: no exception type,
    no frame) may not answer it, or None: a title that names other software (``names_other_software``: a diffusion
    model, a detector, TensorFlow, ComfyUI) is not the stack's, whatever the wording. (A signature's own wording is
    not also asked for a stack word, as the generic keyword rules are: "Finetune, cuda out of memory" and "微调报CUDA
    out of memory错误" name no stack word and are the stack's CUDA OOM; tests/test_diagnose_prose_forms.py.)"""
    word = names_other_software(line[:KEYWORD_CHARS], table)
    return f"the title names other software ({word!r})" if word is not None else None

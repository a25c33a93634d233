"""Priors: a family answer for an error that no signature matched, from what generalises beyond wordings.

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

from kb.diagnose.answers import Answer, Candidate
from kb.diagnose.errors import ParsedError, chain_of
from kb.diagnose.match import Match, one_line, other_software_frame
from kb.diagnose.redact import redact
from kb.diagnose.stream import trigger_lines
from kb.knowledge.precompiled import pattern as _compile
from kb.knowledge.tables import NEEDED_WORDS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Iterator
    from typing import Any

    from kb.knowledge.model import Knowledge

# What an answer rests on, strongest first; a weaker basis never ranks above a stronger one.
BASES = ("case", "family-evidence", "family-prior", "family-keyword", "family-learned")
PRIOR_SCORES = {"medium": 0.6, "low": 0.45}  # medium at most: below any signature's match on its root error
KEYWORD_SCORE = 0.35  # always low: words of a title, not an error
MAX_ANSWERS = 3
MAX_FRAMES_WALKED = 10  # stack frames (wrappers not counted) looked at from the innermost outwards
LINE_CHARS = 500  # of a line, what process rules read
MAX_PROCESS_LINES = 2000  # lines holding a process literal that are read in all (a log of a million "Killed")
KEYWORD_LINES = 3  # a title-only or prose report: its first non-blank lines (the title, a sentence) ...
PATH_TOKEN = r"\S*[\\/]\S*"  # a path or URL in a line (banner_lines blanks it) ...
BANNER_NAME_CHARS = 40  # a banner's program name opens its line
VERSION_TOKEN = r"\d\.\d{1,4}\.\d"  # ... and the version a banner states (3.9.17, not a timestamp's 01.762829)
KEYWORD_CHARS = 1024  # ... and at most this much of them

# A span a sentence quotes: "...", “...” or `...` (bounded, so linear in the line).
QUOTED = '"([^"\\n]{8,300})"|“([^”\\n]{8,300})”|`([^`\\n]{8,300})`'
SENTENCE_BEFORE = "[A-Za-z]{2,}[^A-Za-z\\n]{1,4}[A-Za-z]{2,}"  # two words before a title's exception: a sentence
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
    LINE_CHARS of a line), and the input's first lines for the keywords. Linear in the input."""

    def __init__(self, table: dict[str, Any] | None) -> None:
        self.rules: list[dict[str, Any]] = list(table["process"]) if table else []
        self.literals = tuple(sorted({lit for r in self.rules for lit in r["literals"]}))
        self.hits: dict[int, tuple[int, str]] = {}  # rule index -> (1-based line number, the line)
        self.head: list[str] = []  # the input's first non-blank lines (the keywords read them) ...
        self.head_line_nos: list[int] = []  # ... and their 1-based line numbers
        self._head_chars = 0
        self._read_left = MAX_PROCESS_LINES

    def scan(self, chunks: Iterable[tuple[str, list[str]]]) -> Iterator[tuple[str, list[str]]]:
        base = 0
        for text, lines in chunks:
            if len(self.head) < KEYWORD_LINES and self._head_chars < KEYWORD_CHARS:
                self._keep_head(lines, base)
            if self.literals and self._read_left > 0 and len(self.hits) < len(self.rules):
                self._look(text, lines, base)
            base += len(lines)
            yield text, lines

    def _keep_head(self, lines: list[str], base: int) -> None:
        """The first KEYWORD_LINES non-blank lines, at most KEYWORD_CHARS in all (blank lines are skipped one
        chunk at a time: a chunk is at most stream.CHUNK_LINES lines)."""
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            piece = line[: KEYWORD_CHARS - self._head_chars]
            self.head.append(piece)
            self.head_line_nos.append(base + i + 1)
            self._head_chars += len(piece) + 1
            if len(self.head) >= KEYWORD_LINES or self._head_chars >= KEYWORD_CHARS:
                return

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
        for index in trigger_lines(text, literals):
            if self._read_left <= 0 or not pending:
                return
            line = lines[index][:LINE_CHARS].strip()
            held = [lit for lit in literals if lit in line]
            if not held:
                continue  # a literal past LINE_CHARS
            candidates = sorted({i for lit in held for i in by_literal[lit] if i not in self.hits})
            if not candidates:
                continue  # a literal of a rule that already holds
            self._read_left -= 1
            for i in candidates:
                rule = self.rules[i]
                if _rx(rule["line"]).search(line) and not any(_rx(p).search(line) for p in rule["excludes"]):
                    self.hits[i] = (base + index + 1, line)
                    pending.remove(i)

    def one_line(self) -> bool:
        """The input held one non-blank line, all of it read (a title, a sentence)."""
        return len(self.head) == 1 and self._head_chars < KEYWORD_CHARS

    def first_hit(self, table: dict[str, Any] | None = None) -> tuple[dict[str, Any], int, str] | None:
        """The process rule that holds, first in the table's order, with its line number and line. A rule that
        ``needs_context`` (an orchestrator's or the kernel's line, every program's) holds only where the report's
        other first lines name the stack or a run, or its own line names the stack (``names_context``; ``table``:
        tables/priors.toml). A run's words on its own line do not count: SLURM's "oom-kill event(s) in step 3756240"
        speaks of a job step, not a training step."""
        for i in sorted(self.hits):
            rule, (line_no, line) = self.rules[i], self.hits[i]
            if not rule.get("needs_context") or names_context(
                    [h for h, no in zip(self.head, self.head_line_nos) if no != line_no], table) \
                    or names_context([line], table, ("stack",)):
                return rule, line_no, line
        return None


def _family(knowledge: Knowledge, name: str) -> Any:
    """The family a rule names; None when the knowledge lacks it (tests/test_diagnose_priors.py checks the table)."""
    return knowledge.family(name)


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


def _process_prior(evidence: LineEvidence, knowledge: Knowledge) -> PriorMatch | None:
    hit = evidence.first_hit(knowledge.tables.get("priors"))
    if hit is None:
        return None
    rule, line_no, line = hit
    family = _family(knowledge, rule["family"])
    if family is None:
        return None
    error = ParsedError("", line, line_no=line_no)
    evidence_lines = [f"line {line_no}: process evidence {one_line(redact(line), 160)!r}: {rule['why']}",
                      "no signature of any case or family matched: how the process died decided the family"]
    return PriorMatch(family, "process", error, PRIOR_SCORES[rule["confidence"]], evidence_lines, "family-prior",
                      rule["why"])


def _of_types(root: ParsedError, types: list[str]) -> bool:
    """The root error's class is one of ``types`` (short or dotted names: the last components are compared)."""
    short = root.short_type
    return any(short == t.rsplit(".", 1)[-1] for t in types)


def _error_prior(root: ParsedError, table: dict[str, Any], knowledge: Knowledge) -> PriorMatch | None:
    if other_software_frame(root, table) is not None:  # raised in other software's code ([other_code])
        return None
    # the message, the lines after it, and the files of its stack (an error raised under another program's code)
    nearby = [root.message, *root.after, *(f.file for f in root.frames)]
    for rule in table["error"]:
        if rule["types"]:
            if not _of_types(root, rule["types"]):
                continue
        elif root.noise:  # words in a follow-on error's message say nothing of the cause
            continue
        if rule["message"] and not _rx(rule["message"]).search(root.message[:4000]):
            continue
        if any(_rx(p).search(text[:LINE_CHARS * 8]) for p in rule["excludes"] for text in nearby):
            continue
        if rule["near"] and not any(_rx(rule["near"]).search(text[:LINE_CHARS * 8])
                                    for text in (*nearby, *root.context)):
            continue  # the message is every run's; only the kind of run the rule names (its frames, its log) says more
        family = _family(knowledge, rule["family"])
        if family is None:
            continue
        what = f"exception class {root.type}" if rule["types"] else f"the message of {root.type or 'the error'}"
        evidence = [f"line {root.line_no}: {what}: {rule['why']}",
                    "no signature of any case or family matched: the error's class or words decided the family"]
        return PriorMatch(family, "error", root, PRIOR_SCORES[rule["confidence"]], evidence, "family-prior",
                          rule["why"])
    return None


def _frame_prior(root: ParsedError, table: dict[str, Any], knowledge: Knowledge, clear: bool = False
                 ) -> PriorMatch | None:
    """The innermost stack frame a rule holds for, wrappers passed over, up to the user's own code. A wrapper's
    frame decides only through a rule that names its function (the Trainer's and accelerate's checkpoint code).

    A rule that ``yields`` names a layer other frameworks call into (torch.distributed's collectives,
    which DeepSpeed ZeRO and FSDP use): a frame further out that another rule holds for decides first.

    ``clear``: a traceback cut before its exception line, whose frames are all the evidence: it decides only
    when every frame a rule holds for (yielding rules aside, where another holds) names the same family."""
    if root.noise or not root.frames or other_software_frame(root, table) is not None:
        return None
    hits: list[tuple[PriorMatch, bool]] = []  # (the match, whether its rule yields), innermost first
    walked = 0
    for frame in reversed(root.frames):
        if not frame.is_library:
            break  # raised in (or under) the user's own code: the library frames below it did not decide
        path = frame.file.replace("\\", "/")
        wrapper = any(_rx(w["file"]).search(path) for w in table["wrapper"])
        if not wrapper:
            walked += 1
            if walked > MAX_FRAMES_WALKED:
                break
        for rule in table["frame"]:
            if wrapper and not rule["function"]:
                continue  # a wrapper's frame decides only through a rule that names its function (Accelerator.load_state)
            if not _rx(rule["file"]).search(path):
                continue
            if rule["function"] and not _rx(rule["function"]).search(frame.function):
                continue
            if rule["types"] and not _of_types(root, rule["types"]):
                continue
            family = _family(knowledge, rule["family"])
            if family is None:
                continue
            where = redact(f"{frame.file}:{frame.line} in {frame.function}")
            evidence = [f"frame {where} decided it: {rule['why']}",
                        f"no signature of any case or family matched the error on line {root.line_no}: "
                        "the innermost frame of the stack decided the family"]
            hits.append((PriorMatch(family, "frame", root, PRIOR_SCORES["low"], evidence, "family-prior", rule["why"]),
                         bool(rule.get("yields"))))
            if not rule.get("yields") and not clear:
                return hits[-1][0]
            break
    deciding = [m for m, yields in hits if not yields] or [m for m, _ in hits]
    if clear and len({m.entry.key for m in deciding}) > 1:
        return None  # the frames point to more than one family
    return deciding[0] if deciding else None


def _linked_priors(root: ParsedError, errors: list[ParsedError], table: dict[str, Any], knowledge: Knowledge
                   ) -> list[PriorMatch]:
    """When the root error's class, words and frames decided nothing: the other exceptions of its chain (the final
    error of "During handling ..." may be raised in the stack's code when its cause was not), then a traceback cut
    before its exception line elsewhere in the input (a warning printed before it became the root): its frames,
    where they point clearly to one family."""
    for other in chain_of(root, errors):
        if other is root:
            continue
        found = _error_prior(other, table, knowledge) or _frame_prior(other, table, knowledge)
        if found is not None:
            return [found]
    for at, other in enumerate(errors):
        if other is not root and other.in_traceback and not other.type and not other.message and other.frames:
            found = _frame_prior(_reraised(errors[at - 1] if at else None, other, table), table, knowledge, clear=True)
            if found is not None:
                return [found]
    return []


def _reraised(before: ParsedError | None, cut: ParsedError, table: dict[str, Any]) -> ParsedError:
    """A traceback cut before its exception line, read as an error of the class that the error just before it names
    when that one re-raises an error caught in a worker (tables/priors.toml [reraise]: "ValueError: Caught ValueError in
    DataLoader worker process 0." then "Original Traceback ..."): the original error's frames, with its class, so that
    the frame rules that hold for some classes only may decide. Otherwise ``cut`` itself."""
    wrapper = (table.get("reraise") or {}).get("message")
    if before is None or not wrapper or not before.type:
        return cut
    found = _rx(wrapper).search(before.message[:LINE_CHARS])
    if found is None:
        return cut
    return ParsedError(found.group(1), "", frames=cut.frames, line_no=cut.line_no, rank=cut.rank, in_traceback=True)


# A letter or digit of a CJK script next to a Latin one: Python's regexes count both as word characters, so a rule's
# ``\bnccl\b`` does not hold in "训练产生NCCL错误". The keywords read the head with a space put at each such seam.
CJK_SEAM = (r"(?<=[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef])(?=[A-Za-z0-9])"
            r"|(?<=[A-Za-z0-9])(?=[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef])")


def _quoted(line: str) -> str:
    """The spans of a line quoted in it ("...", “...”, `...`): an error a sentence of prose quotes."""
    return " ".join(m.group(1) or m.group(2) or m.group(3) for m in _rx(QUOTED).finditer(line))


def _keyword_prior(evidence: LineEvidence, table: dict[str, Any], knowledge: Knowledge,
                   quoted_only: bool = False) -> PriorMatch | None:
    """``quoted_only``: the input holds a traceback cut off before its exception line, so only what its prose
    quotes counts (a log line's words before such a traceback are no report of the failure)."""
    head = [_quoted(line) for line in evidence.head] if quoted_only else evidence.head
    head = [_rx(CJK_SEAM).sub(" ", line) for line in head]
    text = "\n".join(head)
    if not text.strip():  # (prior_answers asked the whole head for other software's words before calling this)
        return None
    for rule in table["keyword"]:
        found = [_rx(p, IGNORECASE).search(text) for p in rule["all"]]
        if not all(found) or not _keyword_holds(rule, text, table):
            continue
        family = _family(knowledge, rule["family"])
        if family is None:
            continue
        first = found[0]
        index = text.count("\n", 0, first.start())  # type: ignore[union-attr]
        line_no = evidence.head_line_nos[index]
        error = ParsedError("", evidence.head[index].strip(), line_no=line_no)  # the line as written
        evidence = [f"line {line_no}: the words {one_line(redact(first.group(0)), 60)!r}: {rule['why']}",  # type: ignore[union-attr]
                    "no error in the input matched a signature, and it holds no exception line (at most an exception "
                    "its sentence names): the report's words decided the family"]
        return PriorMatch(family, "keyword", error, KEYWORD_SCORE, evidence, "family-keyword", rule["why"])
    return None


def _keyword_holds(rule: dict[str, Any], text: str, table: dict[str, Any]) -> bool:
    """A keyword rule whose words matched holds: none of its excludes matches (a build's OOM, an install's hang: the
    family's own semantics; other software's words are the [other] table's, which every rule honours through
    ``names_other_software``) and the text names what it needs (the [stack] words, the [failure] words)."""
    if any(_rx(p, IGNORECASE).search(text) for p in rule["excludes"]):
        return False
    return not any(rule[f"needs_{need}"] and not _rx(table[need]["words"], IGNORECASE).search(text)
                   for need in NEEDED_WORDS)


def names_other_software(text: str, table: dict[str, Any] | None) -> str | None:
    """The first word of other software that ``text`` names (tables/priors.toml [other]: another kind of model,
    another framework, another program), or None. The one reader of that table: the keyword rules, the title check of
    a signature's match (``title_ruled_out``) and the learned fallback (kb/diagnose/fallback.py) all ask it."""
    words = ((table or {}).get("other") or {}).get("words")
    if not words:
        return None
    found = _rx(words, IGNORECASE).search(_rx(CJK_SEAM).sub(" ", text))
    return found.group(0) if found else None


def other_software_report(head: list[str], errors: list[ParsedError], table: dict[str, Any] | None) -> str | None:
    """Why a report is another program's, so that no keyword rule, no process evidence and no learned guess may claim
    it, or None: every typed error raised in a stack was raised in other software's code (tables/priors.toml
    [other_code], ``other_software_frame``), or, when none was raised in a stack, its first lines (``head``: a title, a
    sentence, a log's first lines) name other software. A typed error raised in the stack's code is exempt: its frames
    decide, and a path such as ``ComfyUI/custom_nodes/...`` above the stack's frame that raised says where the user
    ran the stack, not whose error it is."""
    stacked = [e for e in errors if e.type and e.frames]
    if stacked:
        others = [other_software_frame(e, table) for e in stacked]
        if all(f is not None for f in others):
            return f"the error was raised in other software's code ({others[-1].file})"  # type: ignore[union-attr]
        return None
    word = names_other_software("\n".join(head)[:KEYWORD_CHARS], table)
    return f"the report's first lines name other software ({word!r})" if word is not None else None


def banner_lines(error: ParsedError, evidence: LineEvidence, table: dict[str, Any] | None) -> list[str]:
    """The report's first lines that are another program's banner: the line opens with the program's name (tables/
    priors.toml [other]) and states a version ("Ultralytics YOLOv8.0.139 🚀 Python-3.9.17 torch-2.0.0+cu117 CUDA:0"),
    paths blanked, the error's own line left out: not the error's words ("If you tried to load a PyTorch model from a
    TF 2.0 checkpoint"), nor the folder a venv sits in (.../kohya_ss/venv/), nor a sentence saying where the user ran
    something ("When I try to use automatic1111 with the trained model"), nor an environment's list of versions that
    names other software among the stack's ("Environment: torch 2.1.0, transformers 4.36.2, keras 2.15.0"; "Colab:
    Python 3.10.12, torch 2.1.0+cu121, jax 0.4.23": review38, such lines silenced the stack's own errors)."""
    stack = ((table or {}).get("stack") or {}).get("words")
    found = []
    for line, no in zip(evidence.head, evidence.head_line_nos):
        if no == error.line_no:
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


def _title_naming_error(errors: list[ParsedError], evidence: LineEvidence) -> bool:
    """The input is one line, no stack, and each exception it names comes after words of a sentence: a title that
    quotes an error (its words still say what failed), not an error line pasted alone."""
    if not evidence.one_line() or any(e.frames for e in errors):
        return False
    line = evidence.head[0]
    for e in errors:
        at = line.find(e.type) if e.type else -1
        if e.type and (at < 0 or not _rx(SENTENCE_BEFORE).search(line[:at])):
            return False
    return True


def prior_answers(root: ParsedError | None, errors: list[ParsedError], knowledge: Knowledge,
                  evidence: LineEvidence) -> list[Answer]:
    """Family answers from the priors, strongest first, one per family. Call only when no signature matched:
    these never compete with a signature's answer."""
    table = knowledge.tables.get("priors")
    if not table:
        return []
    other = other_software_report(evidence.head, errors, table)
    # How a process died says whose run it was only when the report is the stack's: "ollama ... killed by the OOM
    # killer" is another program's host OOM, not a fine-tuning run's (a stack's traceback is exempt, as below).
    found = [_process_prior(evidence, knowledge) if other is None else None]
    if root is not None:
        cut = root.in_traceback and not root.type and not root.message  # a traceback without its exception line
        found += [_error_prior(root, table, knowledge), _frame_prior(root, table, knowledge, clear=cut)]
        if not any(found):
            found += _linked_priors(root, errors, table, knowledge)
    matches = [m for m in found if m is not None]
    # A title or prose: no typed error. A traceback cut off before its exception line (a forum post's excerpt, a
    # truncated paste) says no more than prose does, so the report's own words still decide. So does a one-line title
    # that names an exception inside its sentence ("use accelerate to resume checkpoint raise IndexError: ...").
    # Not when those first lines name other software (other_software_report), quoted or not.
    if not matches and (not any(e.type for e in errors) or _title_naming_error(errors, evidence)) \
            and other is None:
        keyword = _keyword_prior(evidence, table, knowledge, quoted_only=any(e.frames for e in errors))
        matches = [keyword] if keyword is not None else []
    answers: list[Answer] = []
    seen: set[str] = set()
    for m in sorted(matches, key=lambda x: (BASES.index(x.basis), -x.score)):  # stable: process, error, frame
        if m.entry.key in seen:
            continue
        seen.add(m.entry.key)
        answers.append(Answer(m, [Candidate(c, None) for c in knowledge.family_cases(m.entry)]))  # type: ignore[arg-type]
    return answers[:MAX_ANSWERS]


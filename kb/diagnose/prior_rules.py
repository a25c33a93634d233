"""The priors stage: family answers for an input no signature matched (kb/diagnose/priors.py says what evidence
decides them; tables/priors.toml holds the rules). Imported only for such an input (kb/diagnose/diagnosis.py): a run
whose error a signature matched never reads these rules.
"""

from __future__ import annotations

from kb.diagnose.answers import Answer, Candidate
from kb.diagnose.errors import ParsedError, chain_of
from kb.diagnose.match import in_other_software_record, one_line, other_software_frame, wrapper_frame
from kb.diagnose.priors import (
    BASES, CJK_SEAM, IGNORECASE, LINE_CHARS, WENT_ON, LineEvidence, PriorMatch, banner_lines, names_other_software,
    other_software_report,
)
from kb.diagnose.redact import redact
from kb.knowledge.precompiled import pattern as _rx

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from typing import Any

    from kb.knowledge.model import Knowledge

PRIOR_SCORES = {"medium": 0.6, "low": 0.45}  # medium at most: below any signature's match on its root error
KEYWORD_SCORE = 0.35  # always low: words of a title, not an error
MAX_ANSWERS = 3
MAX_FRAMES_WALKED = 10  # stack frames (wrappers not counted) looked at from the innermost outwards
# A span a sentence quotes: "...", “...” or `...` (bounded, so linear in the line).
QUOTED = '"([^"\\n]{8,300})"|“([^”\\n]{8,300})”|`([^`\\n]{8,300})`'
SENTENCE_BEFORE = "[A-Za-z]{2,}[^A-Za-z\\n]{1,4}[A-Za-z]{2,}"  # two words before a title's exception: a sentence


def _family(knowledge: Knowledge, name: str) -> Any:
    """The family a rule names; None when the knowledge lacks it (tests/test_diagnose_priors.py checks the table)."""
    return knowledge.family(name)


def _process_prior(evidence: LineEvidence, knowledge: Knowledge, errors: list[ParsedError]) -> PriorMatch | None:
    hit = evidence.first_hit(knowledge.tables.get("priors"), errors)
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
    # (turn 48) literals one of which every match of a rule's message regex holds, from the index: a message with none
    # of them is not searched, and the regex is not built (most of the ~55 for an error no signature answered)
    literals: dict[str, list[str]] = getattr(knowledge, "prior_literals", None) or {}
    head = root.message[:4000]
    for rule in table["error"]:
        if rule["types"]:
            if not _of_types(root, rule["types"]):
                continue
        elif root.noise:  # words in a follow-on error's message say nothing of the cause
            continue
        if rule["message"]:
            needed = literals.get(rule["message"])
            if needed is not None and not any(literal in head for literal in needed):
                continue  # (the regex cannot match: found would be None)
            found = _rx(rule["message"]).search(head)
            if found is None or in_other_software_record(root.message, found.start()):
                continue  # (words in a line another program's code printed, TensorFlow's record, are not the error's)
        if any(_rx(p).search(text[:LINE_CHARS * 8]) for p in rule["excludes"] for text in nearby):
            continue
        if rule["near"] and not any(_rx(rule["near"]).search(text[:LINE_CHARS * 8])
                                    for text in (*nearby, *root.context)):
            continue  # the message is every run's; only the kind of run the rule names (its frames, its log) says more
        if rule.get("innermost") and not (root.frames and _rx(rule["innermost"]).search(root.frames[-1].file)):
            continue  # (review40: raised where the rule says, not only named in a line near it: a notebook's `ls`)
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
    # (mix43) no exception line shown (neither class nor message): the last frame shown is where the paste stops, and
    # the rules marked `cut` (what failing in that call means, whatever the class) hold on it
    stops_at = root.frames[-1] if root.in_traceback and not root.type and not root.message else None
    for frame in reversed(root.frames):
        if not frame.is_library:
            break  # raised in (or under) the user's own code: the library frames below it did not decide
        path = frame.file.replace("\\", "/")
        wrapper = wrapper_frame(frame, table)
        if not wrapper:
            walked += 1
            if walked > MAX_FRAMES_WALKED:
                break
        for rule in table["frame"]:
            if rule.get("cut") and frame is not stops_at:
                continue  # a rule of where a cut traceback stops: only that traceback's last frame shown
            if wrapper and not rule["function"]:
                continue  # a wrapper's frame decides only through a rule that names its function (Accelerator.load_state)
            if not _rx(rule["file"]).search(path):
                continue
            if rule["function"] and not _rx(rule["function"]).search(frame.function):
                continue
            if rule["types"] and not _of_types(root, rule["types"]):
                continue
            if rule.get("code") and not _rx(rule["code"]).search(frame.code):
                continue  # the statement that ran in this frame is not the one the rule knows
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


def _quoted(line: str) -> str:
    """The spans of a line quoted in it ("...", “...”, `...`): an error a sentence of prose quotes."""
    return " ".join(m.group(1) or m.group(2) or m.group(3) for m in _rx(QUOTED).finditer(line))


LOGGER_CHARS = 200  # of a head line, what the other-program log-record check reads (the record's opening)


def _keyword_prior(evidence: LineEvidence, table: dict[str, Any], knowledge: Knowledge,
                   quoted_only: bool = False) -> PriorMatch | None:
    """``quoted_only``: the input holds a traceback cut off before its exception line, so only what its prose
    quotes counts (a log line's words before such a traceback are no report of the failure). A line that is another
    program's log record (tables/priors.toml [other_code] ``logger``: vLLM's "ERROR 07-09 11:28:31 [dump_input.py:69]
    Dumping input data for V1 LLM engine ... trust_remote_code=True") is no report's words either: it is read as empty."""
    lines, line_nos = evidence.keyword_head()  # (titles44) an issue template's header and checklist lines left out
    head = [_quoted(line) for line in lines] if quoted_only else lines
    logger = (table.get("other_code") or {}).get("logger")
    if logger:
        head = ["" if _rx(logger).search(line[:LOGGER_CHARS]) else line for line in head]
    routine = table["routine"]["words"]  # a library's log of every run is no report's words: left blank, not read
    if routine:
        head = ["" if _rx(routine, IGNORECASE).search(line) else line for line in head]
    head = [_rx(CJK_SEAM).sub(" ", line) for line in head]
    text = "\n".join(head)
    if not text.strip():  # (prior_answers asked the whole head for other software's words before calling this)
        return None
    if lines is not evidence.head and names_other_software(text, table) is not None:
        return None  # (titles44) prose past a template's lines that names other software, which the head did not show
    for rule in table["keyword"]:
        found = [_rx(p, IGNORECASE).search(text) for p in rule["all"]]
        if not all(found) or not _keyword_holds(rule, text, table):
            continue
        family = _family(knowledge, rule["family"])
        if family is None:
            continue
        first = found[0]
        index = text.count("\n", 0, first.start())  # type: ignore[union-attr]
        line_no = line_nos[index]
        error = ParsedError("", lines[index].strip(), line_no=line_no)  # the line as written
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
    from kb.knowledge.tables import NEEDED_WORDS  # (here: a run no keyword rule's words matched imports no tables module)

    return not any(rule[f"needs_{need}"] and not _rx(table[need]["words"], IGNORECASE).search(text)
                   for need in NEEDED_WORDS)


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
    other = other_software_report(evidence.head, errors, table, cut=True)
    # How a process died says whose run it was only when the report is the stack's: "ollama ... killed by the OOM
    # killer" is another program's host OOM, not a fine-tuning run's (a stack's traceback is exempt, as below).
    found = [_process_prior(evidence, knowledge, errors) if other is None else None]
    if root is not None:
        cut = root.in_traceback and not root.type and not root.message  # a traceback without its exception line
        # (review48) an error line without frames under another program's banner ("Ultralytics YOLOv8.0.139 ...") is
        # that program's, as diagnosis.py rules a signature's match on it out: no error prior reads it either
        bannered = not root.frames and other_software_report(banner_lines(root, evidence, table), errors,
                                                             table) is not None
        found += [None if bannered else _error_prior(root, table, knowledge),
                  _frame_prior(root, table, knowledge, clear=cut)]
        if not any(found):
            found += _linked_priors(root, errors, table, knowledge)
    matches = [m for m in found if m is not None]
    # (rt47) A launcher's or a wrapper's report that a worker failed (tables/noise.toml: torchrun's ChildFailedError,
    # accelerate's CalledProcessError, Ray's RayTaskError and TrainingFailedError) says nothing of the cause: with only
    # such reports, the input is read as if it held no typed error, so a title above them still decides. A warning is
    # no such report: it keeps counting as a typed error.
    # (root49) An error a warning the run went on past quotes (LineEvidence.went_on_past) still says the input is a log
    # (not a title or prose): it keeps counting too.
    errors = [e for e in errors if e.noise is None or e.type.endswith("Warning") or e.noise.startswith(WENT_ON)]
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


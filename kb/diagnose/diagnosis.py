"""`kb diagnose`: from error text to ranked answers (cases or families), with evidence.

Parse the input into errors (kb/diagnose/stream.py, kb/diagnose/parser.py), read environment facts from it
(kb/diagnose/environment.py), choose the root error, match every error against every case and
family (kb/diagnose/match.py), weigh this machine's evidence when `kb diagnose --env` gives it
(kb/diagnose/machine.py), rank the answers (kb/diagnose/answers.py), then the API-drift stage adds
the history's facts to api-drift answers (kb/diagnose/drift.py), the numbers stage computes each
answer's ``[fix] numbers`` lines (kb/diagnose/numbers.py), the versions stage spells the fix's
keywords for the user's versions (kb/diagnose/advice.py), and an OOM whose log names the model gets
the planner's answer (kb/diagnose/oomplan.py). The JSON document is built in
kb/diagnose/document.py; kb/render/diagnosis.py renders it as text.
"""

from __future__ import annotations

from kb.diagnose.answers import Answer, drift_may_read, rank_answers
from kb.diagnose.environment import EnvironmentScanner
from kb.diagnose.input import MAX_LINE_BYTES, LogReader, UnusableInput
from kb.diagnose.match import MATCH_CHARS, link_asynchronous, match, use_priors
from kb.diagnose.errors import ParsedError, RankCounter
from kb.diagnose.priors import LineEvidence, banner_lines, other_software_report, program_keeps
from kb.diagnose.stream import chunk_lines, parse_chunks
from kb.diagnose.textclean import join_partial_records
from kb.diagnose.versions import VersionScanner

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from kb.diagnose.machine import MachineEvidence
    from kb.knowledge.model import Case, Family, Knowledge

MAX_ERRORS_KEPT = 500
# Characters of messages scored in all (each message counts what signatures search of it, at most
# MATCH_CHARS): about a second of regex work at worst; the dev set's inputs hold at most 1.1 KiB.
MATCH_BUDGET_CHARS = 256 * 1024
MAX_LINE_KIB = MAX_LINE_BYTES // 1024


class Diagnosis:
    """The ranked answers for one input, the errors kept, and facts read from the log."""

    def __init__(
        self,
        answers: list[Answer],
        errors_seen: int,
        root_error: ParsedError | None,
        knowledge: Knowledge,
        notes: list[str] | None = None,
        errors: list[ParsedError] | None = None,
        environment: dict[str, str] | None = None,
        machine: MachineEvidence | None = None,
    ) -> None:
        self.answers, self.errors_seen, self.root_error = answers, errors_seen, root_error
        self.knowledge = knowledge
        self.notes = notes if notes is not None else []
        self.errors = errors if errors is not None else []
        self.environment = environment if environment is not None else {}
        self.machine = machine


def choose_root(errors: list[ParsedError], first_failed_rank: str | None = None) -> ParsedError | None:
    """The root error: the first error (first rank to fail, innermost cause of a chain) that is not noise.

    When torchrun's summary names the rank that failed first ("Root Cause (first observed
    failure)"), that rank's errors are the candidates. An error with a traceback is preferred to a bare error line: a crash prints a traceback, while a
    bare line earlier in a long log is often an error the program logged and survived.

    Causes print before their consequences ("The above exception was the direct cause of the
    following exception"), and the first rank to fail prints first, so input order decides.
    """
    typed = [e for e in errors if e.type or e.message]
    if first_failed_rank is not None and any(e.rank == first_failed_rank and not e.noise for e in typed):
        typed = [e for e in typed if e.rank == first_failed_rank]  # torchrun said which rank failed first
    for candidates in (
        [e for e in typed if not e.noise and e.message and e.in_traceback],
        [e for e in typed if not e.noise and e.message],
        [e for e in typed if not e.noise],
        typed,
        errors,
    ):
        if candidates:
            return candidates[0]
    return None


# (qa38) Marks of a forum's shapes of error text (kb/diagnose/flatten.py's MARKS): a chunk that holds one is unfolded.
# Forum posts are short: only the input's first FORUM_CHARS characters are looked at (a long log pays nothing more).
FORUM_MARKS = ("&quot;", "&#39;", "&#x27;", "&lt;", "&gt;", "&amp;", "<br", "<code", "<pre", "\\n", "last): ",
               "ERROR Traceback", "ERROR File", '", line ')
FORUM_CHARS = 256 * 1024


def forum_shapes(chunks: Iterable[tuple[str, list[str]]], unfolded: list[int]) -> Iterable[tuple[str, list[str]]]:
    """The chunks, the lines of the input's first FORUM_CHARS characters unfolded where they hold a forum shape's mark
    (kb/diagnose/flatten.py, imported only then); ``unfolded`` gets the number of lines each unfolded chunk gained."""
    left = FORUM_CHARS
    for text, lines in chunks:
        if left > 0 and any(mark in text[:left] for mark in FORUM_MARKS):
            from kb.diagnose.flatten import unfold
            from kb.diagnose.input import hand_out

            head = lines if len(text) <= left else lines[:text.count("\n", 0, left) + 1]
            new = unfold(head)
            if new is not head:
                unfolded.append(len(new) - len(head))
                new = new if head is lines else new + lines[len(head):]
                text, lines = hand_out("\n".join(new), new)
        left -= len(text)
        yield text, lines


def diagnose_lines(lines: Iterable[str], knowledge: Knowledge, machine: MachineEvidence | None = None) -> Diagnosis:
    """Diagnose text lines (an open file, a list); see diagnose_chunks."""
    return diagnose_chunks(chunk_lines(lines), knowledge, machine)


def diagnose_chunks(chunks: Iterable[tuple[str, list[str]]], knowledge: Knowledge,
                    machine: MachineEvidence | None = None) -> Diagnosis:
    """The pipeline: parse, read facts from the log, choose the root error, match every case and family,
    weigh the machine's evidence, rank, then the API-drift, numbers, versions and planner stages."""
    unfolded: list[int] = []
    joined: list[int] = []
    chunks = join_partial_records(chunks, joined)  # a container runtime's split lines joined (kb/diagnose/textclean.py)
    chunks = forum_shapes(chunks, unfolded)  # (qa38) a forum's shapes of error text undone, kb/diagnose/flatten.py
    tables = knowledge.tables
    use_priors(tables.get("priors"))  # this knowledge's [other_code] for the matching, not the root loaded last
    scanner = EnvironmentScanner(tables["gpus"]["card"] if "gpus" in tables else None)
    # installed library versions pasted with the error (pip list, pip show, ...)
    versions = VersionScanner(knowledge.libraries("log_versions") if "libraries" in tables else None)
    kept: list[ParsedError] = []
    seen = 0
    ranks = RankCounter()
    noise = tables["noise"]["rule"] if "noise" in tables else None
    evidence = LineEvidence(tables.get("priors"))  # process evidence and a report's first lines (kb/diagnose/priors.py)
    for error in parse_chunks(evidence.scan(versions.scan(scanner.scan(chunks))), knowledge.literals(),
                              knowledge.leading_literals(), ranks, noise):
        seen += 1
        if len(kept) < MAX_ERRORS_KEPT:
            kept.append(error)
        else:
            error.source = None
    # (root49) an error only a library's warning quotes (huggingface_hub's retry warning) where the run went on past the
    # warning (progress, a later death): follow-on noise, neither the root nor matched (kb/diagnose/priors.py); its
    # own line is read from its source, before the redaction below drops it
    passed = evidence.went_on_past(kept) if kept and evidence.rules else []
    # what the errors quote, redacted with the input lines they came from (kb/diagnose/quoted.py). (Sources of one line
    # too: a NUL-separated argv on one line reads as a flag and its value only there, the message has the NULs out.)
    if kept:
        from kb.diagnose.quoted import redact_quoted

        redact_quoted(kept)
    listed = kept  # (what the document lists: the errors passed over too, with their noise reason)
    if passed:
        kept = [e for e in kept if not any(e is p for p in passed)]
    environment = {**scanner.result(kept, ranks.top), **versions.facts}
    link_asynchronous(kept, tables.get("priors"))  # a kernel's assertion and the traceback printed for it
    root = choose_root(kept, environment.get("first_failed_rank"))
    messages = [e for e in kept if e.type or e.message]
    typed = within_match_budget(messages, root)
    case_matches = match(typed, knowledge.cases, environment, root)
    if machine is not None:
        machine.weigh(case_matches)
    family_matches = match(typed, knowledge.families, environment, root)
    # another program's report (a banner in its first lines names it, or every stack raised in its code): an error
    # without frames of its own (an Ultralytics banner, then a device-side assert) says nothing of the stack
    case_matches, family_matches = ([m for m in ms if m.error.frames or not other_software_report(
        banner_lines(m.error, evidence, tables.get("priors")), kept, tables.get("priors"))]
        for ms in (case_matches, family_matches))
    # (mix48) an image-generation program's run (a line only such a program prints: tables/priors.toml [program]): a
    # dtype, device, shape, NaN or memory error of its models' computation is not the stack's
    program_run = evidence.program_hit() is not None
    if program_run:
        case_matches, family_matches = ([m for m in ms if program_keeps(m, tables.get("priors"))]
                                        for ms in (case_matches, family_matches))
    answers = rank_answers(case_matches, family_matches, knowledge,
                           only_noise=root is not None and root.noise is not None)
    if drift_stage_needed(answers, kept, knowledge):  # the API-drift stage (kb/diagnose/drift.py, imported only then)
        from kb.diagnose.drift import attach_drift

        attach_drift(answers, knowledge, machine.versions if machine is not None else None, kept, evidence.head)
    if not answers and not kept and prose_may_name_import(evidence.head):
        # no error line at all, and the report's first lines speak of an import: the API history may date the name
        # they say fails (kb/diagnose/drift.py, prose_answer; imported only then)
        from kb.diagnose.drift import prose_answer

        found = prose_answer(knowledge, evidence.head, evidence.head_line_nos, environment,
                             machine.versions if machine is not None else None)
        answers = [found] if found is not None else answers
    # No signature matched anything: a family from the priors, at low confidence. (When one matched and a stage
    # declined it, as the API-drift stage declines a keyword no release ever had, the silence is the answer.)
    if not answers and not case_matches and not family_matches:
        from kb.diagnose.prior_rules import prior_answers  # (the priors stage's rules: imported only here)

        answers = prior_answers(root, kept + passed if passed else kept, knowledge, evidence)
        if not answers and not _history_judges(root):  # nor a prior: the nearest labelled reports, when enough
            # agree (imported only here)
            from kb.diagnose.fallback import fallback_answers

            answers = fallback_answers(root, kept, knowledge, evidence)
        if program_run:  # (review48) the priors and the fallback keep [program] as the signatures do: no answer of its
            # families in an image-generation program's run (a prior it gave up is not replaced by the fallback's)
            answers = [a for a in answers if program_keeps(a.match, tables.get("priors"))]
        quoting = [a.match.error for a in answers
                   if a.match.error is not None and not any(a.match.error is e for e in kept)]
        if quoting and evidence.head:  # (turn 48) an error a prior made of the report's first lines: no source of its
            # own (kb/diagnose/quoted.py), so the secrets of those lines are masked in it (a token a wrap cut in two)
            from kb.diagnose.quoted import redact_with

            redact_with(quoting, evidence.head)
    whole_program = evidence.program_hit(whole_run=True)
    if whole_program is not None:  # (wrong49) another kind of model's trainer or generator (kohya's
        # sd-scripts, FramePack: tables/priors.toml [[program_line]] whole_run): its run is not a fine-tuning run of the
        # stack, whatever raised in it (an accelerate too old for kohya's script, a peft FramePack did not install)
        answers = []
        rule, line_no, _line = whole_program
        notes_out = [f"line {line_no} is {rule['program']}'s own output: outside kb's scope (another kind of model's "
                     "run), nothing answered"]
    else:
        notes_out = []
    if any(_numbered(a.match.entry, knowledge) for a in answers):  # the numbers stage (imported only then)
        from kb.diagnose.numbers import attach_numbers

        attach_numbers(answers, family_matches, knowledge)
    if any("{kw:" in a.match.entry.fix_template for a in answers):  # the versions stage (imported only then: it
        # does nothing for a fix without a version-dependent keyword, attach_advice's own first test)
        from kb.diagnose.advice import attach_advice

        attach_advice(answers, knowledge, environment, machine.versions if machine is not None else None)
    if environment.get("model"):  # the planner answers only where the log names the model (imported only then)
        from kb.diagnose.oomplan import attach_plan

        attach_plan(answers, environment)
    diagnosis = Diagnosis(answers, seen, root, knowledge, errors=listed, environment=environment, machine=machine)
    diagnosis.notes.extend(notes_out)
    if unfolded:
        diagnosis.notes.append("the error text was pasted flattened, escaped or marked up (a forum's or a web UI's "
                               "shape) and was read as Python printed it: line numbers count the lines read")
    if joined:
        diagnosis.notes.append("a container runtime's partial log records (CRI \"P\") were joined to the records that end "
                               "them: line numbers count the lines read")
    unscored = len(messages) - len(typed)
    if unscored:
        diagnosis.notes.append(f"{unscored} error(s) were not scored: scoring stops at "
                               f"{MATCH_BUDGET_CHARS // 1024} KiB of message text")
    return diagnosis


def drift_stage_needed(answers: list[Answer], errors: list[ParsedError], knowledge: Knowledge) -> bool:
    """Whether attach_drift (kb/diagnose/drift.py) may do anything: it reads only the answers drift_may_read names
    (the same predicate), and asks the history itself only when nothing answered and the log has errors. Otherwise
    it changes nothing, and its module (~0.27 ms of start-up) is not imported (tests/test_startup_lazy.py runs it
    where this says no)."""
    if not answers:
        return bool(errors)
    return any(drift_may_read(a.match, knowledge.api_history_families) for a in answers)


def _history_judges(root: ParsedError | None) -> bool:
    """Whether the root error is a keyword, import or attribute error the API history judges (kb/diagnose/drift.py
    recognise reads its form): the history knows every release's names and found no drift (a typo, the user's own
    code), so the learned fallback's reports that merely look alike must not overrule it. Asked here, before the
    fallback's module (and math) is imported for nothing: (turn 50) "'NoneType' object has no attribute 'shape'" came
    that far, ~1.3 million instructions of its ~90 million. (drift.py is imported already: an error reaches this only
    where the drift stage ran.)"""
    if root is None:
        return False
    from kb.diagnose.drift import recognise

    return recognise(root.type, root.message) is not None


def prose_may_name_import(head: list[str]) -> bool:
    """Whether a report's first lines hold one of PROSE_WORDS (cheap string checks)."""
    return any(word in line.lower() for line in head for word in PROSE_WORDS)


# words of a report's prose about a name that went or is missing (kb/diagnose/drift.py, prose_readings), argparse's
# refusal of a value, torch.load's weights_only: the drift module is imported for a report with no error line only then
PROSE_WORDS = ("import", " be found in ", "not found in ", "missing", "removed", "deleted", "dropped", "no longer",
               "does not exist", ": invalid choice: ", "weights_only", "unpicklingerror", "deprecated", "module named ")


def _numbered(entry: Case | Family, knowledge: Knowledge) -> bool:
    """Whether an answer's entry, or its family, has ``[fix] numbers`` lines (the lines numbers.lines_for reads)."""
    if entry.numbers:
        return True
    family = knowledge.family(entry.family) if entry.kind == "case" else None
    return family is not None and bool(family.numbers)


def within_match_budget(errors: list[ParsedError], root: ParsedError | None) -> list[ParsedError]:
    """The errors to score, in input order, the root error always among them: as many as fit while their
    messages (the part signatures search) hold at most MATCH_BUDGET_CHARS in all. Every signature's regex
    can run on every message, so this bounds the scoring time whatever the input (issue 15: 1,000
    distinct lines each holding every signature's literal took 5.5 s, most of it scoring)."""
    kept: list[ParsedError] = []
    total = 0
    for error in errors:
        size = min(len(error.message), MATCH_CHARS)
        if total + size > MATCH_BUDGET_CHARS and error is not root:
            continue
        total += size
        kept.append(error)
    return kept


def diagnose_reader(reader: LogReader, knowledge: Knowledge, machine: MachineEvidence | None = None) -> Diagnosis:
    """Diagnose a stream; raises UnusableInput for empty, binary or unreadable input."""
    diagnosis = diagnose_chunks(reader.chunks(), knowledge, machine)
    stats = reader.stats
    if stats.bytes_read == 0 or stats.blank:
        what = "empty" if stats.bytes_read == 0 else "empty (only whitespace)"
        raise UnusableInput(f"{reader.name} is {what}: paste the error output (the traceback and the lines around it)")
    if not diagnosis.answers and diagnosis.errors_seen == 0 and stats.undecodable_lines * 2 > stats.lines:
        raise UnusableInput(
            f"{reader.name} is not UTF-8 text ({stats.undecodable_lines} of {stats.lines} lines could not be decoded)"
        )
    if diagnosis.errors_seen == 0 and stats.lines and stats.truncated_lines == stats.lines:
        if stats.lines == 1:
            raise UnusableInput(
                f"{reader.name} is {stats.bytes_read / 1e6:.1f} MB without line breaks and holds no error text "
                f"in its first {MAX_LINE_KIB} KiB: not a log or traceback"
            )
        raise UnusableInput(
            f"{reader.name} is {stats.bytes_read / 1e6:.1f} MB in {stats.lines} lines, each longer than "
            f"{MAX_LINE_KIB} KiB, with no error text in the first {MAX_LINE_KIB} KiB of any: not a log or traceback"
        )
    if stats.truncated_lines:
        diagnosis.notes.append(f"{stats.truncated_lines} over-long line(s) were read only in part")
    if stats.undecodable_lines:
        diagnosis.notes.append(f"{stats.undecodable_lines} line(s) were not UTF-8 and were read with replacements")
    if diagnosis.errors_seen > MAX_ERRORS_KEPT:
        diagnosis.notes.append(f"{diagnosis.errors_seen} errors found; the first {MAX_ERRORS_KEPT} were scored")
    return diagnosis

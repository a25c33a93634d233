"""The one schema of the knowledge files: every table, every key, its kind, default and meaning.

``case.md`` front matter, family files and ``exception-types.toml`` are validated against these
tables when they load (an unknown key fails, naming the file and the key), the loader's output is
the normalised dict this module returns (every key present, defaults filled, one-or-many values
turned into lists, inherited keys copied down), and docs/authoring.md's field tables are generated
from here (``python -m kb.knowledge.schema``; a test keeps the two equal).

Checks that need more than a kind (a regex compiles, a version range parses, a capture named in
``compare`` exists) are in kb/knowledge/load.py, run on the normalised dict.
"""

from __future__ import annotations

import sys

from kb.knowledge.compare import COMPARE_OPS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from typing import Any

STR, TEXT, INT, NUMBER, BOOL = "string", "text", "integer", "number", "boolean"
STRINGS = "list of strings"  # a single string is accepted and becomes a one-item list
REGEX, REGEXES = "regex", "list of regexes"
MAP, REGEX_MAP = "table of strings", "table of regexes"
COMPARE = "list of [left, op, right]"
TABLE, TABLES = "table", "list of tables"

MISSING = object()


class Field:
    """One key of a table: its kind, whether it is required, its default, what it means."""

    __slots__ = ("name", "kind", "doc", "required", "default", "table", "inherit", "choices")

    def __init__(
        self,
        name: str,
        kind: str,
        doc: str,
        *,
        required: bool = False,
        default: Any = MISSING,
        table: str = "",
        inherit: bool = False,
        choices: tuple[str, ...] = (),
    ) -> None:
        self.name, self.kind, self.doc, self.required = name, kind, doc, required
        self.table, self.inherit, self.choices = table, inherit, choices
        if default is MISSING and not required:
            default = {STR: "", TEXT: "", BOOL: False, STRINGS: [], REGEXES: [], MAP: {}, REGEX_MAP: {},
                       COMPARE: [], TABLES: [], TABLE: {}}.get(kind)
        self.default = default

    def kind_text(self) -> str:
        if self.kind in (TABLE, TABLES):
            return f"{self.kind} ({self.table})"
        if self.choices:
            return f"{self.kind}: {' / '.join(self.choices)}"
        return self.kind


STATUSES = ("active", "retired", "unreproduced", "fixed-upstream")
RISK_STATUSES = ("risk", "ok", "skipped")
COMPARE_OPERATORS = tuple(COMPARE_OPS)  # the operators kb/diagnose/match.py applies (kb/knowledge/compare.py)

SIGNATURE = (
    Field("name", STR, "unique within the file; expectations name it", required=True),
    Field("exception", STRINGS, "exception types, matched on the last dotted component (`OutOfMemoryError` "
          "matches `torch.OutOfMemoryError`); also `NCCLWarning`, `CUDAAssertion`, `NCCLWatchdogTimeout` "
          "(see docs/diagnose.md); empty: any type"),
    Field("message", REGEX, "searched in the exception message; named groups are captures that fill the fix",
          required=True),
    Field("frames", REGEXES, "regexes on traceback frames (file, function or code line): discriminating evidence"),
    Field("hints", REGEXES, "regexes on the 12 lines before the error, the 6 after it, its later message lines "
          "and frames' code: discriminating evidence"),
    Field("excludes", REGEXES, "a frame or nearby line matching one rules the signature out (a cause the case "
          "lists under \"When this does not apply\")"),
    Field("requires_frame", BOOL, "the message alone is too generic: a frame or hint must match too"),
    Field("model_type_capture", STR, "a capture that, when the API history (kb/apidrift) knows it as a transformers "
          "model type, stands in for a required frame or hint (a bare `KeyError: 'qwen2'` pasted without its traceback)"),
    Field("model_type_known", BOOL, "with `model_type_capture`: the capture must be a model type the API history knows "
          "even where a frame or hint matched (a type no release knows is custom code or a typo, not an old install)"),
    Field("class_capture", STR, "a capture naming a class that must be one the API history (kb/apidrift) knows a "
          "covered release of a tracked library to define or export; a class no release defines (a model's remote code, "
          "the user's own) is not the stack's, and the signature does not match"),
    Field("class_base", STR, "with `class_capture`: `library:class.path` of a tracked base class (transformers' "
          "PreTrainedModel); a class no release defines still matches when the member `member_capture` names is one a "
          "release added to or removed from that base (a remote-code model on an older transformers lacking `add_adapter`)"),
    Field("member_capture", STR, "with `class_base`: the capture naming the missing member"),
    Field("param_capture", STR, "a capture that, when the API history (kb/apidrift) saw it as a keyword some tracked "
          "callable accepted in some releases and not in others, stands in for a required frame or hint"),
    Field("requires_type", BOOL, "the message is generic (`401 Client Error`): only the listed exception types count"),
    Field("compare", COMPARE, f"comparisons between captures that must hold, e.g. `[[\"unallocated\", \">=\", "
          f"\"requested\"]]`; sizes compare by bytes; an operand may be a literal size (`\"11 GiB\"`) or "
          f"`a-b`; operators {', '.join(COMPARE_OPERATORS)}"),
    Field("environment", REGEX_MAP, "regexes on facts read from the log (`gpu`, `gpu_memory_gib`, `world_size`, "
          "`visible_gpus`, `per_device_batch`, `ranks_seen`, and the run's `model`, `model_size_b`, `quant` "
          "(`4bit`/`8bit`), `quant_type`, `batch`, `seq`, `vocab`): each fact that matches adds evidence; `gpu` and "
          "`gpu_memory_gib` never discriminate a case on their own, any other fact also stands in for a "
          "required frame or hint"),
    Field("specific", BOOL, "cases only: the message (with its captures and `compare`) alone tells this case "
          "apart from the rest of its family, so a match ranks the case above the family without a frame or hint"),
    Field("unexercised", TEXT, "why no recorded output, example or dev-set output exercises this signature yet "
          "(`kb check` accepts it, and fails once something does: remove it then)"),
)

NUMBER_LINE = (
    Field("name", STR, "names the line; a case's line replaces its family's of the same name", required=True),
    Field("text", TEXT, "the line; `{expression}` or `{expression:unit}` holes (units: GiB, MiB, int, pct) compute "
          "with `+ - * /` over captures, facts read from the log (`batch`, `seq`, `vocab`, `model_size_b`, "
          "`gpu_memory_gib`, ...) and the constants KiB, MiB, GiB; a size is its bytes (docs/diagnose.md)",
          required=True),
    Field("when", STRINGS, "conditions that must all hold, `expression OP expression` (OP one of < <= > >= == !=); "
          "a line whose names are not all known is left out anyway"),
)
FIX = (Field("template", TEXT, "the fix; `{capture|text}` is filled with the user's value or falls back to text (every "
             "captured placeholder needs a fallback; placeholders side by side are alternatives); "
             "`{kw:LIB.CALLABLE.KEYWORD|OLD}` is the keyword as the user's release of LIB spells it (KEYWORD where "
             "the API history says the callable accepts it, else OLD; docs/diagnose.md); its code lines run as pasted "
             "(a case without signatures, e.g. `unreproduced`, may leave it out)"),
       Field("numbers", TABLES, "lines `kb diagnose` computes from the evidence (the user's sizes, batch, "
             "sequence length): a case's come first, then its family's", table="number_line"))
CASE_FIX = FIX + (
    Field("snippet", TEXT, "the few lines of the fixed program that are the fix, as a user pastes them: they compile, "
          "import or define every name but the user objects of kb/tidy/snippets.py, and use only library calls the "
          "case's fixed programs make (`kb check` checks both); the case page and `kb show` print it first"),
)
SOURCE = (Field("title", STR, "what it is", required=True), Field("url", STR, "where (an https URL or a path "
          "in the repository)", required=True))
AFFECTED = (
    Field("package", STR, "a distribution name (`transformers`), `python` or `nccl`", required=True),
    Field("spec", STR, "a PEP 440 range in the subset kb/knowledge/versions.py reads: `>=4.51,<4.57`", required=True),
    Field("note", STR, "why this range"),
)
VERSIONS = (
    Field("observed", TEXT, "where and on which versions the failure was recorded"),
    Field("fixed_upstream", TEXT, "whether and since which version the newest release no longer fails"),
    Field("notes", TEXT, "anything else about versions"),
    Field("affected", TABLES, "installed-version ranges with this failure; `kb env` checks them", table="affected"),
)
MEASURE = (
    Field("name", STR, "the NAME of a `kb-measure NAME=VALUE` line the program prints", required=True),
    Field("min", NUMBER, "lower bound", default=None),
    Field("max", NUMBER, "upper bound", default=None),
)
RAISED_IN = (
    Field("file", REGEX, "regex on the innermost frame's file", default=None),
    Field("function", REGEX, "regex on its function", default=None),
    Field("code", REGEX, "regex on its code line", default=None),
)
EXPECTATION = (
    Field("signature", STR, "the case signature the failing run's exception must match", default=None),
    Field("raised_in", TABLE, "where the library raised it (the innermost frame)", table="raised_in"),
    Field("measures", TABLES, "bounds on measured numbers (silent failures, a fix's effect)", table="measure"),
    Field("warnings", REGEXES, "regexes that must appear in the output"),
)
REPRODUCTION = (
    Field("name", STR, "unique within the case; names the evidence files", required=True),
    Field("description", TEXT, "what this program does"),
    Field("hardware", STRINGS, "hardware profiles (kb/reproduce/profiles.py)", inherit=True),
    Field("failing", STR, "the failing program's file in the case folder", required=True),
    Field("fixed", STR, "the fixed program's file", required=True),
    Field("failing_expect", TABLE, "what the failing run must show", table="expectation"),
    Field("fixed_expect", TABLE, "what the fixed run must show (it must exit 0 in any case)", table="expectation"),
    Field("launcher", STR, "how the programs start", inherit=True, choices=("python", "torchrun")),
    Field("nproc", INT, "processes (torchrun)", default=1),
    Field("timeout", INT, "seconds", default=300),
    Field("requires", STRINGS, "import names the programs need (else the item skips, naming them)"),
    Field("requires_versions", MAP, "distribution -> PEP 440 range the programs need (`{ transformers = \">=5.23\" }`): "
          "outside it the item skips, giving the reason; `kb check` holds it against the evidence"),
    Field("env", MAP, "extra environment variables"),
    Field("fixed_nproc", INT, "the fixed program's process count, when the fix is the launch", default=None),
    Field("fixed_env", MAP, "the fixed program's extra environment"),
    Field("pins", STRINGS, "exact `name==version` list: run on those versions (docs/pinned.md)", inherit=True),
    Field("fixed_pins", STRINGS, "the fixed program's own `name==version` list, when the fix is other versions (an "
          "upgrade): the fixed program runs on these instead of `pins` (`[]`: on the machine's versions); absent: "
          "both programs run on `pins`", default=None),
    Field("fresh_python", BOOL, "the programs set what libraries read at import (environment variables, a local "
          "Hub) before importing them: the test suite never runs them as forks of a preloaded Python "
          "(kb/reproduce/forkserver.py)", inherit=True),
)
RISK_BRANCH = (
    Field("when", STRINGS, "conditions on `kb env` facts, all of which must hold: `fact`, `not fact`, `fact is "
          "unknown`, `fact OP value` or `fact OP fact` (OP one of > >= < <= == !=); empty: always"),
    Field("status", STR, "what the check reports when this branch is the first that holds", required=True,
          choices=RISK_STATUSES),
    Field("message", TEXT, "the check's message; `{fact}` is filled with the fact's value", required=True),
)
RISK = (
    Field("check", STR, "the check's name in `kb env`'s report", required=True),
    Field("branches", TABLES, "tried in order; the first whose `when` holds decides", required=True,
          table="risk_branch"),
)
TRIAGE = (
    Field("cause", STR, "one cause of this kind of failure", required=True),
    Field("tell", TEXT, "the question or the evidence in the log that tells this cause apart", required=True),
    Field("fix", TEXT, "what to change for this cause"),
    Field("case", STR, "the slug of the case that covers this cause, when there is one"),
    Field("signatures", STRINGS, "the family's signatures whose wording points to this cause: when one of them "
          "matched, `kb diagnose` lists this cause first"),
)
CASE = (
    Field("id", STR, "`KB####`, never reused", required=True),
    Field("slug", STR, "names the failing pattern, not the fix (kebab-case)", required=True),
    Field("title", STR, "the error headline as users see it", required=True),
    Field("family", STR, "the failure family (a file in families/)", required=True),
    Field("summary", TEXT, "one sentence", required=True),
    Field("status", STR, "`retired` cases are kept, never deleted", default="active", choices=STATUSES),
    Field("libraries", STRINGS, "the libraries involved"),
    Field("setting", TEXT, "the incident's setting (hardware, model, date)"),
    Field("hardware", STRINGS, "hardware profiles; default: those of the reproductions"),
    Field("launcher", STR, "inherited by reproductions that do not set it", default="python",
          choices=("python", "torchrun")),
    Field("pins", STRINGS, "inherited by reproductions that do not set it"),
    Field("fresh_python", BOOL, "inherited by reproductions that do not set it"),
    Field("versions", TABLE, "versions the failure was observed on, and affected ranges", table="versions"),
    Field("sources", TABLES, "the incident, upstream issues and PRs", table="source"),
    Field("signatures", TABLES, "how `kb diagnose` recognises the error", table="signature"),
    Field("fix", TABLE, "the fix `kb diagnose` prints (required with signatures) and the fix snippet",
          table="case_fix"),
    Field("reproductions", TABLES, "failing programs and their fixed twins", table="reproduction"),
    Field("risks", TABLES, "pre-flight checks `kb env` runs for this case", table="risk"),
)
FAMILY = (
    Field("name", STR, "the family's stable name, the file's name without `.md` (never renamed)", required=True),
    Field("title", STR, "the kind of failure as users would search it", required=True),
    Field("summary", TEXT, "what this kind of error means, in one or two sentences (`kb diagnose` prints it)",
          required=True),
    Field("libraries", STRINGS, "libraries whose code raises it"),
    Field("api_history", BOOL, "answers of this family get the API history's facts: which releases accept the "
          "name, when it went and where (the API-drift stage of `kb diagnose`)"),
    Field("signatures", TABLES, "broad: every wording of this kind of error across versions", table="signature"),
    Field("fix", TABLE, "the generic fix, filled with the user's numbers", required=True, table="fix"),
    Field("triage", TABLES, "the causes, most frequent first", required=True, table="triage"),
    Field("sources", TABLES, "where the wordings and causes come from", table="source"),
)
EXCEPTION_TYPE = (
    Field("name", STR, "an exception type's short name (`KeyError`)", required=True),
    Field("meaning", TEXT, "what it usually means, for errors no case or family explains", required=True),
)
EXCEPTION_TYPES = (Field("types", TABLES, "one entry per exception type", required=True, table="exception_type"),)

# tables/*.toml (kb/knowledge/tables.py): knowledge that is a table rather than a case or a family.
LIBRARY_ROLES = ("stack", "api_history", "log_versions", "env_report", "recorded")
LIBRARY = (
    Field("name", STR, "the distribution's name on the package index", required=True),
    Field("roles", STRINGS, f"what kb does with it: {', '.join(LIBRARY_ROLES)} (tables/libraries.toml says each)",
          required=True),
    Field("history_since", STR, "with `api_history`: the first minor release the API history reads"),
)
LIBRARIES = (Field("library", TABLES, "one entry per library, in the order kb lists them", required=True,
                   table="library"),)
NOISE_RULE = (
    Field("type", STR, "the exception type's last dotted component equals this"),
    Field("suffix", STR, "the exception type ends with this"),
    Field("kind", STR, "the parser's kind of error", choices=("python", "nccl", "cuda-assert", "watchdog")),
    Field("message", STRINGS, "every one of these occurs in the message's first line"),
    Field("reason", TEXT, "why such an error is a consequence, not the cause (printed beside it)", required=True),
)
NOISE = (Field("rule", TABLES, "the rules, applied in order", required=True, table="noise_rule"),)
GPU_CARD = (
    Field("id", STR, "a short name other knowledge refers to (`t4`)"),
    Field("min_gib", NUMBER, "the smallest total capacity torch reports for it, GiB", required=True),
    Field("max_gib", NUMBER, "the largest, GiB", required=True),
    Field("name", STR, "how kb names the card", required=True),
    Field("usable_gib", NUMBER, "what torch reports as total_memory on it (hardware profiles cap memory at it)"),
    Field("max_compute_capability", NUMBER, "the highest compute capability of the cards it means (below 8.0: no bf16)"),
    Field("nvidia_smi_gib", NUMBER, "the total nvidia-smi reports, where outside min_gib..max_gib (kb plan --gpu-gib)"),
)
GPUS = (Field("card", TABLES, "one entry per card, smallest first", required=True, table="gpu_card"),)

# tables/secrets.toml: what kb redacts (kb/diagnose/redact/). Token shapes follow the rules secret
# scanners maintain (gitleaks, detect-secrets); the names drive the key-name rule.
SECRET_RULE = (
    Field("id", STR, "unique name of the rule", required=True),
    Field("source", STR, "the maintained rule it follows (`gitleaks v8.24.2 rule slack-bot-token`) or the "
          "documented token format", required=True),
    Field("keywords", STRINGS, "lower-case strings, one of which occurs in any text the rule matches: the rule "
          "is compiled and run only then (empty: always)", required=True),
    Field("regex", REGEX, "the token's shape; named groups are what is replaced (none: the whole match); starts "
          "at a fixed string or the start of a run (linear time)", required=True),
    Field("min_word", INT, "the rule runs only on text with a word (between spaces) this long or longer", default=0),
    Field("min_entropy", NUMBER, "a match counts only when it looks random: this many bits a character and the "
          "character class changing often (0: any match)", default=0),
    Field("mask", STR, "what replaces the secret", default="***"),
    Field("wraps", BOOL, "also looked for across a line wrap (a token cut by the terminal's width)"),
    Field("not_after", REGEX, "a match is not a secret when this (case-insensitive) holds in the 48 characters "
          "before it on its line: words that say what the value is (`commit`, `sha` before 40 hex digits)",
          default=""),
    Field("wrap_rest", REGEX, "the rest of a token that a wrap cut, when the next line's first word reads as a "
          "setting (`NAME=value`) but matches this whole: a Bitbucket token's `<few>=<8 hex>` (empty: none)",
          default=""),
)
SECRET_NAMES = (
    Field("strong", STRINGS, "last words of a name whose value is a secret whatever it looks like", required=True),
    Field("weak", STRINGS, "last words of a name whose value is a secret when it looks random", required=True),
    Field("numeric", STRINGS, "names whose numeric value is still a secret (other numbers are never masked)"),
    Field("upper_strong", STRINGS, "weak words that are strong as a whole UPPER-CASE name (KEY=, TOKEN=)"),
    Field("min_length", INT, "the shortest random-looking value", required=True),
    Field("min_entropy", NUMBER, "bits a character a random-looking value needs", required=True),
    Field("placeholders", STRINGS, "values that are never secrets (lower case)"),
    Field("placeholder_prefixes", STRINGS, "prefixes of templates, placeholders and paths, never secrets"),
)
SECRETS = (
    Field("source", STR, "the rule sets followed, with their versions", required=True),
    Field("names", TABLE, "the key-name rule's names", required=True, table="secret_names"),
    Field("rule", TABLES, "the token shapes", required=True, table="secret_rule"),
)
# tables/priors.toml (kb/diagnose/priors.py): family answers for errors no signature matched, from where the error
# was raised, its exception class, what the process died of, or the words of a title-only or prose report.
PRIOR_CONFIDENCES = ("low", "medium")
PRIOR_FRAME = (
    Field("file", REGEX, "regex on a traceback frame's file (path separators as `/`)", required=True),
    Field("function", REGEX, "regex on the frame's function; empty: any (a rule that names one also holds for a "
          "wrapper's frame: the Trainer's checkpoint code)"),
    Field("types", STRINGS, "exception classes the rule holds for, short or dotted (last component compared); empty: any"),
    Field("code", REGEX, "regex on the frame's source line as the traceback prints it (the statement that ran: an "
          "assert, an import); empty: any. A traceback cut before its exception line still shows it"),
    Field("family", STR, "the family this frame points to", required=True),
    Field("yields", BOOL, "a layer other frameworks call into (torch.distributed's collectives): a frame further "
          "out that another rule holds for decides first"),
    Field("cut", BOOL, "(mix43) where a traceback cut before its exception line stops: the rule holds only for such a "
          "traceback (a forum excerpt, a truncated paste: neither the exception's class nor its message shown) and only "
          "on its last frame shown; it names no classes (the class is not shown)"),
    Field("cut_key", STR, "the API history's kind of the key an error of the rule's classes raised here looks up "
          "(`model_type`: transformers' config registry): a traceback cut before its error line is read as the one "
          "such key the report's first lines quote, when the history dates it (kb/diagnose/drift.py)",
          choices=("", "model_type")),
    Field("lookup", TEXT, "with `cut_key`: what looks the key up, in the answer's words (transformers' config "
          "registry)"),
    Field("why", TEXT, "what raising there means (the evidence line says it)", required=True),
)
PRIOR_WRAPPER = (
    Field("file", REGEX, "regex on a frame's file: a frame that only wraps the real work (Trainer, a launcher, "
          "torchrun's agent) and decides only through a frame rule that names its function", required=True),
    Field("function", REGEX, "(mix45) regex on the frame's function; empty: any. Where only that function of the file "
          "wraps the work (FSDP's forward runs the wrapped model; FSDP's other code in the file is its own)"),
    Field("why", TEXT, "what it wraps", required=True),
)
PRIOR_ERROR = (
    Field("types", STRINGS, "exception classes, short or dotted (matched on the last dotted component); empty: any"),
    Field("message", REGEX, "regex on the error's message (case-sensitive); empty: any message"),
    Field("excludes", REGEXES, "regexes on the message and the lines after it: one that matches rules the prior out"),
    Field("near", REGEX, "regex that the message, the lines after or before it, or a file of its stack must match: the "
          "kind of run the error came from (a DeepSpeed ZeRO-3 frame); empty: no condition"),
    Field("innermost", REGEX, "regex that the file of the stack's innermost frame (where it was raised) must match: "
          "what ran there (a config file run as a script); empty: no condition"),
    Field("family", STR, "the family the class or message points to", required=True),
    Field("confidence", STR, "how sure the answer is", default="low", choices=PRIOR_CONFIDENCES),
    Field("why", TEXT, "what the class or message means", required=True),
)
PRIOR_RERAISE = (
    Field("message", REGEX, "regex on the message of an error that re-raises another one caught in a worker (torch's "
          "DataLoader workers, DataParallel's replicas): group 1 captures the class of the original error, whose "
          "traceback follows", default=""),
    Field("why", TEXT, "what the wrapper is"),
)
PRIOR_TEMPLATE = (
    Field("lines", REGEX, "case-insensitive regex on one line: a line of an issue template (a section header such "
          "as `### Describe the bug`, a checklist item `- [x] I have searched ...`); the keyword rules read the first "
          "lines that are not these, so that a prose report pasted with its template is read by its prose",
          default=""),
    Field("openers", STR, "the characters a template's line opens with, after its spaces (`#*-`): only a line that "
          "opens with one of them is asked (a pre-filter: the regex is not built for most inputs); empty: every line",
          default=""),
    Field("why", TEXT, "what the lines are"),
)
PRIOR_PROCESS = (
    Field("literals", STRINGS, "plain substrings, one of which every matching line holds (a fast pre-filter)",
          required=True),
    Field("line", REGEX, "regex on one line of the input (its first 500 characters)", required=True),
    Field("excludes", REGEXES, "regexes on the same line that rule it out"),
    Field("excludes_before", REGEXES, "regexes on the 3 lines just before it (a record the line belongs to: "
          "kubectl's `Reason:` above a container's `Exit Code:`): one that matches rules the line out"),
    Field("needs_context", BOOL, "the line is every program's (an orchestrator's or the kernel's report of an OOM "
          "kill): it holds only where the report's other first lines name the fine-tuning stack or a run (the `[stack]` "
          "or `[run]` table's `words`), or the line itself names the stack (its own run words are the orchestrator's: "
          "a job step)"),
    Field("needs_stack", BOOL, "with `needs_context`: only the `[stack]` table's words count in the other first lines, "
          "not a run's (the notebook launcher's own banner speaks of launching a kernel, not of a training run)"),
    Field("after_types", REGEX, "for a line that runs which go on print too (a library's warning before it retries): "
          "where a typed error (not a warning, not follow-on noise) comes after the line, the line holds only when the "
          "last such error's class (its last dotted component) matches this regex; empty: no condition", default=""),
    Field("went_on", REGEX, "(root49) with `after_types`: regex on a line just after the warning (the 6 lines kept "
          "after an error it quotes) that shows the run went on past it (training progress, a death no rule names); "
          "with such a line, or another family's process evidence on a later line, the error the warning quotes is "
          "follow-on noise (not the root, not matched) and the rule does not hold; empty: no condition", default=""),
    Field("family", STR, "the family this process evidence points to", required=True),
    Field("confidence", STR, "how sure the answer is", default="low", choices=PRIOR_CONFIDENCES),
    Field("why", TEXT, "what the line means", required=True),
)
PRIOR_PROGRAM = (
    Field("families", STRINGS, "the families whose signatures give up an error in an image-generation program's run "
          "(an input holding a `program_line`): the errors of a model's own computation (dtype, device, shape, NaN, "
          "memory), not the stack's imports and installs"),
    Field("stack", REGEX, "regex on a frame's file (`/` as separator, an installed package's path from its "
          "site-packages/ folder on): an error with such a frame was raised in the stack's code and stays answered"),
    Field("why", TEXT, "what the table is for"),
)
PRIOR_PROGRAM_LINE = (
    Field("literals", STRINGS, "plain substrings, one of which every matching line holds (a fast pre-filter)",
          required=True),
    Field("line", REGEX, "regex on one line of the input (its first 500 characters, stripped)", required=True),
    Field("excludes", REGEXES, "regexes on the same line that rule it out"),
    Field("excludes_before", REGEXES, "regexes on the 3 lines just before it: one that matches rules the line out"),
    Field("program", STR, "the program whose own log or code the line is", required=True),
    Field("whole_run", BOOL, "(wrong49) the program trains or runs another kind of model end to end (kohya's "
          "sd-scripts and the GUIs and scripts built on them, FramePack): its whole run is out of kb's scope, the "
          "stack's imports, installs and API in it included, so no family answers an input holding the line"),
    Field("source", STR, "a public report whose output holds such a line"),
)
PRIOR_KEYWORD = (
    Field("family", STR, "the family a title-only or prose report with these words belongs to", required=True),
    Field("all", REGEXES, "case-insensitive regexes on the report's first lines, every one of which must match",
          required=True),
    Field("needs_stack", BOOL, "the words are every deep-learning project's (a hang, an OOM): the report's first "
          "lines must also name the fine-tuning stack (the `[stack]` table's `words`)"),
    Field("needs_failure", BOOL, "the words name a part, not a failure (a checkpoint, NCCL): the report's first "
          "lines must also say that something failed (the `[failure]` table's `words`)"),
    Field("needs_run", BOOL, "the words say how something went wrong (it hangs), not that a training run did: the "
          "report's first lines must also name a run (the `[run]` table's `words`: training, an epoch, a launcher)"),
    Field("excludes", REGEXES, "case-insensitive regexes: one that matches rules the keywords out (the family's own "
          "semantics: a build's OOM, an install's hang; other software's words are the `[other]` table's)"),
    Field("why", TEXT, "why these words point to the family", required=True),
)
PRIOR_WORDS = (
    Field("words", REGEX, "case-insensitive regex: the one definition of these words that every keyword rule "
          "needing them reads", default=""),
    Field("why", TEXT, "what the words are"),
)
PRIOR_CODE = (
    Field("paths", REGEX, "regex on a frame's file (`/` as separator; an installed package's path from its "
          "site-packages/ folder on): code of other software; an error whose deciding frame is here is no case's or "
          "family's", default=""),
    Field("shared", REGEX, "regex on a frame's file, as `paths`: code the stack and other programs both run on "
          "(torch, Python's standard library), passed over with the wrappers when looking for the deciding frame",
          default=""),
    Field("record", REGEX, "regex on one line: a log record that names the source file which printed it (TensorFlow's "
          "and glog's `W tensorflow/.../dso_loader.cc:59]`), the file in group `source`; a record printed by code of "
          "`paths` is other software's output, and a signature that matched in it does not answer", default=""),
    Field("message", REGEX, "regex on one line: a message in a form only other software's code prints (CTranslate2's "
          "`CUDA failed with error ...`); the line is that program's output, as a `record` of `paths` is, and a "
          "signature or an [[error]] prior that matched in it does not answer", default=""),
    Field("logger", REGEX, "regex on one line: a log record of another program's logger (vLLM's `ERROR 07-09 "
          "11:28:31 [dump_input.py:69]`, TGI's launcher, ollama's server); keyword rules do not read its words (a "
          "serving engine's record of its own configuration is not a report of what failed), signatures still do",
          default=""),
    Field("named_record", REGEX, "regex on one line: a log record of Python's logging that names its logger (`2025-07-26 "
          "13:19:25,777 - ControlNet - INFO - ...`), the name in group `name`; a report whose first lines are records "
          "of a logger that [other] names (ControlNet's, mmcv's runner's `mmaction`) is that program's log, as a banner "
          "is: a signature's match on an error without frames in it does not answer", default=""),
    Field("asynchronous", STRINGS, "error classes the parser gives to lines a GPU kernel prints without frames "
          "(`CUDAAssertion`): such an error belongs to the Python traceback printed nearest it (before or after it, "
          "within `asynchronous_lines` lines), whose raising frame decides whose code it is, as for any error"),
    Field("asynchronous_lines", INT, "how many lines away from an `asynchronous` error the traceback printed for the "
          "same failure may stand", default=0),
    Field("why", TEXT, "what the paths are"),
)
PRIORS = (
    Field("stack", TABLE, "words that name the fine-tuning stack (a library, a method, a launcher, a model or its "
          "size): `needs_stack` keyword rules read them", table="prior_words"),
    Field("failure", TABLE, "words that say something failed (an error, a crash, does not work): `needs_failure` "
          "keyword rules read them", table="prior_words"),
    Field("run", TABLE, "words that name a training run of the stack or a step of one (training, fine-tuning, an "
          "epoch, DeepSpeed, a launcher, tokenizing the data): `needs_run` keyword rules read them", table="prior_words"),
    Field("other", TABLE, "words that name other software (another kind of model, another program), kept here "
          "alone: a report whose first lines hold them gets no keyword or learned answer unless a typed error raised in "
          "a stack lets its frames decide, and a signature that matched only a title (one untyped line) does not "
          "answer one that holds them", table="prior_words"),
    Field("other_code", TABLE, "code paths of other software, kept here alone: when the frame that raised (the "
          "innermost one that is neither a wrapper's nor `shared` code's) is one of them, no signature and no prior "
          "claims the error; `excludes` never repeat them", table="prior_code"),
    Field("frame", TABLES, "frames of the stack, tried from the innermost frame outwards (to the user's code)",
          table="prior_frame"),
    Field("wrapper", TABLES, "frames passed over when looking for the deciding frame", table="prior_wrapper"),
    Field("reraise", TABLE, "errors that re-raise one caught in a worker: the original traceback that follows, when "
          "cut before its exception line, is read as an error of the class the wrapper names", table="prior_reraise"),
    Field("error", TABLES, "exception classes and message words of the stack, in order", table="prior_error"),
    Field("process", TABLES, "lines that say how the process died, in order", table="prior_process"),
    Field("keyword", TABLES, "words of title-only and prose reports, in order", table="prior_keyword"),
    Field("template", TABLE, "lines of an issue template (section headers, checklist items): the keyword rules "
          "read past them", table="prior_template"),
    Field("routine", TABLE, "lines a library of the stack logs on every run whatever happens (bitsandbytes' report of "
          "the CUDA runtime and binary it found): the keyword rules do not read them as the report's words",
          table="prior_words"),
    Field("program", TABLE, "what an image-generation program's run gives up (the families of a model's own "
          "computation) and what keeps an error the stack's (its frames in the stack's code)", table="prior_program"),
    Field("program_line", TABLES, "lines only an image-generation program prints (its log's own structure, its "
          "modules' paths), read in the same pass as `process`: an input holding one is that program's run",
          table="prior_program_line"),
)

# A labelled example of real error output: the dev set (tests/fixtures/diagnose/manifest.toml) and
# examples/manifest.toml. What kb diagnose should answer for it, and where it comes from.
EXAMPLE = (
    Field("file", STR, "the text file, relative to the manifest", required=True),
    Field("source", STR, "where the text was posted (a public report's address)", required=True),
    Field("expect", STR, "the case slug kb diagnose should rank first, or `none`", required=True),
    Field("family", STR, "the family it belongs to, or `none` (an unrelated error)"),
    Field("forms", STRINGS, "the noise forms it shows (last-line, prose, quotes, ...)"),
    Field("note", TEXT, "what it is"),
    Field("set", STR, "the batch it was gathered in (first-scored before any tuning on it)"),
    Field("kind", STR, "positive, near-miss (close to a case but not it) or unrelated",
          choices=("positive", "near-miss", "unrelated")),
    Field("error_text", BOOL, "false: the text holds no error line to parse (prose only, a title)", default=True),
)
EXAMPLES = (Field("entry", TABLES, "one entry per example", required=True, table="example"),)

TABLES_BY_NAME: dict[str, tuple[Field, ...]] = {
    "case": CASE, "family": FAMILY, "signature": SIGNATURE, "fix": FIX, "case_fix": CASE_FIX, "number_line": NUMBER_LINE, "source": SOURCE, "versions": VERSIONS,
    "affected": AFFECTED, "reproduction": REPRODUCTION, "expectation": EXPECTATION, "raised_in": RAISED_IN,
    "measure": MEASURE, "risk": RISK, "risk_branch": RISK_BRANCH, "triage": TRIAGE,
    "exception_types": EXCEPTION_TYPES, "exception_type": EXCEPTION_TYPE,
    "libraries": LIBRARIES, "library": LIBRARY, "noise": NOISE, "noise_rule": NOISE_RULE, "gpus": GPUS,
    "gpu_card": GPU_CARD, "examples": EXAMPLES, "example": EXAMPLE,
    "secrets": SECRETS, "secret_rule": SECRET_RULE, "secret_names": SECRET_NAMES,
    "priors": PRIORS, "prior_frame": PRIOR_FRAME, "prior_wrapper": PRIOR_WRAPPER, "prior_error": PRIOR_ERROR, "prior_reraise": PRIOR_RERAISE, "prior_template": PRIOR_TEMPLATE,
    "prior_process": PRIOR_PROCESS, "prior_keyword": PRIOR_KEYWORD, "prior_words": PRIOR_WORDS, "prior_code": PRIOR_CODE,
    "prior_program": PRIOR_PROGRAM, "prior_program_line": PRIOR_PROGRAM_LINE,
}


class SchemaError(ValueError):
    """A knowledge file that does not fit the schema; the message names the file and the key."""


def _check_kind(field: Field, value: Any, where: str) -> Any:
    kind = field.kind
    if kind in (STR, TEXT, REGEX):
        if not isinstance(value, str):
            raise SchemaError(f"{where}: must be a string, got {type(value).__name__}")
        if field.choices and value not in field.choices:
            raise SchemaError(f"{where}: {value!r} is not one of {', '.join(field.choices)}")
        return value
    if kind == BOOL:
        if not isinstance(value, bool):
            raise SchemaError(f"{where}: must be true or false")
        return value
    if kind == INT:
        if isinstance(value, bool) or not isinstance(value, int):
            raise SchemaError(f"{where}: must be an integer")
        return value
    if kind == NUMBER:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SchemaError(f"{where}: must be a number")
        return value
    if kind in (STRINGS, REGEXES):
        if isinstance(value, str) and kind == STRINGS:
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise SchemaError(f"{where}: must be a list of strings")
        return list(value)
    if kind in (MAP, REGEX_MAP):
        if not isinstance(value, dict) or not all(isinstance(v, (str, int, float)) for v in value.values()):
            raise SchemaError(f"{where}: must be a table of strings")
        return {str(k): str(v) for k, v in value.items()}
    if kind == COMPARE:
        if not isinstance(value, list) or not all(isinstance(r, list) and len(r) == 3 for r in value):
            raise SchemaError(f"{where}: each entry is [left, op, right]")
        rules = [[str(x) for x in rule] for rule in value]
        for rule in rules:
            if rule[1] not in COMPARE_OPERATORS:
                raise SchemaError(f"{where}: unknown operator {rule[1]!r} (one of {', '.join(COMPARE_OPERATORS)})")
        return rules
    if kind == TABLE:
        if not isinstance(value, dict):
            raise SchemaError(f"{where}: must be a table")
        return validate(value, field.table, where)
    if kind == TABLES:
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise SchemaError(f"{where}: must be a list of tables ([[{field.name}]])")
        return [validate(item, field.table, f"{where}[{i}]") for i, item in enumerate(value)]
    raise AssertionError(f"unknown kind {kind}")  # a schema bug, not a file's


def validate(raw: dict[str, Any], table: str, where: str, parent: dict[str, Any] | None = None) -> dict[str, Any]:
    """``raw`` checked against ``table`` and normalised: every key present, defaults filled.

    ``parent`` is the enclosing table's raw dict, where fields marked ``inherit`` take their value
    when ``raw`` lacks them. Raises :class:`SchemaError` naming ``where`` and the key.
    """
    fields = TABLES_BY_NAME[table]
    known = {f.name for f in fields}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise SchemaError(f"{where}: unknown key {unknown[0]!r} (a {table} takes: {', '.join(sorted(known))})")
    out: dict[str, Any] = {}
    for field in fields:
        key = f"{where}.{field.name}"
        if field.name in raw:
            value = raw[field.name]
        elif field.inherit and parent is not None and field.name in parent:
            value = parent[field.name]
        elif field.required:
            raise SchemaError(f"{where}: lacks the required key {field.name!r} ({field.doc})")
        elif field.kind == TABLE:
            out[field.name] = validate({}, field.table, key)  # an absent table: its own defaults
            continue
        else:
            out[field.name] = _copy(field.default)
            continue
        out[field.name] = _check_kind(field, value, key)
    return out


def validate_with_children(raw: dict[str, Any], table: str, where: str) -> dict[str, Any]:
    """Like :func:`validate`, passing ``raw`` down as the parent of its reproductions (inheritance)."""
    if table == "case" and isinstance(raw.get("reproductions"), list):
        reps = raw["reproductions"]
        if all(isinstance(r, dict) for r in reps):
            raw = dict(raw)
            raw["reproductions"] = [
                {**{f.name: raw[f.name] for f in REPRODUCTION if f.inherit and f.name in raw and f.name not in r}, **r}
                for r in reps
            ]
    return validate(raw, table, where)


def _copy(value: Any) -> Any:
    return list(value) if isinstance(value, list) else dict(value) if isinstance(value, dict) else value


def markdown_tables() -> str:
    """docs/authoring.md's field reference: one table per schema table."""
    parts = []
    for name, fields in TABLES_BY_NAME.items():
        rows = ["| key | kind | required | meaning |", "| --- | --- | --- | --- |"]
        for f in fields:
            required = "yes" if f.required else "inherited" if f.inherit else "no"
            default = "" if f.required or f.default in (None, "", [], {}, False) else f" (default `{f.default}`)"
            rows.append(f"| `{f.name}` | {f.kind_text()} | {required} | {f.doc}{default} |")
        parts.append(f"### `{name}`\n\n" + "\n".join(rows))
    return "\n\n".join(parts) + "\n"


MARKER_BEGIN = "<!-- schema:begin (generated by python -m kb.knowledge.schema --write; do not edit) -->"
MARKER_END = "<!-- schema:end -->"


def replace_generated(doc: str) -> str:
    """``doc`` with the text between the schema markers replaced by :func:`markdown_tables`."""
    head, rest = doc.split(MARKER_BEGIN, 1)
    _, tail = rest.split(MARKER_END, 1)
    return f"{head}{MARKER_BEGIN}\n\n{markdown_tables()}\n{MARKER_END}{tail}"


def main(argv: list[str] | None = None) -> int:
    """``python -m kb.knowledge.schema`` prints the tables; ``--write`` updates docs/authoring.md."""
    import os

    from kb import REPO_ROOT

    args = sys.argv[1:] if argv is None else argv
    if args == ["--write"]:
        path = os.path.join(REPO_ROOT, "docs", "authoring.md")
        with open(path, encoding="utf-8") as handle:
            doc = handle.read()
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(replace_generated(doc))
        return 0
    sys.stdout.write(markdown_tables())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

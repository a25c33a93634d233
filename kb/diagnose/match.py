"""Score parsed errors against the signatures of every case and family, and explain each match.

A signature must match the exception message (its regex, with named groups as
captures). Everything else adjusts the score and is reported as evidence:

| signal | weight |
| --- | --- |
| message matches the signature's regex | 0.60 |
| exception type is one the case raises | 0.20 |
| a traceback frame matches a frame hint | 0.10 |
| a line near the error (12 before, 6 after, prose before it on its line) or a frame's code matches a hint | 0.05 |
| an environment fact (GPU, memory, ranks, model size, quantization) matches | 0.05 each |
| the error is follow-on noise (ChildFailedError, watchdog, ...) | -0.30 |
| the error is not the root error of the log | -0.10 |

A signature's ``excludes`` (regexes on frames and nearby lines) rule it out: the same message
from a cause the case says it does not cover. The score is clipped to [0, 1]. Confidence:
high >= 0.85, medium >= 0.6, else low.

Beside the score, a match counts its matched evidence (``strength``): every frame and hint pattern that
matched, every ``compare`` rule that held, every environment fact that matched, and a ``specific``
signature. Equal scores (and scores clipped at 1.0) are ordered by it, before the input's order and the
key: the case whose evidence matches more ranks first (kb/diagnose/answers.py orders the same way).
"""

from __future__ import annotations

from kb.diagnose.errors import Frame, ParsedError, chain_of
from kb.diagnose.redact import inside_secret, redact, redact_in
from kb.knowledge.precompiled import Deferred
from kb.knowledge.precompiled import pattern as _compile

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)

if TYPE_CHECKING:  # kb.knowledge.model is built by kb.knowledge.index for diagnose
    import re
    from collections.abc import Iterable
    from typing import Any

    from kb.knowledge.model import Case, Family, Signature

WEIGHT_MESSAGE = 0.6
WEIGHT_TYPE = 0.2
WEIGHT_FRAME = 0.1
WEIGHT_HINT = 0.05
WEIGHT_ENVIRONMENT = 0.05
PENALTY_NOISE = 0.3
PENALTY_NOT_ROOT = 0.1
HIGH, MEDIUM = 0.85, 0.6


# Facts about the card: a card's size or name alone never singles a case out of its family.
CARD_FACTS = ("gpu", "gpu_memory_gib")


class Match:
    """One case's or family's best-scoring signature hit on one parsed error.

    ``discriminators`` says what, beyond the message that any case of the family shares, points at
    this entry: a frame, a nearby line, an environment fact, a specific signature. A case match
    without any ranks below its family (kb/diagnose/answers.py).
    """

    __slots__ = ("entry", "signature", "error", "score", "captures", "evidence", "environment", "discriminators",
                 "strength")

    def __init__(
        self,
        entry: Case | Family,
        signature: Signature,
        error: ParsedError,
        score: float,
        captures: dict[str, str],
        evidence: list[str] | None = None,
        environment: dict[str, str] | None = None,
        discriminators: list[str] | None = None,
        strength: int = 0,
    ) -> None:
        self.entry, self.signature, self.error, self.score, self.captures = entry, signature, error, score, captures
        self.evidence = evidence if evidence is not None else []
        self.environment = environment if environment is not None else {}
        self.discriminators = discriminators if discriminators is not None else []
        self.strength = strength  # how many pieces of evidence matched (see the module's docstring)

    def __repr__(self) -> str:
        return f"Match({self.entry.key}, {self.signature.name!r}, score={self.score})"

    @property
    def confidence(self) -> str:
        return confidence(self.score)

    def fix_text(self) -> str:
        return fill_template(self.entry.fix_template, {**self.environment, **self.captures})


def confidence(score: float) -> str:
    return "high" if score >= HIGH else "medium" if score >= MEDIUM else "low"


PLACEHOLDER = Deferred(r"\{([A-Za-z_]\w*)(?:\|([^{}\n]*))?\}")  # (read only where a fix's placeholders matched)
# Placeholders written side by side are alternatives, one per wording: `{kwarg|}{name|}{attr|a name}`.
PLACEHOLDER_RUN = _compile(r"(?:\{[A-Za-z_]\w*(?:\|[^{}\n]*)?\})+")


def fill_template(template: str, captures: dict[str, str]) -> str:
    """Fill ``{name}`` placeholders with captures; ``{name|text}`` falls back to ``text`` when the
    output did not show the value. Placeholders side by side (``{kwarg|}{name|}{attr|a name}``) are
    filled as one: the values the output showed, or, when it showed none of them, their fallbacks.
    A bare ``{name}`` without a value stays as written: it is code (an f-string's ``{i}``); `kb check`
    requires a fallback on every placeholder a signature captures (kb/tidy/templates.py).

    Not str.format: fix texts hold code with braces (``device_map={"": 0}``), which must stay as written.
    """

    def fill(run: re.Match[str]) -> str:
        members = list(PLACEHOLDER.finditer(run.group(0)))
        values = [captures[m.group(1)] for m in members if captures.get(m.group(1)) is not None]
        if values:
            return "".join(values)
        if all(m.group(2) is None for m in members):
            return run.group(0)
        return "".join(m.group(2) if m.group(2) is not None else m.group(0) for m in members)

    return PLACEHOLDER_RUN.sub(fill, template)


# Message templating: the parts of a message that vary between users become placeholders. (Deferred: the JSON
# document's errors are templated; `kb diagnose`'s one screen, whose document is kb/diagnose/document.py's
# screen_document, templates an error only when nothing answered: turn 48.)
_TEMPLATE_RULES: tuple[tuple[str, Deferred], ...] = (
    ("path", Deferred(r"(?:[A-Za-z]:)?(?:[/\\][\w.~@+-]+){2,}[/\\]?")),
    ("size", Deferred(r"\b\d+(?:\.\d+)? ?(?:[KMGT]i?B|bytes)\b")),
    ("device", Deferred(r"\b(?:cuda|xpu|mps|npu):\d+\b")),
    ("shape", Deferred(r"torch\.Size\(\[[\d, ]*\]\)|\[\d+(?:, ?\d+)+\]")),
    ("address", Deferred(r"\b0x[0-9a-fA-F]+\b")),
    ("number", Deferred(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")),
)


def template_message(message: str) -> tuple[str, dict[str, str]]:
    """Return (message with <kind> placeholders, {kind_N: value}) for the first line of ``message``."""
    text = message.splitlines()[0][:1000] if message else ""
    values: dict[str, str] = {}
    for kind, pattern in _TEMPLATE_RULES:
        count = 0

        def repl(m: re.Match[str], kind: str = kind) -> str:
            nonlocal count
            count += 1
            values[f"{kind}_{count}"] = m.group(0)
            return f"<{kind}>"

        text = pattern.sub(repl, text)
    return text, values


MAX_HINT_MESSAGE_LINES = 12
MATCH_LINE_CHARS = 2000  # an OOM message that lists other processes runs past 600 characters
MATCH_CHARS = 4000


def searchable(message: str) -> str:
    """The part of a message signatures are searched in: lines cut at 2000 and the whole at 4000
    characters, so that a regex that backtracks badly cannot stall on a huge pasted line."""
    if len(message) <= MATCH_LINE_CHARS and "\n" not in message:
        return message
    return "\n".join(line[:MATCH_LINE_CHARS] for line in message.split("\n", 20)[:20])[:MATCH_CHARS]


WRAP_MIN_CHARS = 60  # a line cut by a fixed width (an issue's 80-column block, a terminal) is at least this long
_SENTENCE_END = ".:;!?"


_UNWRAPPED: dict[str, str | None] = {}  # unwrap's answers: each signature of an entry asks again for the same message
UNWRAPPED_KEPT = 64  # (a dict, not functools.lru_cache: importing functools costs `kb diagnose`'s start-up ~2 ms)


def unwrap(text: str) -> str | None:
    """``text`` with the line breaks of a hard wrap read as spaces, or None when it has none. A break is a wrap when
    the line before it is long (WRAP_MIN_CHARS, the message's first line counted from its start) and does not end a
    sentence or a clause (a full stop, a colon): "... but found at least" / "two devices, cuda:0 and cuda:1!". A
    space for a newline keeps every offset, so the evidence's line number and a capture's place stay true."""
    if text in _UNWRAPPED:
        return _UNWRAPPED[text]
    chars = list(text)
    start = 0
    joined = False
    while (end := text.find("\n", start)) >= 0:
        line = text[start:end].rstrip()
        if len(line) >= WRAP_MIN_CHARS and line[-1] not in _SENTENCE_END:
            chars[end] = " "
            joined = True
        start = end + 1
    if len(_UNWRAPPED) >= UNWRAPPED_KEPT:
        _UNWRAPPED.clear()
    _UNWRAPPED[text] = found = "".join(chars) if joined else None
    return found


def _frame_hits(signature: Signature, error: ParsedError) -> list[str]:
    """One evidence line per frame pattern that matches a frame (the innermost frame it matches)."""
    hits = []
    for pattern in signature.frames:
        for frame in reversed(error.frames):
            if pattern.search(frame.file) or pattern.search(frame.function) or (frame.code and pattern.search(frame.code)):
                where = f"{frame.file}:{frame.line} in {frame.function}"
                hits.append(f"frame {where} matches /{pattern.pattern}/")
                break
    return hits


def _nearby_texts(error: ParsedError) -> list[str]:
    """Lines before the error, frames' code, the message's later lines and the lines after it."""
    later = error.message.split("\n")[1:MAX_HINT_MESSAGE_LINES] if "\n" in error.message else []
    return list(error.context) + [f.code for f in error.frames if f.code] + later + list(error.after)


SITE_FOLDERS = ("site-packages/", "dist-packages/")


def code_path(file: str) -> str:
    """A frame's file as tables/priors.toml [other_code] reads it: ``/`` as separator and, for an installed package,
    its path from the (last) site-packages/ or dist-packages/ folder on: a ComfyUI folder that holds the venv
    transformers is installed in does not make transformers ComfyUI's code."""
    path = file.replace("\\", "/")
    lowered = path.lower()
    at = max(lowered.rfind(folder) + len(folder) if folder in lowered else -1 for folder in SITE_FOLDERS)
    return path[at:] if at >= 0 else path


def wrapper_frame(frame: Frame, table: dict[str, Any] | None) -> bool:
    """Whether ``frame`` only wraps the real work (tables/priors.toml [[wrapper]]: its file, and its function where the
    rule names one: FSDP's ``forward``, which runs the wrapped model, while FSDP's other code in the same file is FSDP's
    own work)."""
    path = frame.file.replace("\\", "/")
    for w in (table or {}).get("wrapper", ()):
        if _compile(w["file"]).search(path) and (not w.get("function") or _compile(w["function"]).search(frame.function)):
            return True
    return False


def other_software_frame(error: ParsedError, table: dict[str, Any] | None) -> Frame | None:
    """The frame of other software's code that raised ``error``, or None (tables/priors.toml [other_code]).

    Which frame decides: from the innermost frame outwards, frames that only wrap the work (the priors' [[wrapper]]
    rules: the Trainer, accelerate, torch's module call) and frames of code every program runs on (``shared``: torch but
    its distributed layer, Python's standard library) are passed over; the first frame left is the code that raised. It is other software's
    when its path is one of ``paths`` (ComfyUI moving its own model: torch's ``Module.to`` is passed over, then
    comfy/model_management.py). When it is the stack's or the user's, other software's paths further out say only
    where the stack ran: a ComfyUI custom node calling transformers, which raises in transformers, is the stack's."""
    code = (table or {}).get("other_code") or {}
    paths = code.get("paths")
    if not paths:
        return None
    shared = code.get("shared")
    if "." in error.type and _compile(paths).search(error.type.rsplit(".", 1)[0].replace(".", "/") + "/"):
        return Frame(error.type, 0, "<class>")  # the class's module is other software's (jaxlib.xla_extension.XlaRuntimeError)
    path = _module_path(error)
    if path is not None:  # the module an import or a module's attribute names is the code at fault, not the importer
        if _compile(paths).search(path):
            return Frame(path, 0, "<module>")
        if not (shared and _compile(shared).search(path)):
            return None  # a name missing from the stack's module, wherever it was asked for (a ComfyUI node's import)
    frames = error.frames or (error.owner.frames if error.owner is not None else [])  # a kernel's line: its traceback's
    if not frames:
        return None
    for frame in reversed(frames):
        path = code_path(frame.file)
        if _compile(paths).search(path):
            return frame
        if shared and _compile(shared).search(path):
            continue
        if wrapper_frame(frame, table):
            continue
        return None  # the stack's code or the user's raised it
    return None


def link_asynchronous(errors: list[ParsedError], table: dict[str, Any] | None) -> None:
    """Give each frameless error of an ``asynchronous`` class (tables/priors.toml [other_code]: a CUDA kernel's
    assertion, which the kernel prints, without frames, next to the Python traceback of the same failure) the traceback
    printed nearest it, within ``asynchronous_lines`` lines before or after it, as its ``owner``: the traceback's raising
    frame then says whose code ran the kernel (``other_software_frame``). A detectron2 or YOLO training loop whose
    dataset holds a class id past the head's size prints torch's "index out of bounds" assertion and a traceback of
    detectron2's or Ultralytics' own loop: the assertion is that program's, as its RuntimeError would be."""
    code = (table or {}).get("other_code") or {}
    kinds, reach = set(code.get("asynchronous") or ()), code.get("asynchronous_lines") or 0
    if not kinds or not reach:
        return
    tracebacks = [e for e in errors if e.frames]
    if not tracebacks:
        return
    for error in errors:
        if error.frames or error.short_type not in kinds:
            continue
        near = min(tracebacks, key=lambda e: (abs(e.line_no - error.line_no), e.line_no))
        if abs(near.line_no - error.line_no) <= reach:
            error.owner = near


RECORD_CHARS = 500  # of the line a signature matched in, what the log-record check reads


def other_software_record(line: str, table: dict[str, Any] | None) -> str | None:
    """The source file that printed ``line`` when the line is a log record of other software's code, else None
    (tables/priors.toml [other_code] ``record`` names the file in a record such as TensorFlow's "W tensorflow/
    stream_executor/platform/default/dso_loader.cc:59] Could not load dynamic library 'libcudart.so.10.1'"; ``paths``
    says whose it is). A signature that matched in such a line does not answer: TensorFlow printing that it found no
    libcudart says nothing of the stack's CUDA setup, under a YOLOv5 run's error or a fine-tuning log alike. So is a
    line holding a message in a form only another program prints (``message``: CTranslate2's "CUDA failed with error
    CUDA driver version is insufficient ..."): then the form itself is returned."""
    code = (table or {}).get("other_code") or {}
    message = code.get("message")
    if message:
        form = _compile(message).search(line[:RECORD_CHARS])
        if form is not None:
            return form.group(0)
    record, paths = code.get("record"), code.get("paths")
    if not record or not paths or ":" not in line or "]" not in line:  # (a record's "file.cc:59]")
        return None
    found = _compile(record).search(line[:RECORD_CHARS])
    if found is None:
        return None
    source = found.group("source").replace("\\", "/")
    return source if _compile(paths).search(code_path(source)) else None


# Python's own wordings of a name missing from a module (ImportError, ModuleNotFoundError, AttributeError): the text
# before the module's quoted name; and the endings of a compiled module's file that an ImportError or OSError starts with.
MODULE_NAMED = ("' from '", "No module named '", "module '")
COMPILED = (".so:", ".so.", ".pyd:")


def _module_path(error: ParsedError) -> str | None:
    """The module an import error or a module's missing attribute names, as a path ("cannot import name 'QuantState'
    from 'bitsandbytes.nn.modules'": ``bitsandbytes/nn/modules/``; "No module named 'comfy'"; "module 'bitsandbytes'
    has no attribute 'optim'"; ".../site-packages/mmcv/_ext.cpython-38-x86_64-linux-gnu.so: undefined symbol: ..."),
    or None. String checks only: this runs for every matched signature."""
    short = error.short_type
    if short not in ("ImportError", "ModuleNotFoundError", "AttributeError", "OSError"):
        return None
    first = error.message.split("\n", 1)[0][:500]
    if short in ("ImportError", "OSError"):
        ends = [first.find(end) for end in COMPILED if end in first]
        if ends and (first.startswith("/") or first[1:3] in (":\\", ":/")):
            return code_path(first[:min(ends)].rsplit(" ", 1)[-1])
    if short == "OSError":
        return None
    for before in MODULE_NAMED:
        at = first.find(before)
        if at < 0 or before == "module '" and not first.startswith("module '"):
            continue
        start = at + len(before)
        end = first.find("'", start)
        name = first[start:end] if end > start else ""
        if name and name.replace(".", "").replace("_", "").isalnum():
            return name.replace(".", "/") + "/"
    return None


_PRIORS: list[dict[str, Any] | None] = []  # [the priors table of the knowledge being diagnosed] (use_priors)


def use_priors(table: dict[str, Any] | None) -> None:
    """The priors table (tables/priors.toml) of the knowledge a diagnosis reads: its [other_code] decides here which
    errors are other software's (diagnose_chunks sets it before matching). Without it, the table of the knowledge
    loaded last is read (``_priors_table``), which is another root's when a process loaded two (review42: a
    notebook or a test that loads a second $KB_KNOWLEDGE_DIR, then diagnoses with the first)."""
    _PRIORS[:] = [table]


def _priors_table() -> dict[str, Any] | None:
    """tables/priors.toml, read through kb/knowledge (None for a knowledge root without it): the table of the
    knowledge being diagnosed (use_priors), else the index's copy when it has been loaded (a warm `kb diagnose`
    imports no kb.knowledge.tables), else read_table's. Imported here only: priors imports this module."""
    if _PRIORS:
        return _PRIORS[0]
    from kb.knowledge.model import LOADED_TABLES, KnowledgeError

    loaded = LOADED_TABLES.get("priors")
    if loaded is not None:
        return loaded
    from kb.knowledge.tables import read_table

    try:
        return read_table("priors")
    except KnowledgeError:
        return None


def _chain_cause(error: ParsedError, root: ParsedError | None) -> ParsedError | None:
    """The root error when it is the cause ``error`` was raised from ("During handling of the above exception", "The
    above exception was the direct cause"): ``error`` was raised because of what preceded it, and the root (the cause kb
    reads) came before it. None otherwise."""
    if root is None or root is error or not error.cause_of_previous:
        return None
    return root if root.line_no < error.line_no else None


def _excluded(signature: Signature, error: ParsedError, root: ParsedError | None = None,
              causes: tuple[ParsedError, ...] = ()) -> str | None:
    """Why the signature is ruled out: the error was raised in other software's code (``other_software_frame``: one
    table for every signature), or an ``excludes`` regex found in a frame, a nearby line, the headline of the root
    error it was raised from or of an exception of its own chain before it (``causes``: a chained cause the case lists
    under "When this does not apply": peft's "Can't find 'adapter_config.json'" raised while handling the Hub's
    RevisionNotFoundError, itself raised from the HTTP client's 404, which is the root; runtime44)."""
    other = other_software_frame(error, _priors_table())
    if other is not None:
        return f"{other.file} {other.function}"
    texts = [f"{f.file} {f.function}" for f in error.frames] + _nearby_texts(error)
    cause = _chain_cause(error, root)
    if cause is not None:
        texts.append(cause.headline)
    texts.extend(c.headline for c in causes if c is not cause)
    if not texts:  # (a message alone: its excludes are not compiled)
        return None
    for pattern in signature.excludes:
        for text in texts:
            if pattern.search(text):
                return text
    return None


def in_other_software_record(text: str, at: int, lead: str = "") -> bool:
    """Whether the line of ``text`` that holds position ``at`` (where a signature matched) is a log record printed by
    other software's code (``other_software_record``): the signatures' and the [[error]] priors' message regexes ask it
    where they matched. ``lead``: the text the parser found before the message on the first line of ``text``
    (ParsedError.lead), read with that line as it was printed: the kernel's "[date] java" before "invoked oom-killer"."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[start:end if end >= 0 else len(text)]
    if start == 0 and lead:
        line = f"{lead} {line}"
    return other_software_record(line, _priors_table()) is not None


def _title_only(error: ParsedError) -> bool:
    """The error is all the input said: one untyped line (a title, a sentence), no frame, nothing after it, and
    before it at most the prose of its own first line (``context``'s one entry when it is on line 1)."""
    if error.type or error.frames or error.after or "\n" in error.message:
        return False
    return not error.context or (error.line_no == 1 and len(error.context) == 1)


def _title_ruled_out(line: str) -> str | None:
    """Why a signature's match on a title alone may not answer: the title names other software (tables/priors.toml
    [other], the one table of those words, which the title keyword rules and the learned fallback read too), or None.
    Imported here only: a title is rare, and priors imports this module."""
    from kb.diagnose.priors import title_ruled_out

    table = _priors_table()
    return title_ruled_out(line, table) if table is not None else None


MAX_SECRET_LINES = 8  # a quoted line is redacted with this many lines before it (a PEM body's last lines)


def _hint_hits(signature: Signature, error: ParsedError) -> list[str]:
    """One evidence line per hint pattern that matches a nearby line (the first it matches)."""
    texts = _nearby_texts(error)
    if not texts:  # (a message alone: its hints are not compiled)
        return []
    hits = []
    for pattern in signature.hints:
        for i, text in enumerate(texts):
            if pattern.search(text):
                # redacted with the lines before it: the line may be the last of a key pasted over several
                quoted = redact_in(text, before="\n".join(texts[max(0, i - MAX_SECRET_LINES):i]))
                hits.append(f"nearby line matches hint /{pattern.pattern}/: {one_line(quoted, 120)}")
                break
    return hits


_SIZE = Deferred(r"^\s*([\d.]+)\s*([KMGT]i?B|bytes|B)?\s*$")
_UNIT = {None: 1, "B": 1, "bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40,
         "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}


def size_value(text: str) -> float | None:
    """``"10.00 GiB"`` -> bytes, ``"4"`` -> 4.0; None when it is not a number."""
    m = _SIZE.match(text)
    if m is None:
        return None
    try:
        return float(m[1]) * _UNIT[m[2]]
    except ValueError:
        return None


def capture_value(captures: dict[str, str], operand: str) -> float | None:
    """A capture's size, a literal size (``"11 GiB"``), or ``"a-b"``: the difference of two (old OOM
    messages give reserved and allocated, not their difference); None when a capture is missing."""
    if "-" in operand:
        first, second = operand.split("-", 1)
        a, b = capture_value(captures, first), capture_value(captures, second)
        return a - b if a is not None and b is not None else None
    constant = size_value(operand)  # a literal size: "11 GiB"
    return constant if constant is not None else size_value(captures.get(operand.strip(), ""))


def compare_captures(captures: dict[str, str], left: str, op: str, right: str) -> bool:
    """Whether ``left op right`` holds for the captured sizes (False when one is missing)."""
    from kb.knowledge.compare import COMPARE_OPS  # (imported only for a signature that compares: ~0.07 ms)

    a, b = capture_value(captures, left), capture_value(captures, right)
    return a is not None and b is not None and op in COMPARE_OPS and COMPARE_OPS[op](a, b)


def _known_to_history(signature: Signature, captures: dict[str, str], framed: bool = True) -> str | None:
    """Evidence that a capture is a model type transformers knows, or a keyword whose acceptance changed
    across releases (the API history, kb/apidrift), or None. Stands in for a required frame or hint. ``framed``: the
    error has traceback frames; without any, a model type known since the history's first model-type release is no
    evidence (the key alone, a wrapper's own table: "KeyError: 'longformer'", simpletransformers#803)."""
    model_type = captures.get(signature.raw.get("model_type_capture") or "")
    param = captures.get(signature.raw.get("param_capture") or "")
    if not model_type and not param:
        return None
    from kb.diagnose import drift  # loads the API history: only for such signatures

    if model_type:
        # (rt49) a bare key known since the table's first release is no evidence that transformers is too old for it
        first = drift.known_model_type(model_type) if framed else drift.dated_model_type(model_type)
        if first is not None:
            return f"'{model_type}' is a model type transformers knows from {first} on (API history)"
    if param:
        where = drift.drifted_param(param)
        if where is not None:
            return f"'{param}' is a keyword {where[1]} accepted in some {where[0]} releases and not in others (API history)"
    return None


def _history_knows_model_type(signature: Signature, captures: dict[str, str]) -> bool:
    """Whether the signature's model_type_capture is a model type some covered transformers release knows."""
    model_type = captures.get(signature.raw.get("model_type_capture") or "")
    if not model_type:
        return False
    from kb.diagnose import drift  # loads the API history: only for such signatures

    return drift.known_model_type(model_type) is not None


def _history_knows_class(signature: Signature, captures: dict[str, str]) -> bool:
    """Whether the signature's class_capture (when captured) is a class some covered release of a tracked library
    defines or exports (wrong50: "'ChatGLMForConditionalGeneration' object has no attribute 'model_parallel'" names a
    model's remote code, which no release of the stack changed). True when nothing was captured or no history is
    installed (the signature's other evidence decides, as before)."""
    name = captures.get(signature.raw.get("class_capture") or "")
    if not name:
        return True
    from kb.diagnose import drift  # loads the API history: only for such signatures

    if drift.known_class(name) is not False:
        return True
    base, member = signature.raw.get("class_base"), captures.get(signature.raw.get("member_capture") or "")
    return bool(base and member and drift.member_changed(*base.split(":", 1), member))


def score_error(
    entry: Case | Family,
    signature: Signature,
    error: ParsedError,
    environment: dict[str, str] | None = None,
    root: ParsedError | None = None,
    root_chain: frozenset[int] | None = None,
    causes: tuple[ParsedError, ...] = (),
) -> Match | None:
    """Score one error against one signature; None when the message does not match. ``root_chain``: the ids of the
    errors of the root's chain, when known; an error outside it was not raised from the root (its excludes do not read
    the root's headline). ``causes``: the exceptions of the error's own chain before it (``chain_causes``), whose
    headlines its excludes read."""
    text = searchable(error.message)
    m = signature.message.search(text) if text and signature.may_match(text) else None
    if m is None and "\n" in text:
        unwrapped = unwrap(text)  # a message hard-wrapped where it was pasted, read again with its wraps undone
        if unwrapped is not None:
            m = signature.message.search(unwrapped) if signature.may_match(unwrapped) else None
    if m is None:
        return None
    environment = environment or {}
    captures = {k: v for k, v in m.groupdict().items() if v is not None}
    if signature.compare and not all(compare_captures(captures, *c) for c in signature.compare):
        return None
    if signature.requires_type and not signature.accepts_type(error.type):
        return None
    chained_root = root if root_chain is None or id(error) in root_chain else None
    if _excluded(signature, error, chained_root, causes) is not None:
        return None
    if in_other_software_record(text, m.start(), error.lead):
        return None
    if signature.raw.get("model_type_known") and not _history_knows_model_type(signature, captures):
        return None
    if signature.raw.get("class_capture") and not _history_knows_class(signature, captures):
        return None
    if _title_only(error) and _title_ruled_out(" ".join([*error.context, error.message])) is not None:
        return None
    # a capture that is a piece of a secret (a token given as a model id, cut where the regex began inside it) is
    # redacted as a part of the message, which redacting the piece alone would not see
    for name, value in captures.items():
        start, end = m.span(name)
        if value and inside_secret(text, start, end):
            captures[name] = redact_in(text, start, end)
    first_line = text[: m.start()].count("\n")
    evidence = [
        f"line {error.line_no + first_line}: message matches signature '{signature.name}': "
        # the match redacted as a part of the message (and the lines before it): it may begin inside a token
        f"{one_line(redact_in(text, m.start(), m.end(), before=chr(10).join(error.context[-MAX_SECRET_LINES:])), 160)!r}"
    ]
    discriminators = ["the message itself (a signature specific to this case)"] if signature.specific else []
    strength = len(signature.compare) + (1 if signature.specific else 0)
    score = WEIGHT_MESSAGE
    if signature.accepts_type(error.type):
        score += WEIGHT_TYPE
        evidence.append(f"exception type {error.type} is one the {entry.kind} raises")
    elif error.type:
        evidence.append(f"exception type {error.type} differs from {', '.join(signature.exceptions) or 'any listed'}")
    else:
        evidence.append("the text gives no exception type (a message pasted on its own)")
    frames = _frame_hits(signature, error) if error.frames else []  # (no regex compiled where nothing is searched)
    hints = _hint_hits(signature, error)
    facts = [(key, environment[key], pattern) for key, pattern in signature.environment
             if key in environment and pattern.search(environment[key])]
    # a required frame or hint: a fact of the run read from the log (the model's size, its quantization) will do,
    # the card alone will not
    if signature.requires_frame and not frames and not hints and all(key in CARD_FACTS for key, _, _ in facts):
        known = _known_to_history(signature, captures, bool(error.frames))
        if known is None:
            return None
        evidence.append(known)
    if frames:  # the score counts one frame and one hint; the strength counts every pattern that matched
        score += WEIGHT_FRAME
        evidence.extend(frames)
        discriminators.append("a traceback frame")
    if hints:
        score += WEIGHT_HINT
        evidence.extend(hints)
        discriminators.append("a nearby line")
    strength += len(frames) + len(hints)
    for key, value, pattern in facts:  # every matching fact counts: the card, the model's size, its quantization
        score += WEIGHT_ENVIRONMENT
        strength += 1
        evidence.append(f"environment: {key} = {value} matches /{pattern.pattern}/")
        if key not in CARD_FACTS:
            discriminators.append(f"the environment ({key})")
    if error.noise:
        score -= PENALTY_NOISE
        evidence.append(f"demoted: {error.noise}")
    elif root is not None and error is not root:
        score -= PENALTY_NOT_ROOT
        # redacted before it is cut: a headline cut at 120 characters could end in the start of a token
        evidence.append(f"demoted: not the root error (that is {one_line(redact(root.headline), 120)!r} "
                        f"on line {root.line_no})")
    if captures:
        evidence.append("captured " + ", ".join(f"{k}={v}" for k, v in captures.items()))
    score = min(1.0, max(0.0, score))
    return Match(entry, signature, error, round(score, 3), captures, evidence, dict(environment), discriminators,
                 strength)


def rank_key(m: Match) -> tuple[float, int]:
    """Best first: the higher score, then (equal or clipped scores) the more evidence matched."""
    return -m.score, -m.strength


MAX_CAUSES = 8  # the exceptions of a chain read before an error: a log of thousands of chained errors stays linear


def chain_causes(errors: list[ParsedError], at: int) -> tuple[ParsedError, ...]:
    """The exceptions of ``errors[at]``'s chain that came before it ("The above exception was the direct cause ...",
    "During handling of ..."), nearest first, at most MAX_CAUSES; carried on through a later paragraph of a message
    that the parser read as an error of its own (no class, no frames: huggingface_hub's "Invalid rev id: ..." under its
    RevisionNotFoundError), as ``_root_chain`` is."""
    causes: list[ParsedError] = []
    while at > 0 and errors[at].cause_of_previous and len(causes) < MAX_CAUSES:
        at -= 1
        causes.append(errors[at])
        while at > 0 and not errors[at].type and not errors[at].frames and len(causes) < MAX_CAUSES:
            at -= 1
            causes.append(errors[at])
    return tuple(causes)


def _root_chain(root: ParsedError | None, errors: list[ParsedError]) -> frozenset[int]:
    """The ids of the errors of the root's chain (errors.chain_of), carried on through a later paragraph of a message
    that the parser read as an error of its own (no class, no frames: huggingface_hub's "403 Client Error. ...", a blank
    line, "Cannot access gated repo for url ..."), when the error after that paragraph was raised from it."""
    if root is None:
        return frozenset()
    chain = chain_of(root, errors)
    ids = {id(e) for e in chain}
    at = next((i for i, e in enumerate(errors) if e is chain[-1]), len(errors))
    while at + 2 < len(errors) and not errors[at + 1].type and not errors[at + 1].frames \
            and errors[at + 2].cause_of_previous:
        more = chain_of(errors[at + 2], errors)
        ids.update(id(e) for e in more)
        at = next(i for i, e in enumerate(errors) if e is more[-1])
    return frozenset(ids)


def match(
    errors: Iterable[ParsedError],
    entries: Iterable[Case | Family],
    environment: dict[str, str] | None = None,
    root: ParsedError | None = None,
) -> list[Match]:
    """Best match per case or family, best first.

    An entry none of whose signatures' literals is in a message is passed over for it (score_error would reject
    each signature: ``may_match``); the index's entries (kb/knowledge/indexed.py) give their ``literals`` without
    building their signatures, so a run builds only those of the entries its messages may match.
    """
    entries = [e for e in entries if _literals(e)]
    errors = list(errors)
    continued = _continuing_other_software(errors)
    # the errors of the root's chain: only they were raised from it (review40: an unrelated earlier error is no cause)
    root_chain = _root_chain(root, errors)
    best: dict[str, Match] = {}
    for at, error in enumerate(errors):
        if id(error) in continued:
            continue
        causes = chain_causes(errors, at)
        text = searchable(error.message)
        unwrapped = unwrap(text) if "\n" in text else None  # score_error's second reading
        for entry in entries:
            if not text or not (_may_match(entry, text) or (unwrapped is not None and _may_match(entry, unwrapped))):
                continue
            for signature in entry.signatures:
                found = score_error(entry, signature, error, environment, root, root_chain, causes)
                if found and (entry.key not in best or rank_key(found) < rank_key(best[entry.key])):
                    best[entry.key] = found
    return sorted(best.values(), key=lambda m: (*rank_key(m), m.error.line_no, m.entry.key))


def _continuing_other_software(errors: list[ParsedError]) -> set[int]:
    """The untyped, frameless errors (ids) that only continue the message of an error raised in other software's code:
    a line of its message the parser read as an error of its own ("Cannot access gated repo ..." under a
    GatedRepoError), which the raising frame decides as it decides the error's first line."""
    raised = [e for e in errors if e.type and e.frames]
    if not raised or len(raised) == len(errors):
        return set()
    table = _priors_table()
    others = [e for e in raised if other_software_frame(e, table) is not None]
    found: set[int] = set()
    for error in errors:
        if error.type or error.frames or not error.message:
            continue
        first = error.message.split("\n", 1)[0].strip()
        before = [e for e in errors if e.line_no < error.line_no and (e.type or e.frames)]
        owner = before[-1] if before else None  # the typed error it would continue
        if owner is not None and any(owner is e for e in others) and first in {line.strip() for line in owner.after}:
            found.add(id(error))
    return found


def _may_match(entry: Case | Family, text: str) -> bool:
    """Whether one of the entry's signatures may match ``text``: its literal is in it. The index's entries also know,
    for a signature without a literal, the literals one of which its every match holds (kb/knowledge/indexed.py)."""
    may_match = getattr(entry, "may_match", None)
    if may_match is not None:
        return may_match(text)
    return any(not literal or literal in text for literal in _literals(entry))


def _literals(entry: Case | Family) -> tuple[str, ...]:
    """Each signature's required literal ("" for none), in order."""
    literals = getattr(entry, "literals", None)  # the index's entries hold them apart from their signatures
    return literals if literals is not None else tuple(s.literal for s in entry.signatures)


_SPACES = _compile(r"\s+")


def one_line(text: str, limit: int = 300) -> str:
    text = _SPACES.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"

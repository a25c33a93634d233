"""`kb diagnose`: from error text to ranked cases, with evidence and a filled-in fix.

The JSON document built here is a stable interface (docs/diagnose.md): keys are
only ever added, never renamed or removed, within a ``schema_version``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from kb.diagnose.input import MAX_LINE_BYTES, LogReader, UnusableInput
from kb.diagnose.match import Match, match, one_line, template_message
from kb.diagnose.redact import redact
from kb.diagnose.parse import ParsedError, chunk_lines, parse_chunks, trigger_lines

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:  # diagnose reads kb.knowledge.index, not the full cases
    from typing import Any

    from kb.knowledge.case import Case

SCHEMA_VERSION = 1
MAX_ERRORS_KEPT = 500
MAX_ERRORS_LISTED = 20
MAX_LINE_KIB = MAX_LINE_BYTES // 1024

# Total capacity as torch reports it, in GiB, for the cards people fine-tune on.
GPU_BY_CAPACITY: tuple[tuple[float, float, str], ...] = (
    (5.6, 6.1, "6 GB card (RTX 2060/3060 laptop)"),
    (7.5, 8.0, "8 GB card (RTX 2070/3070/4060)"),
    (10.6, 11.0, "11 GB card (GTX 1080 Ti / RTX 2080 Ti)"),
    (11.6, 12.0, "12 GB card (RTX 3060/4070, Titan X)"),
    (14.4, 14.9, "T4 (15 GB; Colab/Kaggle)"),
    (15.5, 16.0, "16 GB card (V100/P100/A4000/RTX 4080)"),
    (21.9, 22.5, "22 GB card (RTX 2080 Ti 22G mod / A10G)"),
    (23.4, 24.0, "24 GB card (RTX 3090/4090, A10, L4)"),
    (31.3, 32.0, "32 GB card (V100 32G, RTX 5090)"),
    (39.2, 40.0, "A100 40GB"),
    (44.3, 48.0, "48 GB card (A6000/L40/A40)"),
    (79.0, 80.0, "80 GB card (A100 80GB / H100)"),
)
_CAPACITY = re.compile(r"(?:total capacity of ([\d.]+) GiB|([\d.]+) GiB total capacity)")
_GPU_NAME = re.compile(
    r"\b(Tesla T4|T4|Tesla [PVK]\d+|[PV]100|A100|H100|H200|A10G?|L4|L40S?|A6000|A40"
    r"|(?:GeForce )?(?:RTX|GTX) ?\d{3,4}(?: Ti)?)\b"
)
_VISIBLE = re.compile(r"CUDA_VISIBLE_DEVICES=[\"']?([\d,]+)")
_NPROC = re.compile(r"--nproc[_-]per[_-]node[= ](\d+)|num_processes[:=] ?(\d+)")
_PER_DEVICE_BATCH = re.compile(r"per_device_train_batch_size[\"']?\s*[=:]\s*(\d+)|--per_device_train_batch_size[= ](\d+)")
_ENV_TOKENS = ("GiB total capacity", "total capacity of", "Tesla", "GeForce", "NVIDIA", "CUDA_VISIBLE_DEVICES",
               "nproc", "num_processes", "per_device_train_batch_size", "Root Cause (first observed failure)",
               "(local_rank:")
# torchrun's ChildFailedError summary names the rank that failed first:
#   Root Cause (first observed failure):  ...  rank      : 1 (local_rank: 1)
_ROOT_CAUSE_RANK = re.compile(r"^\s*rank\s*:\s*(\d+) \(local_rank:")

# What common exceptions mean, for the "no match" answer.
GENERIC_MEANINGS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"CUDA out of memory|OutOfMemoryError|CUDA error: out of memory"),
     "The GPU ran out of memory for one allocation. Compare 'Tried to allocate' with what is free; "
     "reduce batch size or sequence length, enable gradient checkpointing, load the model in 4/8-bit, "
     "or set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True if much memory is reserved but unallocated."),
    (re.compile(r"device-side assert triggered"),
     "A CUDA kernel hit an assertion; the Python line shown is often not where it happened. "
     "Rerun with CUDA_LAUNCH_BLOCKING=1 (or on CPU) to see the real failing operation, usually an index "
     "out of range (labels, token ids vs vocabulary size)."),
    (re.compile(r"Expected all tensors to be on the same device"),
     "Two tensors of one operation live on different devices; move the input (or the module) so both "
     "are on the device the message names."),
    (re.compile(r"must match the size of tensor b"),
     "Two tensors of an element-wise operation have incompatible shapes at the dimension named."),
    (re.compile(r"must have the same dtype|expected scalar type|to have the same dtype"),
     "Two operands of one operation have different dtypes; cast one of them (the message names both)."),
    (re.compile(r"NCCL|DistBackendError"),
     "A collective communication (NCCL) call failed; read the NCCL 'Last error' line and the first rank's "
     "own error above it. Rerun with NCCL_DEBUG=WARN for details."),
    (re.compile(r"got an unexpected keyword argument"),
     "A function was called with an argument it does not take: usually a library version that renamed "
     "or removed it. Check the installed version's signature."),
)
GENERIC_BY_TYPE: dict[str, str] = {
    "ModuleNotFoundError": "A package is not installed in this environment (or is installed for another Python).",
    "ImportError": "A module exists but a name could not be imported from it: usually mismatched package versions.",
    "KeyError": "A dict/config lookup used a key that is not there (a dataset column, a config field).",
    "IndexError": "An index is past the end of a sequence or tensor dimension.",
    "TypeError": "A function got an argument of the wrong type or an argument it does not accept.",
    "ValueError": "An argument has the right type but an invalid value; the message usually says which.",
    "AttributeError": "An object lacks the attribute used: often an API change between library versions.",
    "FileNotFoundError": "A path does not exist (check the working directory and relative paths).",
    "OSError": "An operating-system or file/hub access error (missing file, gated model, no network).",
    "RuntimeError": "A generic error raised by PyTorch or a C++ extension; the message carries the detail.",
    "AssertionError": "An internal consistency check failed in the code that raised it.",
    "NotImplementedError": "The operation is not implemented for these inputs (dtype, device or backend).",
    "ChildFailedError": "torchrun's summary that a worker failed: the worker's own traceback, earlier in the "
                        "log (often prefixed [rankN]:), holds the cause.",
    "CUDAAssertion": "A CUDA kernel assertion: the condition shown failed on the GPU (for indexSelect: an index "
                     ">= the embedding/vocabulary size).",
    "NCCLWatchdogTimeout": "A collective waited longer than the timeout: another rank crashed or hung first; "
                           "find that rank's error.",
}


class Diagnosis:
    """The ranked matches for one input, the errors kept, and facts read from the log."""

    def __init__(
        self,
        matches: list[Match],
        errors_seen: int,
        root_error: ParsedError | None,
        notes: list[str] | None = None,
        errors: list[ParsedError] | None = None,
        environment: dict[str, str] | None = None,
    ) -> None:
        self.matches, self.errors_seen, self.root_error = matches, errors_seen, root_error
        self.notes = notes if notes is not None else []
        self.errors = errors if errors is not None else []
        self.environment = environment if environment is not None else {}


class EnvironmentScanner:
    """Collect environment facts (GPU, memory, ranks, batch size) from lines as they stream past."""

    def __init__(self) -> None:
        self.facts: dict[str, str] = {}
        self.expect_root_rank = False

    def scan(self, chunks: Iterable[tuple[str, list[str]]]) -> Iterator[tuple[str, list[str]]]:
        """Pass (text, lines) chunks through, reading facts from the few lines that can hold one."""
        for text, lines in chunks:
            for i in trigger_lines(text, _ENV_TOKENS):
                self._look(lines[i][:2000])
            yield text, lines

    def _look(self, line: str) -> None:
        if "Root Cause (first observed failure)" in line:
            self.expect_root_rank = True
            return
        if "(local_rank:" in line:
            r = _ROOT_CAUSE_RANK.match(line)
            if r and self.expect_root_rank:
                self.facts["first_failed_rank"] = r.group(1)
                self.expect_root_rank = False
            return
        if "GiB" in line and "gpu_memory_gib" not in self.facts:
            c = _CAPACITY.search(line)
            if c:
                total = float(c.group(1) or c.group(2))
                self.facts["gpu_memory_gib"] = f"{total:g}"
                for low, high, name in GPU_BY_CAPACITY:
                    if low <= total <= high:
                        self.facts.setdefault("gpu", name)
        if "gpu" not in self.facts or "card" in self.facts["gpu"]:
            g = _GPU_NAME.search(line)
            if g:
                self.facts["gpu"] = g.group(1)
        if "CUDA_VISIBLE_DEVICES" in line:
            v = _VISIBLE.search(line)
            if v:
                self.facts["visible_gpus"] = str(len([x for x in v.group(1).split(",") if x]))
        if "nproc" in line or "num_processes" in line:
            n = _NPROC.search(line)
            if n:
                self.facts["world_size"] = n.group(1) or n.group(2)
        if "per_device_train_batch_size" in line:
            b = _PER_DEVICE_BATCH.search(line)
            if b:
                self.facts["per_device_batch"] = b.group(1) or b.group(2)

    def result(self, errors: list[ParsedError]) -> dict[str, str]:
        facts = dict(self.facts)
        ranks = [int(e.rank) for e in errors if e.rank is not None and e.rank.isdigit()]
        if ranks and "world_size" not in facts:
            facts["ranks_seen"] = str(max(ranks) + 1)
        return facts


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


def diagnose_lines(lines: Iterable[str], cases: Iterable[Case]) -> Diagnosis:
    """Diagnose text lines (an open file, a list); see diagnose_chunks."""
    return diagnose_chunks(chunk_lines(lines), cases)


def diagnose_chunks(chunks: Iterable[tuple[str, list[str]]], cases: Iterable[Case]) -> Diagnosis:
    """Parse, choose the root error, read environment facts and score every case."""
    cases = list(cases)
    scanner = EnvironmentScanner()
    kept: list[ParsedError] = []
    seen = 0
    for error in parse_chunks(scanner.scan(chunks)):
        seen += 1
        if len(kept) < MAX_ERRORS_KEPT:
            kept.append(error)
    environment = scanner.result(kept)
    root = choose_root(kept, environment.get("first_failed_rank"))
    typed = [e for e in kept if e.type or e.message]
    matches = match(typed, cases, environment, root)
    return Diagnosis(matches=matches, errors_seen=seen, root_error=root, errors=kept, environment=environment)


def diagnose_reader(reader: LogReader, cases: Iterable[Case]) -> Diagnosis:
    """Diagnose a stream; raises UnusableInput for empty, binary or unreadable input."""
    diagnosis = diagnose_chunks(reader.chunks(), cases)
    stats = reader.stats
    if stats.bytes_read == 0:
        raise UnusableInput(f"{reader.name} is empty: paste the error output (the traceback and the lines around it)")
    if not diagnosis.matches and diagnosis.errors_seen == 0 and stats.undecodable_lines * 2 > stats.lines:
        raise UnusableInput(
            f"{reader.name} is not UTF-8 text ({stats.undecodable_lines} of {stats.lines} lines could not be decoded)"
        )
    if diagnosis.errors_seen == 0 and stats.lines and stats.truncated_lines == stats.lines:
        raise UnusableInput(
            f"{reader.name} is {stats.bytes_read / 1e6:.1f} MB without line breaks and holds no error text "
            f"in its first {MAX_LINE_KIB} KiB: not a log or traceback"
        )
    if stats.truncated_lines:
        diagnosis.notes.append(f"{stats.truncated_lines} over-long line(s) were read only in part")
    if stats.undecodable_lines:
        diagnosis.notes.append(f"{stats.undecodable_lines} line(s) were not UTF-8 and were read with replacements")
    if diagnosis.errors_seen > MAX_ERRORS_KEPT:
        diagnosis.notes.append(f"{diagnosis.errors_seen} errors found; the first {MAX_ERRORS_KEPT} were scored")
    return diagnosis


def user_frame(error: ParsedError) -> str | None:
    """The innermost frame that belongs to the user's code, not a library."""
    for frame in reversed(error.frames):
        if not frame.is_library:
            return redact(f"{frame.file}:{frame.line} in {frame.function}" + (f": {frame.code}" if frame.code else ""))
    return None


def library_frame(error: ParsedError) -> str | None:
    """The innermost frame overall (where the library raised), when it is not the user's."""
    if error.frames and error.frames[-1].is_library:
        f = error.frames[-1]
        return redact(f"{f.file}:{f.line} in {f.function}")
    return None


def generic_meaning(error: ParsedError | None) -> str | None:
    """What this kind of error usually means, for errors no case explains."""
    if error is None:
        return None
    if error.short_type in ("ChildFailedError", "CUDAAssertion", "NCCLWatchdogTimeout"):
        return GENERIC_BY_TYPE[error.short_type]
    text = f"{error.type}: {error.message}"
    for pattern, meaning in GENERIC_MEANINGS:
        if pattern.search(text):
            return meaning
    return GENERIC_BY_TYPE.get(error.short_type)


def _why(m: Match) -> str:
    parts = ["the message matches the case's signature"]
    if any(e.startswith("exception type") and "is one" in e for e in m.evidence):
        parts.append(f"the exception type ({m.error.short_type}) is the one the case raises")
    if any(e.startswith("frame ") for e in m.evidence):
        parts.append("a traceback frame matches")
    if any(e.startswith("nearby line") for e in m.evidence):
        parts.append("a nearby line matches a hint")
    if any(e.startswith("environment:") for e in m.evidence):
        parts.append("the environment fits")
    text = f"{m.confidence} confidence: " + ", ".join(parts)
    demoted = [e[len("demoted: "):] for e in m.evidence if e.startswith("demoted: ")]
    if demoted:
        text += "; but " + demoted[0]
    return text


def _error_document(error: ParsedError) -> dict[str, Any]:
    template, _ = template_message(error.message)
    return {
        "type": error.type,
        "message": redact(one_line(error.message, 1000)),
        "line": error.line_no,
        "rank": error.rank,
        "template": redact(template),
        "noise": error.noise,
        "user_frame": user_frame(error),
    }


def match_document(m: Match) -> dict[str, Any]:
    return {
        "id": m.case.id,
        "slug": m.case.slug,
        "title": m.case.title,
        "score": m.score,
        "confidence": m.confidence,
        "why": redact(_why(m)),
        "signature": m.signature.name,
        "error": {
            "type": m.error.type,
            "message": redact(one_line(m.error.message, 1000)),
            "line": m.error.line_no,
            "rank": m.error.rank,
        },
        "evidence": [redact(e) for e in m.evidence],
        "captures": {k: redact(v) for k, v in m.captures.items()},
        "fix": redact(m.fix_text()),
        "user_frame": user_frame(m.error),
        "raised_in": library_frame(m.error),
        "more": f"kb show {m.case.id}",
        "docs": f"docs/cases/{m.case.folder_name}.md",
    }


def diagnosis_document(d: Diagnosis) -> dict[str, Any]:
    root = d.root_error
    root_doc = _error_document(root) if root else None
    if root_doc is not None:
        root_doc["meaning"] = generic_meaning(root)
    return {
        "schema_version": SCHEMA_VERSION,
        "matches": [match_document(m) for m in d.matches],
        "errors_seen": d.errors_seen,
        "root_error": root_doc,
        "errors": [_error_document(e) for e in d.errors[:MAX_ERRORS_LISTED]],
        "environment": {k: redact(v) for k, v in d.environment.items()},
        "notes": d.notes,
    }

"""What the parser finds: errors (:class:`ParsedError`) with their frames, and which of them are
follow-on noise (consequences of another error) rather than causes."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from typing import Any

class Frame:
    """One ``File "...", line N, in f`` entry. (Plain classes, not dataclasses, here and in the
    rest of the diagnose path: importing dataclasses pulls in inspect, a fifth of the start-up.)"""

    __slots__ = ("file", "line", "function", "code", "library")

    def __init__(self, file: str, line: int, function: str, code: str = "", library: bool = False) -> None:
        self.file, self.line, self.function, self.code = file, line, function, code
        # (runtime46) a path whose head the excerpt cut off, that starts at a known library's package folder
        # ("**/deepspeed/runtime/zero/stage_1_and_2.py"): installed code, though no site-packages/ is left to say so
        self.library = library

    def __repr__(self) -> str:
        return f"Frame({self.file!r}, {self.line}, {self.function!r}, {self.code!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Frame) and (self.file, self.line, self.function, self.code) == (
            other.file, other.line, other.function, other.code)

    @property
    def is_library(self) -> bool:
        """True for installed packages and the interpreter; user code is everything else."""
        f = self.file.replace("\\", "/").lower()
        return (
            self.library
            or "site-packages/" in f
            or "dist-packages/" in f
            or "/lib/python" in f
            or f.startswith(("<frozen", "<string>", "/usr/lib/"))
            or "transformers_modules/" in f  # a model's remote code, copied by transformers (HF_MODULES_CACHE)
        )


class RankCounter:
    """The highest numeric rank among every error found, identical errors folded together included
    (``ranks_seen`` is this plus one: folding the same error from 8 ranks into one must not hide 7)."""

    __slots__ = ("top",)

    def __init__(self) -> None:
        self.top = -1

    def add(self, rank: str | None) -> None:
        if rank is not None and rank.isdigit() and len(rank) < 10:
            self.top = max(self.top, int(rank))


class ParsedError:
    """One error found in the input, with its frames and what the parser learnt around it."""

    __slots__ = ("type", "message", "frames", "line_no", "rank", "in_traceback", "chained",
                 "cause_of_previous", "kind", "noise", "repeats", "advice", "context", "after", "owner", "source",
                 "lead")

    def __init__(
        self,
        type: str,  # noqa: A002 - the exception type's name, as printed
        message: str,
        frames: list[Frame] | None = None,
        line_no: int = 0,  # 1-based line of the exception line in the input
        rank: str | None = None,
        in_traceback: bool = False,
        chained: bool = False,  # a later exception in the same chain follows (this one is a cause)
        cause_of_previous: bool = False,  # raised while handling / because of the previous one
        kind: str = "python",  # python | nccl | cuda-assert | watchdog | cpp (an uncaught C++ exception)
        noise: str | None = None,  # why this error is a consequence of another one, not a cause
        repeats: int = 0,  # identical errors (other ranks, repeated kernel asserts) folded into this one
        advice: list[str] | None = None,  # CUDA_LAUNCH_BLOCKING-style advice seen after it
        context: list[str] | None = None,  # lines just before it (and any prose before it on its own line)
    ) -> None:
        self.type, self.message = type, message
        self.frames = frames if frames is not None else []
        self.line_no, self.rank, self.in_traceback, self.chained = line_no, rank, in_traceback, chained
        self.cause_of_previous, self.kind, self.noise, self.repeats = cause_of_previous, kind, noise, repeats
        self.advice = advice if advice is not None else []
        self.context = context if context is not None else []
        # A few lines after it: in a pasted issue the explanation often follows the error
        # ("inv_freq is a cpu tensor"); filled in by parse_chunks as it reads on.
        self.after: list[str] = []
        # For an error a GPU kernel printed without frames (a CUDA kernel's assertion): the Python traceback printed
        # for the same failure, whose frames say whose code ran the kernel (kb/diagnose/match.py link_asynchronous).
        self.owner: ParsedError | None = None
        # The raw input lines around it (its own, CONTEXT_LINES before, AFTER_LINES after), as read, and the index of
        # the first in the input: what redaction reads its quoted pieces with (kb/diagnose/quoted.py); set by
        # parse_chunks, dropped once used.
        self.source: tuple[int, list[str]] | None = None
        # The text before it on its own input line when the parser started it mid-line (a log record's prefix, the
        # kernel's "[date] java" before "invoked oom-killer"): with the message's first line, the line as printed.
        self.lead = ""

    def __repr__(self) -> str:
        return f"ParsedError({self.type!r}, {self.message[:80]!r}, line_no={self.line_no}, rank={self.rank!r})"

    @property
    def headline(self) -> str:
        first = self.message.splitlines()[0] if self.message else ""
        return f"{self.type}: {first}" if first else self.type

    @property
    def short_type(self) -> str:
        return self.type.rsplit(".", 1)[-1]


def noise_reason(error: ParsedError, rules: list[dict[str, Any]]) -> str | None:
    """Why ``error`` is follow-on noise rather than a root cause (the first rule of tables/noise.toml that
    holds), or None."""
    short = error.short_type
    first = error.message.split("\n", 1)[0]
    for rule in rules:
        if not (rule["type"] or rule["suffix"] or rule["message"]):
            continue  # a rule that names nothing holds for nothing
        if rule["type"] and short != rule["type"]:
            continue
        if rule["suffix"] and not short.endswith(rule["suffix"]):
            continue
        if rule["kind"] and error.kind != rule["kind"]:
            continue
        if all(text in first for text in rule["message"]):
            return rule["reason"]
    return None


def chain_of(error: ParsedError, errors: list[ParsedError]) -> list[ParsedError]:
    """The exceptions of ``error``'s chain ("The above exception was the direct cause ...", "During handling of
    ...") in input order, ``error`` among them: the errors before and after it that the parser linked to it
    (``cause_of_previous``). ``[error]`` when it is in no chain or not in ``errors``."""
    try:
        at = next(i for i, e in enumerate(errors) if e is error)
    except StopIteration:
        return [error]
    start = at
    while start > 0 and errors[start].cause_of_previous:
        start -= 1
    end = at + 1
    while end < len(errors) and errors[end].cause_of_previous:
        end += 1
    return errors[start:end]

"""Parse error output into exceptions with frames, one line at a time.

Works on a stream so a large log is read in bounded memory: only the frames of
the traceback being read are held, and each finished error is yielded at once.
Understands Python tracebacks (with chained causes), the bare last line of one,
and error lines inside log output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from kb.textclean import clean_line

MAX_FRAMES = 64
MAX_MESSAGE_LINES = 12
MAX_MESSAGE_CHARS = 8_000

TRACEBACK_START = re.compile(r"^\s*Traceback \(most recent call last\):\s*$")
FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<function>.+?))?\s*$')
EXCEPTION_NAME = r"(?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Warning|Failure|Timeout|Fault)"
EXCEPTION_LINE = re.compile(rf"^(?P<type>{EXCEPTION_NAME})(?::\s?(?P<message>.*))?$")
# An exception line not at the start: "ERROR ... RuntimeError: ..." or "E   RuntimeError: ..."
EMBEDDED_EXCEPTION = re.compile(rf"(?:^|[\s>|:(\[])(?P<type>{EXCEPTION_NAME}):\s(?P<message>\S.*)$")
CHAIN_MARKERS = (
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
)


@dataclass
class Frame:
    file: str
    line: int
    function: str
    code: str = ""

    @property
    def is_library(self) -> bool:
        f = self.file.replace("\\", "/")
        return "site-packages/" in f or "dist-packages/" in f or "/lib/python" in f or f.startswith("<frozen")


@dataclass
class ParsedError:
    type: str
    message: str
    frames: list[Frame] = field(default_factory=list)
    line_no: int = 0  # 1-based line of the exception line in the input
    rank: str | None = None
    in_traceback: bool = False
    chained: bool = False  # a later exception in the same chain follows

    @property
    def headline(self) -> str:
        first = self.message.splitlines()[0] if self.message else ""
        return f"{self.type}: {first}" if first else self.type


class _TracebackState:
    def __init__(self, rank: str | None) -> None:
        self.rank = rank
        self.frames: list[Frame] = []
        self.expect_code = False


def parse(lines: Iterable[str]) -> Iterator[ParsedError]:
    """Yield every error found in ``lines`` in input order."""
    tracebacks: dict[str | None, _TracebackState] = {}
    pending: ParsedError | None = None  # an error whose message may continue
    pending_lines = 0
    for line_no, raw in enumerate(lines, start=1):
        line, rank = clean_line(raw)
        state = tracebacks.get(rank)

        if pending is not None:
            stripped = line.strip()
            continues = (
                stripped
                and pending_lines < MAX_MESSAGE_LINES
                and pending.rank == rank
                and not TRACEBACK_START.match(line)
                and not EXCEPTION_LINE.match(line)
                and stripped not in CHAIN_MARKERS
                and not FRAME.match(line)
                and len(pending.message) < MAX_MESSAGE_CHARS
            )
            if continues:
                pending.message = f"{pending.message}\n{stripped}" if pending.message else stripped
                pending_lines += 1
                continue
            if stripped in CHAIN_MARKERS:
                pending.chained = True
            yield pending
            pending = None

        if TRACEBACK_START.match(line):
            tracebacks[rank] = _TracebackState(rank)
            continue
        if state is not None:
            frame = FRAME.match(line)
            if frame:
                state.frames.append(
                    Frame(frame["file"], int(frame["line"]), (frame["function"] or "").strip())
                )
                if len(state.frames) > MAX_FRAMES:
                    del state.frames[0]
                state.expect_code = True
                continue
            if state.expect_code and line.startswith((" ", "\t")) and line.strip():
                if state.frames and not state.frames[-1].code and not set(line.strip()) <= set("^~ "):
                    state.frames[-1].code = line.strip()
                continue
            m = EXCEPTION_LINE.match(line.strip()) if not line.startswith((" ", "\t")) else None
            if m:
                pending = ParsedError(
                    type=m["type"], message=(m["message"] or "").strip(), frames=state.frames,
                    line_no=line_no, rank=rank, in_traceback=True,
                )
                pending_lines = 0
                del tracebacks[rank]
                continue
            if not line.strip() or line.startswith((" ", "\t")):
                continue
            # Anything else ends a traceback that never produced its exception line (truncated).
            del tracebacks[rank]
        m = EXCEPTION_LINE.match(line.strip()) or EMBEDDED_EXCEPTION.search(line)
        if m:
            pending = ParsedError(
                type=m["type"], message=(m["message"] or "").strip(), line_no=line_no, rank=rank,
            )
            pending_lines = 0
    if pending is not None:
        yield pending
    for rank, state in tracebacks.items():  # truncated tracebacks: frames without an exception line
        if state.frames:
            yield ParsedError(type="", message="", frames=state.frames, rank=rank, in_traceback=True)

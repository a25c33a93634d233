"""Parse error output into exceptions with frames, one line at a time.

Works on a stream so a large log is read in bounded memory: only the frames of
the traceback being read (per rank) and a short window of preceding lines are
held, and each finished error is yielded at once.

Understands:
- Python tracebacks, chained causes ("The above exception was the direct cause",
  "During handling of ..."), DataParallel's "Original Traceback";
- IPython/Jupyter tracebacks (``TypeError   Traceback (most recent call last)``,
  ``File ~/x.py:165, in f``, ``----> 3 code``) and a notebook traceback flattened
  onto one line;
- the bare last line of a traceback, anywhere in a line of prose or a log line,
  and the ``RuntimeError('...')`` repr form;
- C++ context (``Exception raised from ... (most recent call first)``, ``frame #0:``)
  and CUDA advice (``CUDA_LAUNCH_BLOCKING``), which end a message and are not part of it;
- lines that are errors without a Python exception: ``NCCL WARN ...``, CUDA kernel
  assertions (``Indexing.cu:1146: indexSelectLargeIndex: ... Assertion `...` failed.``)
  and NCCL watchdog timeouts.
Errors that are consequences of another error (torchrun's ChildFailedError, NCCL
watchdog timeouts, "worker exited unexpectedly", warnings) carry a ``noise`` reason.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator

from kb.diagnose.textclean import clean_line

MAX_FRAMES = 64
MAX_MESSAGE_LINES = 12
MAX_MESSAGE_CHARS = 8_000
CONTEXT_LINES = 12  # preceding lines kept with each error (for case hints)
AFTER_LINES = 6  # following lines kept with each error (for case hints)
CONTEXT_CHARS = 300
RECENT_FOR_DEDUPE = 16

TB_TEXT = "Traceback (most recent call last)"
TRACEBACK_START = re.compile(r"^\s*(?:Original )?Traceback \(most recent call last\):\s*$")
FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<function>.+?))?\s*$')
EXCEPTION_NAME = (
    r"(?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Warning|Failure|Timeout|Fault)"
)
EXCEPTION_LINE = re.compile(rf"^(?P<type>{EXCEPTION_NAME})(?::\s?(?P<message>.*))?$")
# An exception line not at the start: "ERROR ... RuntimeError: ..." or "E   RuntimeError: ..."
# Not glued to a preceding identifier; anything else may precede it (prose, CJK text: "报错RuntimeError: ...").
EMBEDDED_EXCEPTION = re.compile(rf"(?<![A-Za-z0-9_])(?P<type>{EXCEPTION_NAME})\.?:\s*(?P<message>\S.*)$")
# RuntimeError('CUDA out of memory. ...',)
REPR_EXCEPTION = re.compile(rf"(?:^|[\s(\[])(?P<type>{EXCEPTION_NAME})\((?P<q>['\"])(?P<message>.+?)(?P=q),?\)")
CHAIN_MARKERS = (
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
)
# IPython / Jupyter
IPY_HEADER = re.compile(rf"^(?P<type>{EXCEPTION_NAME})\s{{2,}}Traceback \(most recent call last\)\s*$")
IPY_FRAME = re.compile(
    r"^(?:File (?P<file>.+?):(?P<line>\d+), in (?P<function>.+)"
    r"|Cell In\s*\[\d+\], line (?P<cell_line>\d+)"
    r"|(?P<input><ipython-input-[^>]+>) in (?P<input_function>[^\s(]+)"
    r"|(?P<old_file>[~/.\w][^\s]*\.py) in (?P<old_function>[^\s(]+)\(.*)\s*$"
)
IPY_ARROW = re.compile(r"^\s*-*>\s*(?:\[\d+\]\([^)]*\)\s*)?\d+\s(?P<code>.*)$")
IPY_CONTEXT = re.compile(r"^\s+(?:\[\d+\]\([^)]*\)\s*)?\d+\s")
# rich tracebacks, unboxed by clean_line: "/usr/lib/.../auto_factory.py:472 in from_pretrained", "❱ 472 │ code"
RICH_FRAME = re.compile(r"^(?P<file>(?:[A-Za-z]:)?[^\s:│]*\.py):(?P<line>\d+) in(?: (?P<function>\S+))?$")
RICH_CODE = re.compile(r"^(?P<arrow>❱\s*)?\d+\s*│(?P<code>.*)$")
# Flattened onto one line
INLINE_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<function>[^\s]+))?')
SPLIT_MARKERS = re.compile(
    r"(Traceback \(most recent call last\):|" + "|".join(re.escape(m) for m in CHAIN_MARKERS) + ")"
)
# C++ context and CUDA advice: never part of a message
CPP_CONTEXT = re.compile(r"^\s*(?:Exception raised from .*\(most recent call first\):|frame #\d+:|\[Previous line repeated)")
CUDA_ADVICE = re.compile(
    r"\s*(?:CUDA kernel errors might be asynchronously reported|For debugging consider passing CUDA_LAUNCH_BLOCKING"
    r"|Compile with `?TORCH_USE_CUDA_DSA`?|Device-side assertion tracking was not enabled)"
)
# Errors without a Python exception line
NCCL_WARN = re.compile(r"\bNCCL WARN (?P<message>\S.*)$")
# "Indexing.cu:1146: indexSelectLargeIndex: block: [18,0,0], thread: [5,0,0] Assertion `srcIndex < srcSelectDimSize` failed."
# Threads print concurrently, so lines come interleaved and cut: only the assertion itself is required.
CUDA_ASSERT = re.compile(r"Assertion `(?P<cond>[^`]{1,300})` failed")
CUDA_ASSERT_WHERE = re.compile(r"(?P<src>[\w.-]+\.cuh?):\d+(?:,[\d,]*)?: (?:void )?(?P<function>\w+)")
WATCHDOG = re.compile(r"(?:\[Rank (?P<rank>\d+)\] )?(?P<message>Watchdog caught collective operation timeout: .*)$")
# Messages recognised even when pasted without "RuntimeError: " in front.
KNOWN_MESSAGE = re.compile(
    r"(?:CUDA out of memory\. Tried to allocate|CUDA error: |Expected all tensors to be on the same device"
    r"|expected (?:mat1 and mat2|m1 and m2) to have the same dtype|element 0 of tensors does not require grad"
    r"|The size of tensor a \(\d+\) must match|[\w.]+\(\) got an unexpected keyword argument"
    r"|Duplicate GPU detected|Cannot access gated repo|Access to model \S+ is restricted|You are trying to access a gated repo"
    r"|Your setup doesn't support bf16|DataLoader worker \(pid)"
)
TRIGGERS = re.compile(
    r"Error|xception|Traceback|File |Warning|NCCL|Assertion|Interrupt|Exit|Failure|Timeout|Fault|Cell In|ipython"
    r"|CUDA out of memory|CUDA error|Expected all tensors|to have the same dtype|element 0 of|The size of tensor"
    r"|unexpected keyword|Duplicate GPU|gated repo|is restricted|support bf16|DataLoader worker"
)

NOISE_TYPES = {
    "ChildFailedError": "torchrun's summary that a worker process failed; the worker's own error is the cause",
    "SignalException": "the launcher stopped this process after another process failed",
    "KeyboardInterrupt": "the run was interrupted (Ctrl-C or a kill), not an error of its own",
    "NCCLWatchdogTimeout": "an NCCL timeout on ranks still waiting for a rank that already failed or hung",
}


class Frame:
    """One ``File "...", line N, in f`` entry. (Plain classes, not dataclasses, here and in the
    rest of the diagnose path: importing dataclasses pulls in inspect, a fifth of the start-up.)"""

    __slots__ = ("file", "line", "function", "code")

    def __init__(self, file: str, line: int, function: str, code: str = "") -> None:
        self.file, self.line, self.function, self.code = file, line, function, code

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
            "site-packages/" in f
            or "dist-packages/" in f
            or "/lib/python" in f
            or f.startswith(("<frozen", "<string>", "/usr/lib/"))
            or "huggingface/modules/transformers_modules" in f
        )


class ParsedError:
    """One error found in the input, with its frames and what the parser learnt around it."""

    __slots__ = ("type", "message", "frames", "line_no", "rank", "in_traceback", "chained",
                 "cause_of_previous", "kind", "noise", "repeats", "advice", "context", "after")

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
        kind: str = "python",  # python | nccl | cuda-assert | watchdog
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

    def __repr__(self) -> str:
        return f"ParsedError({self.type!r}, {self.message[:80]!r}, line_no={self.line_no}, rank={self.rank!r})"

    @property
    def headline(self) -> str:
        first = self.message.splitlines()[0] if self.message else ""
        return f"{self.type}: {first}" if first else self.type

    @property
    def short_type(self) -> str:
        return self.type.rsplit(".", 1)[-1]


def noise_reason(error: ParsedError) -> str | None:
    """Why ``error`` is follow-on noise rather than a root cause, or None."""
    short = error.short_type
    if short in NOISE_TYPES:
        return NOISE_TYPES[short]
    if short.endswith("Warning") and error.kind == "python":
        return "a warning, not the error that stopped the run"
    message = error.message.split("\n", 1)[0]
    if "Watchdog caught collective operation timeout" in message or "NCCL communicator was aborted" in message:
        return NOISE_TYPES["NCCLWatchdogTimeout"]
    if "exited unexpectedly" in message and "DataLoader worker" in message:
        return "a DataLoader worker died; the reason (a signal, an exception in the worker) is the cause"
    if short == "CalledProcessError" and "returned non-zero exit status" in message:
        return "a launcher reporting that its child process failed; the child's error is the cause"
    return None


def _special(line: str) -> bool:
    """Lines that are errors or log records of their own, never the continuation of a message."""
    return (
        "Watchdog caught" in line
        or "NCCL WARN" in line
        or "NCCL INFO" in line
        or ("Assertion" in line and CUDA_ASSERT.search(line) is not None)
    )


def expand_flattened(line: str) -> list[str]:
    """Split a traceback that was flattened onto one line back into lines (else ``[line]``)."""
    if len(line) < 60 or 'File "' not in line:
        return [line]
    frames = list(INLINE_FRAME.finditer(line))
    has_marker = TB_TEXT in line or any(m in line for m in CHAIN_MARKERS)
    if len(frames) < 2 and not (has_marker and frames and not TRACEBACK_START.match(line)):
        return [line]
    if len(frames) == 1 and FRAME.search(line) and line.lstrip().startswith('File "'):
        return [line]  # an ordinary frame line
    out: list[str] = []
    for piece in SPLIT_MARKERS.split(line):
        piece = piece.strip()
        if not piece:
            continue
        if piece.startswith("Traceback (most recent") or piece in CHAIN_MARKERS:
            out.append(piece)
            continue
        found = list(INLINE_FRAME.finditer(piece))
        if not found:
            out.append(piece)
            continue
        head = piece[: found[0].start()].strip()
        if head:
            out.append(head)
        for i, m in enumerate(found):
            end = found[i + 1].start() if i + 1 < len(found) else len(piece)
            out.append("  " + m.group(0))
            rest = piece[m.end(): end].strip()
            if not rest:
                continue
            e = EMBEDDED_EXCEPTION.search(rest) if i + 1 == len(found) else None
            if e:
                code = rest[: e.start("type")].strip()
                if code:
                    out.append("    " + code)
                out.append(rest[e.start("type"):])
            else:
                out.append("    " + rest)
    return out


def context_text(raw: str) -> str:
    """A raw line kept around an error (before or after it), cleaned and cut for hint matching."""
    return clean_line(raw[: CONTEXT_CHARS * 2])[0][:CONTEXT_CHARS].strip()


class _TracebackState:
    def __init__(self, rank: str | None, ipython_type: str | None = None) -> None:
        self.rank = rank
        self.frames: list[Frame] = []
        self.expect_code = False
        self.ipython_type = ipython_type


class _Parser:
    def __init__(self) -> None:
        self.tracebacks: dict[str | None, _TracebackState] = {}
        self.pending: ParsedError | None = None
        self.pending_lines = 0
        self.context: deque[str] = deque(maxlen=CONTEXT_LINES)
        self.recent: deque[tuple[str, str]] = deque(maxlen=RECENT_FOR_DEDUPE)
        self.recent_errors: dict[tuple[str, str], ParsedError] = {}
        self.chain_next = False  # a chain marker was seen: the next error is caused by the previous
        self.last: ParsedError | None = None  # the last error emitted

    @staticmethod
    def _context(raw_lines: list[str]) -> list[str]:
        """Clean the raw lines kept before an error (kept raw while streaming: most are never used)."""
        return [text for text in map(context_text, raw_lines) if text]

    # -- emitting -------------------------------------------------------------------------------
    def _finish(self, error: ParsedError) -> ParsedError | None:
        """Finalise an error; return it, or None when it repeats a recent identical one."""
        error.message = CUDA_ADVICE.split(error.message, maxsplit=1)[0].rstrip() if error.message else ""
        error.noise = noise_reason(error)
        if error.kind == "cuda-assert":  # the same failed condition, whichever thread or cut line printed it
            basis = error.message[error.message.find("Assertion"): error.message.find("failed")]
        else:
            basis = error.message
        key = (error.short_type, re.sub(r"\d+", "#", basis[:300]))
        if key in self.recent_errors and not error.frames:
            self.recent_errors[key].repeats += 1
            return None
        if key in self.recent_errors and error.frames and not error.cause_of_previous:
            self.recent_errors[key].repeats += 1
            return None
        if error.in_traceback and not error.type and self.chain_next:
            error.cause_of_previous = True  # a truncated traceback after a chain marker
            self.chain_next = False
        self.last = error
        error.context = self._context(error.context)  # cleaned only for errors that are kept
        if len(self.recent) == self.recent.maxlen:
            self.recent_errors.pop(self.recent[0], None)
        self.recent.append(key)
        self.recent_errors[key] = error
        return error

    def _start(self, error: ParsedError, lead: str = "") -> None:
        error.context = list(self.context)
        if lead.strip():  # prose before the error on its own line: "while running sft_train: ..."
            error.context = error.context[-(CONTEXT_LINES - 1):] + [lead]
        if self.chain_next:
            error.cause_of_previous = True
            self.chain_next = False
        self.pending = error
        self.pending_lines = 0

    def _flush(self) -> Iterator[ParsedError]:
        if self.pending is not None:
            done = self._finish(self.pending)
            self.pending = None
            if done is not None:
                yield done

    # -- one cleaned line -----------------------------------------------------------------------
    def feed(self, line: str, rank: str | None, line_no: int) -> Iterator[ParsedError]:
        stripped = line.strip()
        pending = self.pending
        if pending is not None:
            if stripped in CHAIN_MARKERS:
                pending.chained = True
                self.chain_next = True
                yield from self._flush()
                return
            if CUDA_ADVICE.match(line) or CPP_CONTEXT.match(line):
                pending.advice.append(stripped[:200])
                yield from self._flush()
                return
            continues = (
                stripped
                and self.pending_lines < MAX_MESSAGE_LINES
                and pending.rank == rank
                and pending.kind == "python"
                and not TRACEBACK_START.match(line)
                and not EXCEPTION_LINE.match(stripped)
                and not FRAME.search(line)
                and not IPY_HEADER.match(line)
                and not _special(line)
                and len(pending.message) < MAX_MESSAGE_CHARS
            )
            if continues:
                pending.message = f"{pending.message}\n{stripped}" if pending.message else stripped
                self.pending_lines += 1
                return
            yield from self._flush()

        if stripped in CHAIN_MARKERS:
            self.chain_next = True
            if self.last is not None:
                self.last.chained = True
            return
        if CUDA_ADVICE.match(line) or CPP_CONTEXT.match(line):
            return
        if TRACEBACK_START.match(line):
            self.tracebacks[rank] = _TracebackState(rank)
            return
        m = IPY_HEADER.match(line)
        if m:
            self.tracebacks[rank] = _TracebackState(rank, ipython_type=m["type"])
            return

        state = self.tracebacks.get(rank)
        if state is None and 'File "' in line and FRAME.search(line):
            # A traceback pasted without its "Traceback (most recent call last):" header.
            state = self.tracebacks[rank] = _TracebackState(rank)
        if state is not None:
            if (yield from self._in_traceback(state, line, stripped, rank, line_no)):
                return

        if not TRIGGERS.search(line):
            return
        yield from self._loose_line(line, stripped, rank, line_no)

    def _in_traceback(
        self, state: _TracebackState, line: str, stripped: str, rank: str | None, line_no: int
    ) -> Iterator[ParsedError]:
        """Handle a line while a traceback is open; returns True when the line was consumed."""
        frame = FRAME.search(line)
        if frame:
            self._add_frame(state, frame["file"], int(frame["line"]), (frame["function"] or "").strip())
            return True
        if "│" in line or line.endswith(".py") or ".py:" in line:
            m = RICH_FRAME.match(stripped)
            if m:
                self._add_frame(state, m["file"], int(m["line"]), m["function"] or "")
                return True
            m = RICH_CODE.match(stripped)
            if m:
                if m["arrow"] and state.frames:
                    state.frames[-1].code = m["code"].replace("│", " ").strip()[:300]
                return True
        if state.frames and not state.frames[-1].function and stripped.isidentifier():
            state.frames[-1].function = stripped  # rich wraps a long path: the function name comes next
            return True
        if state.ipython_type is not None:
            m = IPY_FRAME.match(stripped)
            if m:
                if m["file"]:
                    self._add_frame(state, m["file"], int(m["line"]), m["function"].strip())
                elif m["cell_line"]:
                    self._add_frame(state, "<notebook cell>", int(m["cell_line"]), "<module>")
                elif m["input"]:
                    self._add_frame(state, m["input"], 0, m["input_function"])
                else:
                    self._add_frame(state, m["old_file"], 0, m["old_function"])
                return True
            arrow = IPY_ARROW.match(line)
            if arrow and state.frames:
                state.frames[-1].code = arrow["code"].strip()[:300]
                return True
            if IPY_CONTEXT.match(line) or not stripped:
                return True
        if state.expect_code and line.startswith((" ", "\t")) and stripped:
            if state.frames and not state.frames[-1].code and not set(stripped) <= set("^~ "):
                state.frames[-1].code = stripped[:300]
            return True
        m = EXCEPTION_LINE.match(stripped) if not line.startswith((" ", "\t")) else None
        if m is None and not line.startswith((" ", "\t")):
            e = EMBEDDED_EXCEPTION.search(line)  # "torch.distributedtorch.distributed.DistBackendError.: ..."
            m = e if e and e.start("type") < 40 else None
        if m:
            error = ParsedError(
                type=m["type"], message=(m["message"] or "").strip(), frames=state.frames,
                line_no=line_no, rank=rank, in_traceback=True,
            )
            del self.tracebacks[rank]
            yield from self._flush()
            self._start(error)
            return True
        if not stripped or line.startswith((" ", "\t")):
            return True
        if CPP_CONTEXT.match(line) or "Loading checkpoint shards" in line or stripped.startswith(("...", "^")):
            return True
        # Anything else ends a traceback that never produced its exception line (truncated).
        del self.tracebacks[rank]
        if state.frames:
            error = ParsedError(type=state.ipython_type or "", message="", frames=state.frames, rank=rank,
                                in_traceback=True, line_no=line_no)
            error.context = list(self.context)
            done = self._finish(error)
            if done is not None:
                yield done
        return False

    def _add_frame(self, state: _TracebackState, file: str, line: int, function: str) -> None:
        state.frames.append(Frame(file[:500], line, function[:200]))
        if len(state.frames) > MAX_FRAMES:
            del state.frames[0]
        state.expect_code = True

    def _loose_line(self, line: str, stripped: str, rank: str | None, line_no: int) -> Iterator[ParsedError]:
        """An error line outside any traceback: a bare last line, a log line, NCCL or CUDA text."""
        if "NCCL WARN" in line:
            m = NCCL_WARN.search(line)
            if m:
                error = ParsedError("NCCLWarning", m["message"].strip(), line_no=line_no, rank=rank, kind="nccl")
                error.context = list(self.context)
                done = self._finish(error)
                if done:
                    yield done
                return
        if "Assertion" in line:
            m = CUDA_ASSERT.search(line)
            if m:
                where = CUDA_ASSERT_WHERE.search(line)
                name, src = (where["function"], where["src"]) if where else ("kernel", "?")
                message = f"{name}: Assertion `{m['cond']}` failed. ({src})"
                error = ParsedError("CUDAAssertion", message, line_no=line_no, rank=rank, kind="cuda-assert")
                error.context = list(self.context)
                done = self._finish(error)
                if done:
                    yield done
                return
        if "Watchdog caught" in line:
            m = WATCHDOG.search(line)
            if m:
                error = ParsedError("NCCLWatchdogTimeout", m["message"].strip(), line_no=line_no,
                                    rank=rank or m["rank"], kind="watchdog")
                done = self._finish(error)
                if done:
                    yield done
                return
        m = EXCEPTION_LINE.match(stripped) or EMBEDDED_EXCEPTION.search(line)
        if m is None:
            r = REPR_EXCEPTION.search(line)
            if r:
                error = ParsedError(r["type"], r["message"].strip(), line_no=line_no, rank=rank)
                error.context = list(self.context)
                done = self._finish(error)
                if done:
                    yield done
                return
            known = KNOWN_MESSAGE.search(stripped)
            if known is not None:
                # A well-known message pasted without its exception type, maybe inside prose or quotes.
                self._start(ParsedError(type="", message=stripped[known.start():], line_no=line_no, rank=rank),
                            lead=stripped[: known.start()])
            return
        message = (m["message"] or "").strip()
        if message.endswith("`") and message.count("`") % 2 == 1:
            message = message[:-1].rstrip()
        self._start(ParsedError(type=m["type"], message=message, line_no=line_no, rank=rank), lead=line[: m.start()])

    def end(self) -> Iterator[ParsedError]:
        yield from self._flush()
        for rank, state in self.tracebacks.items():  # truncated tracebacks: frames without an exception line
            if state.frames:
                error = ParsedError(type=state.ipython_type or "", message="", frames=state.frames, rank=rank,
                                    in_traceback=True)
                error.context = list(self.context)
                done = self._finish(error)
                if done is not None:
                    yield done


# Literal substrings, at least one of which every line the parser acts on contains (TRIGGERS as
# plain text). A block of log text is searched for them with str.find, which is far faster than
# running a regex on every line; only the lines they occur on, and the lines after them while a
# traceback or message is open, go through the parser.
TRIGGER_TOKENS = (
    "Error", "xception", "Traceback", "File ", "Warning", "NCCL", "Assertion", "Interrupt", "Exit",
    "Failure", "Timeout", "Fault", "CUDA ", "Expected all", "same dtype", "element 0", "size of tensor",
    "unexpected keyword", "Duplicate GPU", "gated repo", "is restricted", "support bf16", "DataLoader worker",
)
CHUNK_LINES = 4096


def trigger_lines(text: str, tokens: tuple[str, ...] = TRIGGER_TOKENS) -> list[int]:
    """Indices of the lines of ``text`` (split on "\\n") that contain any of ``tokens``, ascending."""
    positions: set[int] = set()
    for token in tokens:
        start = text.find(token)
        while start != -1:
            end = text.find("\n", start)
            positions.add(text.rfind("\n", 0, start) + 1)  # start of that line
            if end == -1:
                break
            start = text.find(token, end + 1)
    indices = []
    line, last = 0, 0
    for pos in sorted(positions):
        line += text.count("\n", last, pos)
        last = pos
        indices.append(line)
    return indices


def chunk_lines(lines: Iterable[str], size: int = CHUNK_LINES) -> Iterator[tuple[str, list[str]]]:
    """Group an iterable of lines into (text, lines) chunks, the form parse_chunks takes."""
    batch: list[str] = []
    for line in lines:
        batch.append(line.rstrip("\n").replace("\n", " "))
        if len(batch) >= size:
            yield "\n".join(batch), batch
            batch = []
    if batch:
        yield "\n".join(batch), batch


def parse_chunks(chunks: Iterable[tuple[str, list[str]]]) -> Iterator[ParsedError]:
    """Yield every error in the chunks, in input order.

    Each chunk is ``(text, lines)`` with ``text == "\\n".join(lines)``. Lines that hold no
    trigger token are skipped unless a traceback or message is open; they only feed the short
    window of context lines kept for each error.
    """
    parser = _Parser()
    context = parser.context
    trailing: list[ParsedError] = []  # errors still collecting the lines after them

    def follow(following: list[str]) -> None:
        """Give the errors still collecting their following lines these next lines."""
        for error in trailing:
            for raw in following[: AFTER_LINES - len(error.after)]:
                text = context_text(raw)
                if text:
                    error.after.append(text)
        trailing[:] = [e for e in trailing if len(e.after) < AFTER_LINES]

    base = 0
    for text, lines in chunks:
        hits = trigger_lines(text)
        h = 0
        i = 0
        n = len(lines)
        while i < n:
            if parser.pending is None and not parser.tracebacks:
                while h < len(hits) and hits[h] < i:
                    h += 1
                if h == len(hits):
                    if trailing:
                        follow(lines[i:i + AFTER_LINES])
                    context.extend(lines[max(i, n - CONTEXT_LINES):n])
                    break
                j = hits[h]
                if j > i:
                    if trailing:
                        follow(lines[i:min(j, i + AFTER_LINES)])
                    context.extend(lines[max(i, j - CONTEXT_LINES):j])
                    i = j
            raw = lines[i]
            line_no = base + i + 1
            line, rank = clean_line(raw)
            if trailing and raw:
                follow([raw])
            found: list[ParsedError] = []
            for piece in expand_flattened(line):
                found.extend(parser.feed(piece, rank, line_no))
            if parser.pending is not None and parser.pending.line_no == line_no and raw.rstrip().endswith("`"):
                found.extend(parser._flush())  # `Error: message` in inline code: the message ends here
            if found:
                first_after = context_text(raw)
                for error in found:
                    if error.line_no < line_no and first_after:  # this line ended it: it is the first after
                        error.after.append(first_after)
                    trailing.append(error)
                    yield error
            if raw:
                context.append(raw)
            i += 1
        base += n
    yield from parser.end()


def parse(lines: Iterable[str]) -> Iterator[ParsedError]:
    """Yield every error found in ``lines`` in input order."""
    return parse_chunks(chunk_lines(lines))

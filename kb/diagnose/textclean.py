"""Normalise one line of pasted log text: colours, rank and log prefixes, markdown.

Users paste error output from terminals (ANSI colours, progress bars), from
torchrun/accelerate/mpirun logs (``[rank3]:``, ``[default0]:``, ``[1,3]<stdout>:``),
through logging setups (timestamps, ``INFO -``, glog ``[E321 02:07:08.408 file.cpp:607]``)
and from issue threads (``> `` quotes, code fences, backticks). ``clean_line``
strips all of that so the parser sees the text Python printed.
"""

from __future__ import annotations

from kb.knowledge.precompiled import pattern as _compile

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator


class _Lazy:
    """A regex compiled on first use, not at import (`kb diagnose`'s start-up; most lines need few of
    them): the first use makes the module's global the compiled pattern itself, so clean_line pays the
    indirection once. A module that imported the name keeps this object, which forwards (kb/knowledge/precompiled.py
    keeps the compiled pattern)."""

    __slots__ = ("name", "source")

    def __init__(self, name: str, source: str) -> None:
        self.name, self.source = name, source

    def __getattr__(self, attr: str) -> object:
        compiled = globals()[self.name] = _compile(self.source)
        return getattr(compiled, attr)


# (an OSC title ends at BEL or ST (ESC \\: a hyperlink's address, OSC 8, is not shown either) and holds no ESC:
# ``[^\x07\x1b]``, else each ESC ] of a line scanned to its end)
ANSI = _Lazy("ANSI", r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# An escape sequence a saved notebook wrote as text (JSON's "\u001b[0;31m", "\x1b[0m") or whose ESC a paste lost
# ("[0;31mOutOfMemoryError[0m   Traceback ..."): looked for only in a line that holds such a text escape or a reset.
ANSI_TEXT = _Lazy("ANSI_TEXT", r"(?:\\u001b|\\x1b|\\033)\[[0-9;]{0,32}[A-Za-z]|\[(?:[0-9]{1,3};){0,8}[0-9]{1,3}m")
ANSI_TEXT_MARKS = ("[0m", "\\u001b[", "\\x1b[", "\\033[")
# torchrun / accelerate / deepspeed prefixes: "[rank3]:", "[default0]:", "rank3: "; mpirun "[1,3]<stdout>:"
RANK_PREFIX = _Lazy("RANK_PREFIX",
    r"^\s*(?:\[(?:rank|default|RANK)\s?(?P<rank>\d+)\]:?\s?|\[\d+,(?P<mpi>\d+)\]<std(?:out|err)>:\s?|rank(?P<bare>\d+):\s)"
)
# A log viewer's own line numbers: "[1745] text"
LINE_NUMBER = _Lazy("LINE_NUMBER", r"^\s*\[\d{1,9}\]\s(?=\S)")
# "2025-04-21 10:00:01,123 - INFO - ", "[2025-04-21 10:00:01]", "2025-04-21T10:00:01.123Z ", "18:57:53-195282 ERROR ",
# a colon after the time: "2024-09-26 07:59:39.732000: [rank2]: ", "[01:17:10.938]: "; a container runtime's log file
# (CRI: Kubernetes nodes' /var/log/pods, what log collectors ship): the stream and a full/partial tag after the time,
# "2026-11-27T09:55:52.010000Z stderr F "
# (``\s*(?:[-|]\s*)?``, not ``\s*[-|]?\s*``: two repeats over the same spaces split a long run of them
# every possible way before giving up; see kb/diagnose/patterns.py on linear patterns)
TIMESTAMP = _Lazy("TIMESTAMP",
    r"^\s*(?:\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?:?|\[?\d{2}:\d{2}:\d{2}[.,-]\d+\]?:?)"
    r"(?: std(?:out|err) [FP](?= |$))?(?:\s*(?:[-|]\s*)?(?:[\w.]+\s*[-|:]\s*)?(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s*[-|:]?)?\s?"
)
# glog (c10 / NCCL): "[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] ", "[W ProcessGroupNCCL.cpp:737] "
GLOG = _Lazy("GLOG", r"^\[[IWEF](?:\d{3,4} \d{2}:\d{2}:\d{2}\.\d+ (?:\d+ )?)?\s*[\w.]+:\d+\]\s?")
# torch's own log records (torch.distributed.elastic, torch._dynamo: glog's fields without the opening bracket, the
# source as a path): "E0822 16:10:35.525161 139625595627328 torch/distributed/elastic/multiprocessing/api.py:833] "
TORCH_LOG = _Lazy("TORCH_LOG", r"^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+ (?:\d+ )?[\w./-]{1,300}:\d+\] ?")
# Python logging without a timestamp: "ERROR: ", "INFO:root:" (only the level word, never "RuntimeError:")
LEVEL_PREFIX = _Lazy("LEVEL_PREFIX", r"^(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)(?::[\w.]*)?:\s?")
QUOTE = _Lazy("QUOTE", r"^\s{0,3}(?:>\s?)+")
# Prefixes a launcher or a viewer puts on every line of a worker's output (each is only cut: what follows is the
# worker's own text). Ray: "(RayTrainWorker pid=2345, ip=10.0.0.1) ", "(pid=123) ".
RAY_PREFIX = _Lazy("RAY_PREFIX", r"^\((?:[\w.:-]{1,64} )?pid=\d{1,10}(?:, ip=[\w.:-]{1,64})?\)\s?")
# pdsh (DeepSpeed's multi-node launcher) "worker-1: ", "10.0.0.1: ", "localhost: "; srun --label "0: ". A host
# holds a digit (or is localhost), is not torchrun's "rank3: " (RANK_PREFIX), is no exception class ("HTTP2Error:  x" keeps its type), and is cut only before
# what a traceback's lines start with: its header, indentation, an exception line.
HOST_PREFIX = _Lazy("HOST_PREFIX",
    r"^(?!rank\d)(?P<host>localhost|(?=[\w.-]{0,63}\d)[A-Za-z0-9][\w.-]{0,62})"
    r"(?<!Error)(?<!Exception)(?<!Warning): (?=Traceback \(most recent|[ \t]"
    r"|(?:[A-Za-z_]\w*\.){0,8}[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Warning|Failure|Timeout|Fault)\b)"
)
# A quoting or a viewer's column: "| " (an ExceptionGroup's "  | ", a paste quoted with pipes) and docker compose's
# "trainer-1  | ". A markdown table's row ends with "|" too and is left alone.
PIPE_PREFIX = _Lazy("PIPE_PREFIX", r"^\s{0,8}(?:[\w.-]{1,64}\s{1,16})?\|(?: |$)")
# pytest's failure report: "E       RuntimeError: ...", "E   Traceback ..."
PYTEST_PREFIX = _Lazy("PYTEST_PREFIX", r"^E {1,8}(?=\S)")
FENCE = _Lazy("FENCE", r"^\s*(?:```|~~~|'''|\"\"\")[\w+-]*\s*$")
# A fence glued to text: "```python x = 1" or "```Duplicate GPU detected ...```". Only a known language
# tag is dropped with the fence, so the first word of a pasted message survives. (A closing fence starts
# after a character that is not a backtick: else a line of backticks was retried from each of them.)
INLINE_FENCE = _Lazy("INLINE_FENCE",
    r"^\s*```+(?:(?:python3?|py|pytb|pycon|bash|sh|zsh|shell|console|shell-session|powershell|ps1|cmd|text|txt"
    r"|plaintext|log|json|ya?ml|diff|cpp|c\+\+)\s+)?(?=\S)|(?<=[^\s`])\s*```+\s*$"
)
_TORCH_LOG_LEVELS = ("I", "W", "E", "F")
CURLY = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'", "\u00a0": " "})


# a rich traceback's frame line of code once unboxed ("❱ 12 │ code"): the code kb quotes as "your code"
_RICH_CODE_LINE = _Lazy("_RICH_CODE_LINE", r"❱\s*[0-9]+\s*│")
# rich / accelerate tracebacks draw a box: "╭──── Traceback (most recent call last) ────╮", "│ ... │", "╰───╯"
BOX_CHARS = "╭│╰"


def _rich_box(line: str) -> str:
    """Unbox a line of a rich traceback: the header becomes Python's, body lines keep their text, indented."""
    if line[0] == "╭":
        return "Traceback (most recent call last):" if "Traceback" in line else ""
    if line[0] == "╰":
        return ""
    inner = line[1:].rstrip()
    if inner.endswith("│"):
        inner = inner[:-1]
        if inner[-1:] == " " and inner[-2:-1] not in (" ", "") and _RICH_CODE_LINE.match(inner.lstrip()):
            # a code line that reaches the box's edge: rich cut it there and goes on on the next line, so its last
            # word may be the head of a token, which redaction would see alone: dropped, as clip drops the word
            # its limit falls in
            inner = inner.rstrip().rpartition(" ")[0] + " …"
    inner = inner.strip()
    return " " + inner if inner else ""  # indented like a traceback body, never longer than the line


def _take_rank(line: str) -> tuple[str, str | None]:
    """Strip a leading rank prefix; return (rest of the line, rank or None)."""
    if "[" not in line and "rank" not in line:  # every form holds one (a fast test before the regex)
        return line, None
    if line.lstrip()[:1] not in ("[", "r"):  # every form starts with one after spaces (a progress bar does not)
        return line, None
    m = RANK_PREFIX.match(line)
    if m is None:
        return line, None
    return line[m.end():], m["rank"] or m["mpi"] or m["bare"]


# A captured stream's name before each of its lines: accelerate's test utilities and other wrappers that run a child
# process print "stderr: Traceback (most recent call last):", "stdout: ...".
STREAM_NAMES = ("stderr: ", "stdout: ", "STDERR: ", "STDOUT: ")


def _take_worker(line: str) -> tuple[str, str | None]:
    """Cut a launcher's or viewer's per-line prefix (RAY_PREFIX, PYTEST_PREFIX, PIPE_PREFIX, STREAM_NAMES, HOST_PREFIX):
    (the rest, the task number srun's label gives, else None). Each is tried only where its first characters can be."""
    first = line[:1]
    if first in ("s", "S") and line.startswith(STREAM_NAMES):
        return line[8:], None
    if first == "(" and "pid=" in line[:80]:
        m = RAY_PREFIX.match(line)
        if m:
            return line[m.end():], None
    if first == "E" and line[1:2] == " ":
        m = PYTEST_PREFIX.match(line)
        if m:
            return line[m.end():], None
    if "|" in line[:100] and not line.rstrip().endswith("|"):
        m = PIPE_PREFIX.match(line)
        if m:
            return line[m.end():], None
    if first.isalnum() and ": " in line[:72]:
        m = HOST_PREFIX.match(line)
        if m:
            host = m["host"]
            return line[m.end():], host if host.isdigit() else None
    return line, None


def _notebook_text(line: str) -> str:
    """``line`` without escape sequences written as text; an element of a saved notebook's traceback array that held
    them (``  "\\u001b[0;31mKeyError\\u001b[0m: 'x'",``) is unquoted to its text (its ``\\n`` stay: expand_flattened)."""
    cleaned = ANSI_TEXT.sub("", line)
    if cleaned == line:
        return line
    stripped = cleaned.strip()
    if len(stripped) > 1 and stripped[0] == '"' and stripped.endswith(('"', '",')):
        cleaned = stripped[1:-2 if stripped.endswith('",') else -1].replace('\\"', '"').replace("\\\\", "\\")
    return cleaned


def _docker_record(line: str) -> str:
    """(turn 40) A record of Docker's json-file log (``{"log":"...\\n","stream":"stderr","time":"..."}``, the file
    `docker logs` reads) as the text it holds: a line longer than 16 KiB is split into records whose "log" has no line
    end, and the next record's text is the rest of the line (it continues the message, where redaction joins the
    two). ``line`` as it is when it is no such record."""
    import json

    try:
        record = json.loads(line)
    except ValueError:
        return line
    text = record.get("log") if isinstance(record, dict) and "stream" in record else None
    return text.rstrip("\r\n") if isinstance(text, str) else line


def clean_line(raw: str) -> tuple[str, str | None]:
    """Return (line without decoration, rank or None)."""
    if raw[:8] == '{"log":"' and raw.rstrip()[-1:] == "}":
        raw = _docker_record(raw.rstrip())
    line = (ANSI.sub("", raw) if "\x1b" in raw else raw).rstrip("\r\n")  # (every sequence starts with ESC)
    if "[" in line and any(mark in line for mark in ANSI_TEXT_MARKS):
        line = _notebook_text(line)
    if "\r" in line:  # progress bars redraw with carriage returns: keep the last state
        line = line.rsplit("\r", 1)[-1]
    if "\x00" in line:
        line = line.replace("\x00", "")
    # (each prefix pattern is anchored at the start: cutting at its match's end is its sub(count=1))
    if line[:1] in (">", " ") and line.lstrip()[:1] == ">":
        m = QUOTE.match(line)
        if m:
            line = line[m.end():]
    line, worker = _take_worker(line)
    if "```" in line or "~~~" in line or "'''" in line or '"""' in line:
        if FENCE.match(line):
            return "", None
        line = INLINE_FENCE.sub("", line)
    m = LINE_NUMBER.match(line) if "[" in line and line.lstrip()[:1] == "[" else None
    if m:
        line = line[m.end():]
    line, rank = _take_rank(line)
    if line[:1] == "[":
        m = GLOG.match(line)
        if m:
            line = line[m.end():]
    if line[:1].isdigit() or line[:2] == " [" or line[:1] == "[":
        m = TIMESTAMP.match(line)
        if m:
            line = line[m.end():]
    if line[:1] in _TORCH_LOG_LEVELS and line[1:2].isdigit():
        m = TORCH_LOG.match(line)
        if m:
            line = line[m.end():]
    if rank is None and worker is not None:  # srun's task number, where no rank prefix gave one
        rank = worker
    if rank is None and ("[" in line or "rank" in line):  # "2024-11-20 14:37:16 [rank3]: ..." puts the rank after the timestamp
        line, rank = _take_rank(line)
    if line[:1] == "[":
        m = GLOG.match(line)
        if m:
            line = line[m.end():]
    if line[:1].isupper():
        m = LEVEL_PREFIX.match(line)
        if m:
            line = line[m.end():]
    if line and line[0] in BOX_CHARS:
        line = _rich_box(line)
    if line[:1] == "`" or line[-1:] == "`":
        stripped = line.strip()
        if len(stripped) > 2 and stripped[0] == "`" and stripped[-1] == "`" and stripped.count("`") == 2:
            line = stripped[1:-1]
    if not line.isascii():
        line = line.translate(CURLY)
    return line, rank


# A container runtime's log record (CRI: a Kubernetes node's /var/log/pods, what log collectors ship): its time, its
# stream and a tag, F for a full line, P for a partial one: the runtime split a long line (containerd at 16 KiB) and
# the next record of the same stream goes on with it ("... stderr P <head>", then "... stderr F <rest>").
CRI_RECORD = _Lazy("CRI_RECORD",
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2}) (?P<stream>stdout|stderr) (?P<tag>[FP])(?: |$)")
CRI_PARTIAL_MARKS = (" stderr P ", " stdout P ")
# A partial record waits at most this many records of the other stream for its rest (else it is read as it is),
# and a joined line holds at most JOINED_CHARS characters (the input's own cut of a line: kb/diagnose/input.py).
PARTIAL_WAIT = 64
JOINED_CHARS = 64 * 1024


class _Partial:
    """A partial record waiting for its rest: where its line is in the output, its text so far."""

    __slots__ = ("at", "head", "pieces", "size", "waited")

    def __init__(self, at: int, head: str, text: str) -> None:
        self.at, self.head, self.pieces, self.size, self.waited = at, head, [text], len(text), 0

    def line(self, tag: str) -> str:
        """The record as one line: its head (time and stream), ``tag`` (F when its rest came, P when not), its text."""
        return f"{self.head}{tag} {''.join(self.pieces)}"


def _join_records(lines: list[str]) -> tuple[list[str], int]:
    """``lines`` with each run of partial CRI records joined to the record of the same stream that ends it (at the
    first record's place), and where the first record still waiting for its rest is (``len(out)`` when none)."""
    out: list[str] = []
    waiting: dict[str, _Partial] = {}
    for line in lines:
        m = CRI_RECORD.match(line) if line[:2].isdigit() else None
        stream = m["stream"] if m is not None else ""
        for other, late in list(waiting.items()):
            if other != stream:
                late.waited += 1
                if late.waited > PARTIAL_WAIT:  # its rest never came: read as it is, with the pieces joined so far
                    if len(late.pieces) > 1:
                        out[late.at] = late.line("P")
                    del waiting[other]
        if m is None:
            out.append(line)
            continue
        tag = m["tag"]
        partial = waiting.get(stream)
        if partial is None:
            out.append(line)
            if tag == "P":
                waiting[stream] = _Partial(len(out) - 1, line[:m.start("tag")], line[m.end():])
            continue
        text = line[m.end():]
        if partial.size < JOINED_CHARS:
            text = text[:JOINED_CHARS - partial.size]
            partial.pieces.append(text)
            partial.size += len(text)
        if tag == "F":
            out[partial.at] = partial.line("F")
            del waiting[stream]
    first = min((p.at for p in waiting.values()), default=len(out))
    if first < len(out):  # joined so far, for the next chunk: the records from the first still waiting are read again
        for partial in waiting.values():
            out[partial.at] = partial.line("P")
    return out, first


def join_partial_records(chunks: Iterable[tuple[str, list[str]]],
                         joined: list[int] | None = None) -> Iterator[tuple[str, list[str]]]:
    """The chunks with a container runtime's partial records (CRI_RECORD's P) joined to the records that end them: a
    long error line the runtime split parses whole. Only a chunk whose first line is a CRI record and that holds a
    partial record is rewritten (one search of its text); a partial record at a chunk's end waits for the next.
    ``joined`` gets the number of lines each rewritten chunk lost (the records joined to the ones before them)."""
    from kb.diagnose.input import hand_out

    carry: list[str] = []
    for text, lines in chunks:
        if carry:
            lines = carry + lines
            text = "\n".join(lines)
            carry = []
        elif not (lines and lines[0][:2].isdigit() and CRI_RECORD.match(lines[0])
                  and any(mark in text for mark in CRI_PARTIAL_MARKS)):
            yield text, lines
            continue
        out, first = _join_records(lines)
        if joined is not None and len(out) < len(lines):
            joined.append(len(lines) - len(out))
        if first < len(out):
            out, carry = out[:first], out[first:]
        if out:
            yield hand_out("\n".join(out), out)
    if carry:
        yield hand_out("\n".join(carry), carry)

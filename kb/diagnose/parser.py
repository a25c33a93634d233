"""The line-by-line parser: error output into exceptions with frames.

Only the frames of the traceback being read (per rank) and a short window of preceding lines
are held, and each finished error is yielded at once (kb/diagnose/stream.py feeds it).

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

# collections.deque itself, from the built-in module that defines it: importing the collections package (and
# functools, for lru_cache) costs ~3 ms of `kb diagnose`'s start-up (keyword, operator, reprlib...).
from _collections import deque

from kb.diagnose.errors import Frame, ParsedError, RankCounter, noise_reason
from kb.diagnose.redact import clip
from kb.diagnose import patterns  # (its regexes as patterns.NAME: each built on first use)
from kb.diagnose.patterns import (
    CHAIN_MARKERS, CLI_ERROR_LITERALS, CONTEXT_CHARS, CONTEXT_LINES, CPP_TERMINATE, CPP_WHAT, MAX_CPP_CLASS_CHARS,
    MAX_PROGRAM_CHARS, USAGE_ERROR_LINES, USAGE_LITERALS, EXCEPTION_NAME, IMPLIED_ENDINGS, IMPLIED_LITERALS,
    IMPLIED_MESSAGES, IPYTHON_HEADER_COLUMN, MAX_FRAMES, MAX_MESSAGE_CHARS, MAX_MESSAGE_LINES, MAX_OPEN_TRACEBACKS,
    MAX_TYPE_CHARS, RECENT_FOR_DEDUPE, TB_TEXT,
)
from kb.diagnose.textclean import clean_line
from kb.knowledge.precompiled import Deferred
from kb.knowledge.precompiled import pattern as _compile

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator
    from typing import Any


_ENDS: list[re.Pattern[str]] = []


def _ends_message() -> re.Pattern[str]:
    """_ENDS_MESSAGE as one regex, compiled on first use."""
    if not _ENDS:
        from kb.knowledge.precompiled import escape

        _ENDS.append(_compile("|".join(escape(token) for token in _ENDS_MESSAGE)))
    return _ENDS[0]


def default_noise_rules() -> list[dict[str, Any]]:
    """tables/noise.toml's rules, for a parser built without the knowledge (tests, tools); `kb diagnose`
    passes the cached ones (kb/knowledge/index.py)."""
    from kb.knowledge.tables import read_table

    return read_table("noise")["rule"]

_LIBRARY_FOLDERS: list[frozenset[str]] = []


def _cut_library_path(path: str) -> bool:
    """(runtime46) Whether a frame's path whose head an excerpt cut off (or its writer hid: "**/", ".../") starts at
    the package folder of a library kb knows (tables/libraries.toml): "**/deepspeed/runtime/zero/stage_1_and_2.py",
    "/trl/trainer/grpo_trainer.py". Such a frame is the library's installed code; the table is read the first time."""
    if not _LIBRARY_FOLDERS:
        from kb.knowledge.tables import read_table

        _LIBRARY_FOLDERS.append(frozenset(lib["name"].replace("-", "_") for lib in read_table("libraries")["library"]))
    head = path.replace("\\", "/").lstrip("*./…~").split("/", 1)
    return len(head) == 2 and head[0] in _LIBRARY_FOLDERS[0]


# Words at least one of which every line the parser acts on contains, whatever the knowledge.
STRUCTURAL_TOKENS = (
    "Error", "xception", "Traceback", "File ", "Warning", "NCCL", "Assertion", "Interrupt", "Exit",
    "Failure", "Timeout", "Fault", "Cell In", "ipython", "CUDA ", "StopIteration", ".errors.", ".exc.",
    "terminate called after",
    '.py", line ',  # (runtime46) a frame line whose head an excerpt cut off (patterns.CUT_FRAME): no "File " left
)


# Known messages pasted without their exception type are looked for in the first lines of the input:
# that is where a paste (an issue, a chat message) puts them. Past these, a log's errors carry their
# types, and searching every line for every signature's literal would cost a pass per literal
# (about 250 today) over the whole log instead of one per structural word.
# TensorRT's assertion in its log ("[TRT] [E] 2: [...] Error Code 2: Internal Error (Assertion ... failed. )"): not a
# CUDA kernel's device-side assert (tests/test_unrelated38.py)
TENSORRT_ASSERT_MARKS = ("[TRT]", "Error Code", "Internal Error (Assertion")
TYPELESS_SEARCH_LINES = 3 * 4096
# ... and in the first 512 KiB of it, and the first 4 KiB of each line: else a log of long lines paid a
# pass per literal over every one of its first 12,288 lines, 800 MB of them at 64 KiB a line.
TYPELESS_SEARCH_CHARS = 512 * 1024
TYPELESS_LINE_CHARS = 4096
LEAD_CHARS = 200  # of the text before an error on its line, what ParsedError.lead keeps (its end: the part next to it)


# _exception_in's memo: a log repeats the same warning or error line thousands of times.
_EXCEPTION_MEMO: dict[str, tuple[str, str, int] | None] = {}
EXCEPTION_MEMO_SIZE = 256
EXCEPTION_MEMO_CHARS = 1000  # longer lines are not kept (the memo's memory stays small)


def _exception_in(line: str, stripped: str) -> tuple[str, str, int] | None:
    """The exception line ``line`` (``stripped``: line.strip()) is or holds: (its type, its message, where it
    starts in ``line``: 0 when ``stripped`` is one), else None. Memoised by the line."""
    found = _EXCEPTION_MEMO.get(line, False)
    if found is False:
        m = patterns.EXCEPTION_LINE.match(stripped) or search_embedded(line)
        found = None if m is None else (m["type"], m["message"] or "", m.start())
        if len(line) <= EXCEPTION_MEMO_CHARS:
            if len(_EXCEPTION_MEMO) >= EXCEPTION_MEMO_SIZE:
                _EXCEPTION_MEMO.clear()
            _EXCEPTION_MEMO[line] = found
    return found  # type: ignore[return-value]


# Where a clause starts inside a line: after ": ", a quote or backtick, CJK or sentence punctuation.
_CLAUSE_START = Deferred(r":\s|[：。，；]|[!?.]\s|[`\"“”'‘’]")
_DIGITS = _compile(r"\d+")
# _without_digits's memo: repeats of a message differ in their numbers (steps, times); an ASCII text's digit runs
# are where its digits are, so texts with the same characters but digits (each digit made 0) give the same result.
_NO_DIGITS_MEMO: dict[bytes, str] = {}
NO_DIGITS_MEMO_SIZE = 256
_ZERO_DIGITS = bytes.maketrans(b"123456789", b"000000000")


def _without_digits(text: str) -> str:
    """``text`` with each run of digits made "#" (the key that tells repeats of an error apart)."""
    if not text.isascii():
        return _DIGITS.sub("#", text)
    shape = text.encode("ascii").translate(_ZERO_DIGITS)
    found = _NO_DIGITS_MEMO.get(shape)
    if found is None:
        if len(_NO_DIGITS_MEMO) >= NO_DIGITS_MEMO_SIZE:
            _NO_DIGITS_MEMO.clear()
        found = _NO_DIGITS_MEMO[shape] = _DIGITS.sub("#", text)
    return found


_CLOSING_QUOTE = {"`": "`", '"': '"', "'": "'", "“": "”", "‘": "’", "”": "”", "’": "’"}


def known_message_start(line: str, known: tuple[str, ...], leading: frozenset[str] = frozenset()) -> int:
    """Where a known message (one holding a signature's literal) starts in ``line``, -1 when none is there.

    A literal in ``leading`` begins its message: the message starts at it (prose before it, "PEFT 微调报错
    element 0 of tensors ...", is left out). Another literal may sit inside the message ("Found dtype Long
    but expected Float" holds " but expected "): the message then starts at the clause that holds it,
    after the last ": ", quote, backtick or sentence mark before the literal, else at the line's start.
    """
    first, found = -1, ""
    for literal in known:
        pos = line.find(literal)
        if pos != -1 and (first == -1 or pos < first):
            first, found = pos, literal
    if first <= 0 or found in leading:
        return first
    start = 0
    opened: tuple[int, str] | None = None  # (start before an opening quote, the quote that closes it)
    for m in _CLAUSE_START.finditer(line, 0, first):
        mark = m.group()
        if opened is not None and mark == opened[1]:
            # a quoted word inside the clause ("has model type `qwen3` but ..."): the clause goes on
            start, opened = opened[0], None
            continue
        opened = (start, _CLOSING_QUOTE[mark]) if mark in _CLOSING_QUOTE else None
        start = m.end()
    if opened is not None and line.startswith(opened[1], first):  # the literal itself closes the quote
        start = opened[0]
    while start < first and line[start] == " ":
        start += 1
    return start


_OPEN_DOUBLE = ('"', "“")
# What comes before a well-known message on a notebook traceback's numbered context line (IPython: "     72         f\"Using
# `bitsandbytes` ..."): the code around the line that ran, quoting the message of a raise that did not run (an excerpt
# cut before its exception line shows the raise above the one that failed). The line IPython marks as the one that ran
# ("---> 75     raise ...") and a plain traceback's source line are read as before.
_SOURCE_LEAD = Deferred(r"^\d{1,6}\s+(?:\S.{0,200}?)?[rRbBuUfF]{0,2}[\"']$")
_TB_HEADER_END = TB_TEXT + ":"


def _raise_statement(line: str, start: int) -> bool:
    """Whether the exception written at ``start`` of ``line`` is the object of a ``raise`` on a notebook traceback's
    numbered context line (``134 raise RuntimeError("No executable batch size found, reached zero.")``): IPython
    prints the code around the line that ran, and a raise there did not run. The line that ran is marked
    (``--> 136 return function(...)``), and a frame's own source line (``raise RuntimeError("No GPU found. ...")``
    under its ``File`` line) is not numbered: both are read as before."""
    before = line[:start].rstrip()
    return before.endswith("raise") and before[:-5].strip().isdigit() and before[-6:-5].isspace()


def _unquoted(message: str) -> str:
    """The message of an error a sentence quotes ('the error "KeyError: 'qwen2'" becomes ...'): cut at the
    quote that closes the one before the exception type, the first double quote that no quote inside the
    message opened (an even count before it) and that ends a word. Else the message unchanged."""
    opened = 0
    for i, ch in enumerate(message):
        if ch not in '"“”':
            continue
        ends_word = i > 0 and not message[i - 1].isspace() and (i + 1 == len(message) or not message[i + 1].isalnum())
        if opened % 2 == 0 and ends_word:
            return message[:i].rstrip()
        opened += 1
    return message


def search_embedded(text: str) -> re.Match[str] | None:
    """patterns.EMBEDDED_EXCEPTION.search(text), started where it can first match: at most MAX_TYPE_CHARS before
    the first ``Error:`` (any exception suffix and a colon). Most lines hold none and cost one fast scan."""
    colon = patterns.EXCEPTION_COLON.search(text)
    if colon is None:
        return None
    return patterns.EMBEDDED_EXCEPTION.search(text, max(0, colon.start() - MAX_TYPE_CHARS))


# A line of a message's continuation holds one of these whenever any test that could end the message (feed's
# pending branch: a chain marker, CUDA advice, C++ context, a traceback, an exception line, a frame, IPython's
# header, _special) might hold for it: the exception suffixes, "Traceback" and 'File "' are structural words,
# "exception" of the chain markers holds "xception", and the rest is listed. A line without any is a plain
# continuation line whatever those tests would say, so one search replaces them (continue_message).
# (runtime45) A wrapped frame line's pieces: the head and at most FRAME_HEAD_PIECES more lines, each of at most
# FRAME_HEAD_CHARS characters (a path and its line number), are joined until they read as one frame line.
FRAME_HEAD_PIECES = 3
FRAME_HEAD_CHARS = 600
MAX_WRAPPED_HEADS = 64  # ranks with a wrapped frame line open at once (a log of a million ranks holds no more)
_ENDS_MESSAGE = (*STRUCTURAL_TOKENS, "CUDA_", "Device-side assertion", "frame #", "[Previous line repeated",
                 "Watchdog caught", "HIP kernel errors", "AMD_SERIALIZE_KERNEL", "TORCH_USE_HIP_DSA")


def _frame_head(stripped: str) -> bool:
    """(runtime45) The head of a frame line that a narrow console wrapped at its width: "File" alone, then the quoted path
    (cut anywhere, even inside the file name) and ", line N, in function" on the lines after it ("[rank6]:   File ",
    '[rank6]: "/usr/lib/python3/dist-packages/torch/distributed/checkpoint/state_dict_loader.p', '[rank6]: y", line
    198, in local_step'; a rank-prefixed log printed through a fixed-width console). The parser joins the pieces."""
    if stripped == "File":
        return True
    if not stripped.startswith('File "') or len(stripped) > FRAME_HEAD_CHARS:
        return False
    quotes = stripped.count('"')
    return quotes == 1 or (quotes == 2 and stripped.endswith(('"', '",')))


def _special(line: str) -> bool:
    """Lines that are errors or log records of their own, never the continuation of a message."""
    return (
        "Watchdog caught" in line
        or "NCCL WARN" in line
        or "NCCL INFO" in line
        or ("Assertion" in line and patterns.CUDA_ASSERT.search(line) is not None)
    )


_ESCAPED: list[re.Pattern[str]] = []


def _escaped_newline() -> re.Pattern[str]:
    """A literal ``\\n`` (a log or JSON string that holds a traceback) where a traceback's next line starts: before
    indentation, its header, a chain marker or an exception line. A Windows path's backslash before an n
    (``C:\\new\\train.py``) is followed by none of them. Compiled on first use."""
    if not _ESCAPED:
        _ESCAPED.append(_compile(
            r"(?:\\r)?\\n(?=[ \t]|\\t|Traceback \(|During handling|The above exception"
            rf"|{EXCEPTION_NAME}(?::|\s*$|\\n))"))
    return _ESCAPED[0]


def _unescaped(line: str) -> list[str] | None:
    """A traceback written into one line with escaped line breaks (``Traceback (most recent call last):\\n  File
    \\"x.py\\", line 3 ...``: a JSON log record, a repr) as its lines; None when the line holds none."""
    pieces = _escaped_newline().split(line)
    if len(pieces) < 3:  # a traceback holds at least its header or a frame, and its exception line
        return None
    out: list[str] = []
    for piece in pieces:
        piece = piece.replace('\\"', '"').replace("\\t", "    ")
        out.extend(expand_flattened(piece) if "\\n" not in piece else [piece])
    return out


# An element of a saved notebook's traceback array (unquoted by clean_line) holds a frame's lines joined by "\n".
# Frames Python prints no source line under (frozen modules, exec'd strings, the classic REPL's input): a stripped
# traceback's line after one of them is not its code (review41: an untyped "CUDA out of memory. ..." after
# 'File "<frozen torch>"' was read as the frame's code and lost)
NO_SOURCE_FILES = ("<frozen ", "<string>", "<stdin>")
_NOTEBOOK_PIECES = ("File ", "Cell In", "Input In", "-", "<ipython-input", "/", "[")


def expand_flattened(line: str) -> list[str]:
    """Split a traceback that was flattened onto one line back into lines (else ``[line]``)."""
    if "\\n" in line and line.startswith(_NOTEBOOK_PIECES) and ("\\n " in line or "\\n-" in line or line.endswith("\\n")):
        return [piece for piece in line.split("\\n") if piece.strip()] or [line]
    if len(line) < 60 or 'File ' not in line:
        return [line]
    if "\\n" in line and (TB_TEXT in line or 'File \\"' in line or 'File "' in line):
        unescaped = _unescaped(line)
        if unescaped is not None:
            return unescaped
    if 'File "' not in line:
        return [line]
    frames = list(patterns.INLINE_FRAME.finditer(line))
    has_marker = TB_TEXT in line or any(m in line for m in CHAIN_MARKERS)
    if len(frames) < 2 and not (has_marker and frames and not patterns.TRACEBACK_START.match(line)):
        return [line]
    if len(frames) == 1 and patterns.FRAME.search(line) and line.lstrip().startswith('File "'):
        return [line]  # an ordinary frame line
    out: list[str] = []
    for piece in patterns.SPLIT_MARKERS.split(line):
        piece = piece.strip()
        if not piece:
            continue
        if piece.startswith("Traceback (most recent") or piece in CHAIN_MARKERS:
            out.append(piece)
            continue
        found = list(patterns.INLINE_FRAME.finditer(piece))
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
            e = search_embedded(rest) if i + 1 == len(found) else None
            if e:
                code = rest[: e.start("type")].strip()
                if code:
                    out.append("    " + code)
                out.append(rest[e.start("type"):])
            else:
                out.append("    " + rest)
    return out


_CONTEXT_MEMO: dict[str, str] = {}
CONTEXT_MEMO_SIZE = 64


def context_text(raw: str) -> str:
    """A raw line kept around an error (before or after it), cleaned and cut for hint matching (at a
    space, so no piece of a secret is left that redaction would no longer recognise). Memoised (the last
    CONTEXT_MEMO_SIZE lines, dropped all at once when full; no functools): where every line is an error, each
    line is the context of the 12 errors after it and follows 6 before it."""
    found = _CONTEXT_MEMO.get(raw)
    if found is None:
        if len(_CONTEXT_MEMO) >= CONTEXT_MEMO_SIZE:
            _CONTEXT_MEMO.clear()
        found = _CONTEXT_MEMO[raw] = clip(clean_line(clip(raw, CONTEXT_CHARS * 2))[0], CONTEXT_CHARS).strip()
    return found


def _ipython_function(written: str | None) -> str:
    """A frame's function as Python's own traceback names it, from IPython's ("Dataset._map_single(shard, function,
    ...)", "Trainer.train.<locals>.inner(x)": its qualified name and arguments): the name alone, "_map_single", so
    that a frame rule reads a notebook's traceback as it reads a script's."""
    if not written:
        return "<module>"
    name = written.strip().split("(", 1)[0].strip()
    return name.rsplit(".", 1)[-1] or "<module>"


def _ipython_header(line: str) -> str | None:
    """The class an IPython traceback's header names ("ArrowInvalid       Traceback (most recent call last)"), else
    None. Any class name: the header's shape is the evidence (its name then the words right-justified to IPython's
    column, or two spaces or more where a paste changed the padding)."""
    if "Traceback (most" not in line:
        return None
    m = patterns.IPY_ANY_HEADER.match(line)
    if m is None:
        return None
    pad = len(m["pad"])
    return m["type"] if pad >= 2 or len(m["type"]) + pad >= IPYTHON_HEADER_COLUMN - 1 else None


def _header_exception(state: _TracebackState, stripped: str) -> tuple[str, str] | None:
    """The exception line of an IPython traceback whose header named a class no exception pattern knows ("ArrowInvalid:
    JSON parse error ..." after "ArrowInvalid    Traceback ..."): (type, message), else None."""
    named = state.ipython_type
    if not named:
        return None
    head, colon, message = stripped.partition(":")
    short = named.rsplit(".", 1)[-1]
    if head != named and not (head.endswith("." + short) and head.replace(".", "").replace("_", "").isalnum()):
        if not (head == short and (colon or not message)):
            return None
    return head, message.strip()


MAX_IMPLIED = 16  # typeless errors kept for their implied type (the first lines of an input hold them)


def _implied(text: str) -> tuple[str, str] | None:
    """(the type, the message as Python prints it) when ``text``'s first line is one of Python's own messages standing
    alone (IMPLIED_MESSAGES), else None."""
    first = text.split("\n", 1)[0].strip().rstrip("`\"")
    if len(first) > 1000 or not first.endswith(IMPLIED_ENDINGS):
        return None
    for implied_type, source in IMPLIED_MESSAGES:
        shape = _compile(source)
        m = shape.match(first)
        if m is not None:
            if "bare" in shape.groupindex and m["bare"]:  # a title's unquoted class: Python's quotes put back
                first = f"'{m['bare']}'{first[m.end('bare'):]}"
            return implied_type, first.rstrip(".") if first.endswith(("'.", " defined.", " given.")) else first
    return None


_DECORATION = "=->*#~+ "


def _decorated_exception(stripped: str) -> bool:
    """Whether ``stripped`` is an exception line after a run of decoration ("=========> RuntimeError: ...", "--> KeyError:
    'x'", "*** ValueError: ..."): a second error printed under the first, not a line of its message."""
    if stripped[:1] not in _DECORATION:
        return False
    rest = stripped.lstrip(_DECORATION)
    return bool(rest) and len(stripped) - len(rest) >= 2 and patterns.EXCEPTION_LINE.match(rest) is not None


def _usage_words(text: str) -> bool:
    """Whether ``text`` holds a word of a command line's usage error (USAGE_LITERALS, CLI_ERROR_LITERALS)."""
    return "sage: " in text or "rror: " in text


def _cli_error(stripped: str) -> str | None:
    """The message of a command line's error line ("error: ...", "Error: ...", "prog: error: ..."), else None."""
    for mark in CLI_ERROR_LITERALS:
        if stripped.startswith(mark):
            return stripped[len(mark):].strip() or None
    at = stripped.find(": error: ", 0, MAX_PROGRAM_CHARS)
    if at > 0 and " " not in stripped[:at]:
        return stripped[at + len(": error: "):].strip() or None
    return None


_JSON_CLOSE = frozenset("]}, ")
_JSON_NAMES = ('"ename": "', '"name": "')
_JSON_MESSAGES = ('"evalue": "', '"message": "')


def _json_value(text: str) -> str | None:
    """The string value of a JSON member on one line (``"evalue": "CUDA out of memory...",``), else None."""
    value = text.split(":", 1)[1].strip().rstrip(",").strip()
    if len(value) < 2 or value[0] != '"' or value[-1] != '"':
        return None
    import json  # (only for a notebook's JSON output: not at diagnose's start-up)

    try:
        decoded = json.loads(value)
    except ValueError:
        return None
    return decoded if isinstance(decoded, str) else None


def _json_message(error: ParsedError) -> str | None:
    """The message of an error read from a notebook's JSON output: the "evalue"/"message" member among the lines
    the parser added to it, else None (no message: a "name" member of some other JSON)."""
    for text in error.message.split("\n"):
        text = text.strip()
        if text.startswith(_JSON_MESSAGES):
            return _json_value(text)
    return None


def _indent(line: str) -> int:
    """The width of ``line``'s leading spaces and tabs."""
    return len(line) - len(line.lstrip(" \t"))


class _TracebackState:
    def __init__(self, rank: str | None, ipython_type: str | None = None, line_no: int = 0, indent: int = 0) -> None:
        self.rank = rank
        # The header's indentation: a traceback quoted as a whole (a markdown code block's four spaces, a log's
        # indented record) has its exception line there, and its frames and code lines further in.
        self.indent = indent
        self.boxed = False  # a rich traceback (a frame or code line of its shape seen): long paths wrap at its box's edge
        self.wrapped_path = ""  # the head of such a path, waiting for its tail
        self.frames: list[Frame] = []
        # The first frame's indentation: an exception line there or further out ends the traceback, deeper is code
        # (a traceback pasted without its header, frames and exception line indented alike: "    File ...", "    TypeError: ...")
        self.frame_indent = -1
        self.expect_code = False
        # (err41) A traceback pasted with its indentation stripped (a forum or a log that trims lines): each frame's
        # code line stands at the frames' own indentation, where a line would otherwise end the traceback. The one
        # line right after a frame, when it is not an exception line, is read as that frame's code. Only under a
        # "Traceback (most recent call last):" header: frames pasted without it (a UI's report, the message first and
        # the frames below it, ComfyUI's) keep their lines as lines near the message.
        self.flat_code = False
        self.headless = False
        self.ipython_type = ipython_type
        self.line_no = line_no  # the traceback's last line read: where a truncated one is reported


class _Parser:
    def __init__(self, known: tuple[str, ...] = (), leading: frozenset[str] = frozenset(),
                 ranks: RankCounter | None = None, noise: list[dict[str, Any]] | None = None) -> None:
        self.noise = noise if noise is not None else default_noise_rules()  # tables/noise.toml
        self.ranks = ranks if ranks is not None else RankCounter()  # every error's rank, repeats included
        self.known = known  # signatures' literals: a line holding one is a known message
        self.leading = leading  # those that begin their message (see known_message_start)
        self.typeless_last_line = TYPELESS_SEARCH_LINES  # lines after it are not searched for known messages
        self.tracebacks: dict[str | None, _TracebackState] = {}
        self.pending: ParsedError | None = None
        self.pending_lines = 0
        self.context: deque[str] = deque(maxlen=CONTEXT_LINES)
        self.recent: deque[tuple[str, str]] = deque(maxlen=RECENT_FOR_DEDUPE)
        self.recent_errors: dict[tuple[str, str], ParsedError] = {}
        self.chain_next = False  # a chain marker was seen: the next error is caused by the previous
        self.last: ParsedError | None = None  # the last error emitted
        self.json_named: ParsedError | None = None  # an error opened by a notebook's JSON "ename"/"name" member
        self.typed_seen = False  # an error that is no noise named its type
        self.usage_line = 0  # the line of a command line's usage, while its error may follow (USAGE_ERROR_LINES)
        self.implied: list[tuple[ParsedError, str, str]] = []  # typeless errors of Python's shapes: (error, type, message)
        # (runtime45) per rank, a frame line a narrow console wrapped, waiting for its tail: (indentation, text, pieces)
        self.frame_heads: dict[str | None, tuple[str, str, int]] = {}

    @staticmethod
    def _context(raw_lines: list[str]) -> list[str]:
        """Clean the raw lines kept before an error (kept raw while streaming: most are never used)."""
        return [text for text in map(context_text, raw_lines) if text]

    # -- emitting -------------------------------------------------------------------------------
    def _finish(self, error: ParsedError) -> ParsedError | None:
        """Finalise an error; return it, or None when it repeats a recent identical one."""
        if error is self.json_named:
            self.json_named = None
            json_message = _json_message(error)
            if json_message is None:
                return None
            error.message = clip(json_message.strip(), MAX_MESSAGE_CHARS)
        self.ranks.add(error.rank)
        message = error.message
        if message.endswith(("]", "}", ",")) and "\n" in message:  # the JSON that held it closes: "]", "}" lines
            lines = message.split("\n")
            while len(lines) > 1 and set(lines[-1]) <= _JSON_CLOSE:
                lines.pop()
            message = "\n".join(lines)
        if message:
            # (each kind of advice names CUDA or "Device-side": a message without either holds none)
            advice = (patterns.CUDA_ADVICE_IN_MESSAGE.search(message) if "CUDA" in message or "Device-side" in message
                      else None)
            error.message = (message[: advice.start()] if advice else message).rstrip()
        error.noise = noise_reason(error, self.noise)
        if error.type and error.noise is None:
            self.typed_seen = True
        if error.kind == "cuda-assert":  # the same failed condition, whichever thread or cut line printed it
            basis = error.message[error.message.find("Assertion"): error.message.find("failed")]
        else:
            basis = error.message
        key = (error.short_type, _without_digits(basis[:300]))
        if key in self.recent_errors and not error.frames:
            self.recent_errors[key].repeats += 1
            return None
        if key in self.recent_errors and error.frames and not error.cause_of_previous:
            earlier = self.recent_errors[key]
            earlier.repeats += 1
            if not earlier.frames:  # the same error without its traceback first (a notebook's "evalue"): the frames join it
                earlier.frames, earlier.in_traceback = error.frames, True
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
            error.lead = lead.strip()[-LEAD_CHARS:]
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
    def continue_message(self, line: str, rank: str | None) -> bool:
        """Add ``line`` to the open message when it is a plain continuation line (what feed would do), and say
        so; False (nothing done) when feed must decide. A warning opens a message that takes up to
        MAX_MESSAGE_LINES following lines of a log (progress bars, INFO lines): this is their path, one regex
        search instead of feed's eight tests, and no generator."""
        pending = self.pending
        if (pending is None or self.pending_lines >= MAX_MESSAGE_LINES or pending.rank != rank
                or pending.kind != "python" or len(pending.message) >= MAX_MESSAGE_CHARS
                or (_ENDS[0] if _ENDS else _ends_message()).search(line) is not None):
            return False
        stripped = line.strip()
        if not stripped or stripped == "File":  # (runtime45) a wrapped frame line's head: feed joins it
            return False
        stripped = clip(stripped, MAX_MESSAGE_CHARS - len(pending.message))
        pending.message = f"{pending.message}\n{stripped}" if pending.message else stripped
        self.pending_lines += 1
        return True

    def feed(self, line: str, rank: str | None, line_no: int) -> Iterator[ParsedError]:
        stripped = line.strip()
        if self.frame_heads and rank in self.frame_heads:
            joined = self._join_frame(rank, stripped)
            if joined is None:
                return  # a piece of a wrapped frame line: its tail is still to come
            if joined:
                line, stripped = joined, joined.strip()
        elif stripped[:4] == "File" and _frame_head(stripped) and len(self.frame_heads) < MAX_WRAPPED_HEADS:
            self.frame_heads[rank] = (line[:_indent(line)], stripped, 0)
            return
        pending = self.pending
        if pending is not None:
            if pending.kind == "cpp" and not pending.message and stripped.startswith(CPP_WHAT):
                pending.message = clip(stripped[len(CPP_WHAT):].strip(), MAX_MESSAGE_CHARS)  # the terminate's message
                return
            if stripped in CHAIN_MARKERS:
                pending.chained = True
                self.chain_next = True
                yield from self._flush()
                return
            if patterns.CUDA_ADVICE.match(line) or patterns.CPP_CONTEXT.match(line):
                pending.advice.append(stripped[:200])
                yield from self._flush()
                return
            continues = (
                stripped
                and self.pending_lines < MAX_MESSAGE_LINES
                and pending.rank == rank
                and pending.kind == "python"
                and not patterns.TRACEBACK_START.match(line)
                and not patterns.EXCEPTION_LINE.match(stripped)
                and not _decorated_exception(stripped)
                and not patterns.FRAME.search(line)
                and not _ipython_header(line)
                and not _special(line)
                and len(pending.message) < MAX_MESSAGE_CHARS
            )
            if continues:
                stripped = clip(stripped, MAX_MESSAGE_CHARS - len(pending.message))
                pending.message = f"{pending.message}\n{stripped}" if pending.message else stripped
                self.pending_lines += 1
                return
            yield from self._flush()

        if stripped in CHAIN_MARKERS:
            self.chain_next = True
            if self.last is not None:
                self.last.chained = True
            return
        if patterns.CUDA_ADVICE.match(line) or patterns.CPP_CONTEXT.match(line):
            return
        if patterns.TRACEBACK_START.match(line):
            yield from self._open(_TracebackState(rank, line_no=line_no, indent=_indent(line)))
            return
        if line.endswith(_TB_HEADER_END) and TB_TEXT in line and "File " not in line:
            # the header glued to text before it: a progress bar copied without its carriage return
            # ("0%|   | 0/40995 [00:00<?, ?it/s]Traceback (most recent call last):"), a log's prose
            yield from self._open(_TracebackState(rank, line_no=line_no))
            return
        header = _ipython_header(line)
        if header:
            yield from self._open(_TracebackState(rank, ipython_type=header, line_no=line_no))
            return

        state = self.tracebacks.get(rank)
        if state is None and stripped.startswith(("File ", "Cell In")) and 'File "' not in line and patterns.IPY_FRAME.match(stripped):
            # An IPython traceback pasted from its first frame on, without its header ("File ~/x.py:165, in f")
            state = _TracebackState(rank, ipython_type="", line_no=line_no)
            yield from self._open(state)
        cut_library = False
        if state is None and '", line ' in line and 'File "' not in line:
            cut = patterns.CUT_FRAME.match(stripped)
            if cut is not None:
                # (runtime46) an excerpt that starts inside a frame line, its head (`File "`, the start of the path)
                # cut off: read as the frame it is, the first of a traceback pasted without its header
                line = f'{line[:_indent(line)]}File "{stripped}'
                stripped = line.strip()
                cut_library = _cut_library_path(cut["file"])
        if state is None and 'File "' in line and patterns.FRAME.search(line):
            # A traceback pasted without its "Traceback (most recent call last):" header (its frames are indented
            # two spaces further in than the header would be).
            state = _TracebackState(rank, line_no=line_no, indent=max(0, _indent(line) - 2))
            state.headless = True
            yield from self._open(state)
        if state is not None:
            if (yield from self._in_traceback(state, line, stripped, rank, line_no)):
                if cut_library and state.frames:
                    state.frames[-1].library = True
                return

        typeless = self.known and line_no <= self.typeless_last_line
        if not any(token in line for token in STRUCTURAL_TOKENS):
            head = line[:TYPELESS_LINE_CHARS] if typeless else ""
            # (past the typeless window the head is empty, and only an empty literal is in it: no pass over all)
            if not (any(token in head for token in self.known) if head else "" in self.known) and not (
                    head and (any(literal in head for literal in IMPLIED_LITERALS) or _usage_words(head))):
                return
        yield from self._loose_line(line, stripped, rank, line_no)

    def _join_frame(self, rank: str | None, stripped: str) -> str | None:
        """(runtime45) Add a line to the wrapped frame line open for ``rank`` (``_frame_head``): the whole frame line,
        indented as its head was, once the pieces read as one; None while more pieces may come (a piece without a
        space: the rest of a path); "" when this line is no piece of it (the head is dropped, the line read as usual)."""
        indent, text, pieces = self.frame_heads.pop(rank)
        if not stripped or len(stripped) > FRAME_HEAD_CHARS:
            return ""
        glue = " " if text.endswith((",", "File")) else ""  # a wrap at a space lost it; one inside a path did not
        text = text + glue + stripped
        if patterns.FRAME.search(text):
            return indent + text
        # (review45) an exception line of a class alone (MemoryError, KeyboardInterrupt: no space either) is no path's rest
        if pieces + 1 < FRAME_HEAD_PIECES and " " not in stripped and _exception_in(stripped, stripped) is None:
            self.frame_heads[rank] = (indent, text, pieces + 1)
            return None
        return ""

    def _open(self, state: _TracebackState) -> Iterator[ParsedError]:
        """Open a traceback for its rank. Open tracebacks are capped (MAX_OPEN_TRACEBACKS): a log where
        a million ranks each open one must not hold a million; the oldest is closed as truncated."""
        self.tracebacks.pop(state.rank, None)
        if len(self.tracebacks) >= MAX_OPEN_TRACEBACKS:
            oldest = next(iter(self.tracebacks))
            yield from self._truncated(self.tracebacks.pop(oldest))
        self.tracebacks[state.rank] = state

    def _truncated(self, state: _TracebackState) -> Iterator[ParsedError]:
        """A traceback that ended without its exception line: an error with frames and no message."""
        last = self.last
        if (state.ipython_type and last is not None and last.type == state.ipython_type
                and not last.frames and not last.in_traceback and last.rank == state.rank):
            # the error was given first without its traceback (a notebook's "evalue", VS Code's "message"), then its
            # traceback, cut: one error, the frames join it
            if state.frames:
                last.frames, last.in_traceback = state.frames, True
            return
        if state.frames or state.ipython_type:  # (IPython's header named the class: the type is known without frames)
            error = ParsedError(type=state.ipython_type or "", message="", frames=state.frames, rank=state.rank,
                                in_traceback=True, line_no=state.line_no)
            error.context = list(self.context)
            done = self._finish(error)
            if done is not None:
                yield done

    def _in_traceback(
        self, state: _TracebackState, line: str, stripped: str, rank: str | None, line_no: int
    ) -> Iterator[ParsedError]:
        """Handle a line while a traceback is open; returns True when the line was consumed."""
        state.line_no = line_no
        frame = patterns.FRAME.search(line)
        if frame:
            if state.frame_indent < 0:
                state.frame_indent = _indent(line)
            self._add_frame(state, frame["file"], int(frame["line"]), (frame["function"] or "").strip())
            state.flat_code = stripped.startswith('File "')  # the frame line alone on its line, nothing before it
            return True
        wrapped, state.wrapped_path = state.wrapped_path, ""
        if wrapped and stripped and " " not in stripped[:1]:
            m = patterns.RICH_FRAME.match(wrapped + stripped)  # rich cut a long path at its box's edge: "autotrain.p" + "y:32 in main"
            if m:
                self._add_frame(state, m["file"], int(m["line"]), m["function"] or "")
                return True
        if "│" in line or line.endswith(".py") or ".py:" in line:
            m = patterns.RICH_FRAME.match(stripped)
            if m:
                self._add_frame(state, m["file"], int(m["line"]), m["function"] or "")
                state.boxed = True
                return True
            m = patterns.RICH_CODE.match(stripped)
            if m:
                state.boxed = True
                if m["arrow"] and state.frames:
                    state.frames[-1].code = clip(m["code"].replace("│", " ").strip(), 300)
                return True
        if state.frames and not state.frames[-1].function and stripped.isidentifier():
            state.frames[-1].function = stripped  # rich wraps a long path: the function name comes next
            return True
        if state.boxed and stripped[:1] in ("/", "~") and len(stripped) > 40 and " " not in stripped and ".py:" not in stripped:
            state.wrapped_path = stripped  # the head of a path the box's edge cut (read with the next line)
            return True
        if state.ipython_type is not None:
            m = patterns.IPY_FRAME.match(stripped)
            if m:
                if m["file"]:
                    self._add_frame(state, m["file"], int(m["line"]), _ipython_function(m["function"]))
                elif m["cell_line"]:
                    self._add_frame(state, "<notebook cell>", int(m["cell_line"]), _ipython_function(m["cell_function"]))
                elif m["input"]:
                    self._add_frame(state, m["input"].strip("[]"), 0, m["input_function"])
                else:
                    self._add_frame(state, m["old_file"], 0, m["old_function"])
                return True
            arrow = patterns.IPY_ARROW.match(line)
            if arrow and not state.frames:  # the cell's own frame line ("Cell In[3], line 2") was not pasted
                self._add_frame(state, "<notebook cell>", 0, "<module>")
            if arrow:
                state.frames[-1].code = clip(arrow["code"].strip(), 300)
                return True
            if patterns.IPY_CONTEXT.match(line) or not stripped or patterns.IPY_FOLDED.match(stripped):
                return True
        indent = _indent(line)
        inside = stripped and indent > state.indent  # a frame's code, a wrapped line: not the exception line
        if inside and indent <= state.frame_indent and patterns.EXCEPTION_LINE.match(stripped):
            inside = False  # at the frames' own indentation: code is deeper, so this is the exception line
        if state.expect_code and inside:
            if state.frames and not state.frames[-1].code and not set(stripped) <= set("^~ "):
                state.frames[-1].code = clip(stripped, 300)
            return True
        m = patterns.EXCEPTION_LINE.match(stripped) if not inside else None
        flat, state.flat_code = state.flat_code, False
        if flat and m is None and stripped and state.frames and not state.headless \
                and not state.frames[-1].file.startswith(NO_SOURCE_FILES) \
                and 0 <= state.frame_indent <= indent <= state.indent \
                and search_embedded(line) is None:
            if not state.frames[-1].code:  # a traceback whose indentation was stripped: the frame's code line
                state.frames[-1].code = clip(stripped, 300)
            return True
        if m is None and not inside and "RayTaskError(" in stripped:
            m = patterns.RAY_TASK_ERROR.match(stripped)  # (rt46) Ray's wrapper names the task's exception class
        if m is None and not inside:
            e = search_embedded(line)  # "torch.distributedtorch.distributed.DistBackendError.: ..."
            m = e if e and e.start("type") < 40 else None
        named = _header_exception(state, stripped) if m is None and not inside and state.ipython_type else None
        if m or named:
            found_type, found_message = (m["type"], m["message"] or "") if m else named  # type: ignore[misc]
            error = ParsedError(
                type=found_type, message=clip(found_message.strip(), MAX_MESSAGE_CHARS), frames=state.frames,
                line_no=line_no, rank=rank, in_traceback=True,
            )
            del self.tracebacks[rank]
            yield from self._flush()
            self._start(error)
            return True
        if not stripped or inside:
            return True
        if patterns.CPP_CONTEXT.match(line) or "Loading checkpoint shards" in line or stripped.startswith(("...", "^")):
            return True
        # Anything else ends a traceback that never produced its exception line (truncated).
        del self.tracebacks[rank]
        yield from self._truncated(state)
        return False

    def _add_frame(self, state: _TracebackState, file: str, line: int, function: str) -> None:
        state.frames.append(Frame(clip(file, 500), line, clip(function, 200)))
        if len(state.frames) > MAX_FRAMES:
            del state.frames[0]
        state.expect_code = True
        state.flat_code = False

    def _loose_line(self, line: str, stripped: str, rank: str | None, line_no: int) -> Iterator[ParsedError]:
        """An error line outside any traceback: a bare last line, a log line, NCCL or CUDA text, a C++ terminate, a
        command line's usage error."""
        if self.known and line_no <= self.typeless_last_line:
            if stripped.startswith(USAGE_LITERALS):
                self.usage_line = line_no
                return
            if self.usage_line and line_no - self.usage_line <= USAGE_ERROR_LINES:
                cli_message = _cli_error(stripped)
                if cli_message is not None:
                    self.usage_line = 0
                    error = ParsedError("", clip(cli_message, MAX_MESSAGE_CHARS), line_no=line_no, rank=rank, kind="usage")
                    error.context = list(self.context)
                    done = self._finish(error)
                    if done:
                        yield done
                    return
        if stripped.startswith(CPP_TERMINATE):  # (on a line of its own: a paste joined into one line keeps its error)
            start = len(CPP_TERMINATE)
            end = stripped.find("'", start, start + MAX_CPP_CLASS_CHARS + 1)
            if end > start:
                # its message is on the next line ("  what():  ..."): feed's pending branch reads it
                self._start(ParsedError(stripped[start:end], "", line_no=line_no, rank=rank, kind="cpp"))
                return
        if "NCCL WARN" in line:
            m = patterns.NCCL_WARN.search(line)
            if m:
                error = ParsedError("NCCLWarning", clip(m["message"].strip(), MAX_MESSAGE_CHARS), line_no=line_no,
                                    rank=rank, kind="nccl")
                error.context = list(self.context)
                done = self._finish(error)
                if done:
                    yield done
                return
        if "Assertion" in line:
            m = patterns.CUDA_ASSERT.search(line)
            where = patterns.CUDA_ASSERT_WHERE.search(line) if m else None
            # a kernel's, its backticks kept or eaten by markdown ("Assertion srcIndex < srcSelectDimSize failed."),
            # not TensorRT's ("[TRT] ... Error Code 2: Internal Error (Assertion validateCaskKLibSize(...) failed. )")
            if m and not any(mark in line for mark in TENSORRT_ASSERT_MARKS):
                name, src = (where["function"], where["src"]) if where else ("kernel", "?")
                message = f"{name}: Assertion `{m['cond']}` failed. ({src})"
                error = ParsedError("CUDAAssertion", message, line_no=line_no, rank=rank, kind="cuda-assert")
                error.context = list(self.context)
                done = self._finish(error)
                if done:
                    yield done
                return
        if "Watchdog caught" in line:
            m = patterns.WATCHDOG.search(line)
            if m:
                error = ParsedError("NCCLWatchdogTimeout", clip(m["message"].strip(), MAX_MESSAGE_CHARS),
                                    line_no=line_no, rank=rank or m["rank"], kind="watchdog")
                done = self._finish(error)
                if done:
                    yield done
                return
        if stripped.startswith(_JSON_NAMES):
            name = _json_value(stripped)
            if name and name.replace(".", "").replace("_", "").isalnum() and name[:1].isalpha() and " " not in name:
                # a notebook's error output saved as JSON ("ename"/"evalue") or copied from VS Code ("name"/"message"):
                # the type here, the message on a line after it (read when the error is finished)
                error = ParsedError(type=name, message="", line_no=line_no, rank=rank)
                self._start(error)
                self.json_named = error
                return
        m = _exception_in(line, stripped)
        if m is None:
            r = patterns.REPR_EXCEPTION.search(line)
            if r and _raise_statement(line, r.start("type")):
                return  # the code of a raise (a notebook traceback's numbered context line), not the error it raised
            if r:
                error = ParsedError(r["type"], clip(r["message"].strip(), MAX_MESSAGE_CHARS), line_no=line_no, rank=rank)
                error.context = list(self.context)
                done = self._finish(error)
                if done:
                    yield done
                return
            typeless = self.known and line_no <= self.typeless_last_line
            start = known_message_start(stripped[:TYPELESS_LINE_CHARS], self.known, self.leading) if typeless else -1
            implied = _implied(stripped[start:] if start != -1 else stripped) if typeless else None
            if start == -1 and implied is not None:
                start = 0
            if start > 0 and _SOURCE_LEAD.search(stripped[:start]):
                return  # the message quoted by a notebook traceback's context line, not output
            if start != -1:
                # A well-known message pasted without its exception type, maybe inside prose or quotes.
                error = ParsedError(type="", message=clip(stripped[start:], MAX_MESSAGE_CHARS), line_no=line_no, rank=rank)
                self._start(error, lead=stripped[:start])
                if implied is not None and len(self.implied) < MAX_IMPLIED:
                    self.implied.append((error, *implied))
            return
        found_type, found_message, start = m
        message = clip(found_message.strip(), MAX_MESSAGE_CHARS)
        if message.endswith("`") and message.count("`") % 2 == 1:
            message = message[:-1].rstrip()
        elif line[:start].rstrip().endswith(_OPEN_DOUBLE):
            message = _unquoted(message)
        self._start(ParsedError(type=found_type, message=message, line_no=line_no, rank=rank), lead=line[:start])

    def end(self) -> Iterator[ParsedError]:
        yield from self._flush()
        for state in list(self.tracebacks.values()):  # truncated tracebacks: frames without an exception line
            yield from self._truncated(state)
        self.tracebacks.clear()
        if not self.typed_seen:
            # No error of the input named its type: the messages of Python's own shapes get the type they imply (the
            # errors were handed out already: they are completed here, as their following lines are by parse_chunks).
            for error, implied_type, message in self.implied:
                error.type, error.message = implied_type, message
        self.implied.clear()



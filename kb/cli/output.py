"""What every `kb` command shares: exit codes, colour only on a TTY, JSON on stdout, and the terminal
boundary every byte written passes (TerminalWriter, below: kb/render/sanitize.py's sanitize_for_terminal).

Exit codes (every command):
  0  success; for `diagnose`, at least one case matched; for `reproduce`, the
     program behaved as the case says (failing reproduced, or the fix worked)
  1  `diagnose`: nothing matched; `reproduce`: the program did not behave as documented;
     `env --fail-on-risk`: a risk was found
  2  usage error or unusable input (empty or only whitespace, binary, unreadable, unknown case, an
     unusable `env --config`, a number too large); for `diagnose`, also an internal error while
     reading the input; for every command, standard output that cannot be written (closed,
     read-only, a full disk: "kb <command>: cannot write the output"): one line on standard
     error, never a traceback
  3  `reproduce`: this machine lacks the hardware or packages the case needs
  4  `reproduce`, `verify`: no verdict: the program's process died before it reported (a signal,
     the OOM killer, an exit that skipped the harness); one line on standard error names how it
     ended and the memory caps it ran under
"""

from __future__ import annotations

import os
import sys

# the sanitiser itself (one implementation, shared with kb/notebook and kb/render/html.py): kb/render/sanitize.py
from kb.render.sanitize import escape_json_text, sanitize_for_terminal

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn

EXIT_OK, EXIT_NO_MATCH, EXIT_USAGE, EXIT_CANNOT_RUN = 0, 1, 2, 3
EXIT_WORKER_DIED = 4  # a reproduction's outcome `worker-died` (kb/reproduce/result.py): neither passed nor failed
MAX_USAGE_MESSAGE = 400


def one_line_usage_error(prog: str) -> Callable[[str], NoReturn]:
    """An argparse ``error`` for ``prog``: one line ``prog: message (prog --help)`` on standard error and exit
    code 2 (argparse's own prints the usage block first)."""

    def error(message: str) -> NoReturn:
        if len(message) > MAX_USAGE_MESSAGE:  # argparse quotes the argument whole: a 5,000-digit number, say
            message = f"{message[:MAX_USAGE_MESSAGE - 100]}...{message[-60:]}"
        print(f"{prog}: {message} ({prog} --help)", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)

    return error

# --------------------------------------------------------------------------- the terminal boundary
#
# Everything kb writes to standard output or error goes through sanitize_for_terminal (kb/render/sanitize.py; main()
# puts a TerminalWriter in front of both streams), so text from a log, a config, NVML or a knowledge file can
# never drive the terminal: no escape sequence (OSC 52 clipboard writes, titles, hyperlinks, ESC c,
# cursor moves), no control character (backspace, carriage return, BEL, DEL, VT/FF, C1), no bidi
# override or zero-width character. kb's own colours (Style) are the only escape sequences written: Style marks them with a
# per-process random tag that input cannot guess, and the writer turns only those marks into SGR codes.

_MARKS: list[Any] = []  # Style's marks' pattern, compiled on first use
_TAG = os.urandom(6).hex()  # Style's marks: "\ue000<tag><code>\ue001"; input cannot guess the tag
_MARK_OPEN, _MARK_CLOSE = f"\ue000{_TAG}", "\ue001"


def _marks() -> Any:
    if not _MARKS:
        import re  # (holds this process's random tag: not for the cache of fixed patterns)

        _MARKS.append(re.compile(f"{_MARK_OPEN}([0-9;]{{1,16}}){_MARK_CLOSE}"))
    return _MARKS[0]


def terminal_text(text: str) -> str:
    """What the terminal gets for ``text``: sanitize_for_terminal'd, Style's marks turned into SGR codes."""
    if _MARK_OPEN not in text:
        return sanitize_for_terminal(text)
    pieces = _marks().split(text)  # text, code, text, code, ..., text
    return "".join(sanitize_for_terminal(p) if i % 2 == 0 else f"\x1b[{p}m" for i, p in enumerate(pieces))


class TerminalWriter:
    """A text stream in front of standard output or error that writes only sanitized text (see above).

    main() installs one in front of each stream, so every print() and write() of every command passes
    through sanitize_for_terminal; Style's marks become SGR codes here and nowhere else."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.failed = False  # a write or flush raised OSError: main() says "cannot write the output"
        # standard error (main() installs this writer while sys.stderr is still the stream itself): kb's messages
        # there quote the user's arguments (a file named by a token, a token given as --model), so they are
        # redacted too; and an error stream that cannot be written (2>/dev/full) has nowhere to say so: kb's
        # exit code still tells what happened
        self.errors = stream is sys.stderr

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError:
            self.failed = True
            if not self.errors:
                raise

    def write(self, text: str) -> int:
        out = terminal_text(_redacted(text) if self.errors else text)
        try:
            self.stream.write(out)
        except OSError:
            self.failed = True
            if not self.errors:
                raise
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding, buffer, ...
        return getattr(self.stream, name)


def _redacted(text: str) -> str:
    """``text`` with its secrets masked (kb/diagnose/redact: imported only when something is written to standard
    error); as given when the knowledge, whose table says what a secret is, cannot be read."""
    if not text.strip():
        return text
    from kb.diagnose.redact import redact
    from kb.knowledge.paths import KnowledgeNotFound

    try:
        return redact(text)
    except (KnowledgeNotFound, OSError, ValueError):
        return text


def write_text(text: str) -> None:
    """Write ``text`` to standard output through the terminal boundary (a TerminalWriter; main() installs
    one, and a caller that runs a command without main() gets one here)."""
    out = sys.stdout
    (out if isinstance(out, TerminalWriter) else TerminalWriter(out)).write(text)


class Style:
    """ANSI styling that is on only when the stream is a terminal and NO_COLOR is unset.

    Styled text carries marks that only the TerminalWriter turns into colour codes (written elsewhere,
    the marks are harmless private-use characters); the text itself is sanitized there like any other."""

    def __init__(self, stream: Any) -> None:
        self.on = hasattr(stream, "isatty") and stream.isatty() and not os.environ.get("NO_COLOR")

    def __call__(self, text: str, code: str) -> str:
        return f"{_MARK_OPEN}{code}{_MARK_CLOSE}{text}{_MARK_OPEN}0{_MARK_CLOSE}" if self.on else text


def terminal_width(stream: Any, default: int = 80) -> int:
    """The width text for ``stream`` wraps to: $COLUMNS, else the terminal's, else ``default`` (a file, a pipe).

    os.get_terminal_size, not shutil's: shutil costs diagnose's start-up more than it saves."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isascii() and columns.isdigit() and 0 < len(columns) <= 4:
        return max(int(columns), 40)
    try:
        if hasattr(stream, "isatty") and stream.isatty():
            return max(os.get_terminal_size(stream.fileno()).columns, 40)
    except (OSError, ValueError, AttributeError):
        pass
    return default


def writes_utf8(stream: Any) -> bool:
    """Whether ``stream`` encodes as UTF-8 (else kb's "·" and the input's own text may not print)."""
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    return encoding == "utf8"


def tolerate_encoding() -> None:
    """Let standard output and error print what their encoding cannot (PYTHONIOENCODING=ascii, a C
    locale): such characters become "?" instead of ending kb in a UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and not writes_utf8(stream) and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="replace")
            except (ValueError, OSError):
                pass


def _finite(data: Any) -> Any:
    """``data`` with NaN and infinities as null: strict JSON has no spelling for them."""
    if isinstance(data, float):
        import math

        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_finite(v) for v in data]
    return data


def print_json(data: Any) -> None:
    """Strict JSON on standard output (no bare NaN); \\u escapes where the output is not UTF-8, and for
    every character sanitize_for_terminal escapes (escape_json_text)."""
    import json  # only the JSON outputs pay for it

    ascii_only = not writes_utf8(sys.stdout)
    try:
        text = json.dumps(data, indent=2, ensure_ascii=ascii_only, allow_nan=False)
    except ValueError:
        text = json.dumps(_finite(data), indent=2, ensure_ascii=ascii_only, allow_nan=False)
    write_text(escape_json_text(text) + "\n")

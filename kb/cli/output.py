"""What every `kb` command shares: exit codes, colour only on a TTY, JSON on stdout.

Exit codes (every command):
  0  success; for `diagnose`, at least one case matched; for `reproduce`, the
     program behaved as the case says (failing reproduced, or the fix worked)
  1  `diagnose`: nothing matched; `reproduce`: the program did not behave as documented;
     `env --fail-on-risk`: a risk was found
  2  usage error or unusable input (empty or only whitespace, binary, unreadable, unknown case, an
     unusable `env --config`); for `diagnose`, also an internal error while reading the input; for
     every command, standard output that cannot be written (a full disk): one line on standard
     error, never a traceback
  3  `reproduce`: this machine lacks the hardware or packages the case needs
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from typing import Any

EXIT_OK, EXIT_NO_MATCH, EXIT_USAGE, EXIT_CANNOT_RUN = 0, 1, 2, 3


class Style:
    """ANSI styling that is on only when the stream is a terminal and NO_COLOR is unset."""

    def __init__(self, stream: Any) -> None:
        self.on = hasattr(stream, "isatty") and stream.isatty() and not os.environ.get("NO_COLOR")

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.on else text


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
    """Strict JSON on standard output (no bare NaN); \\u escapes where the output is not UTF-8."""
    import json  # only the JSON outputs pay for it

    ascii_only = not writes_utf8(sys.stdout)
    try:
        text = json.dumps(data, indent=2, ensure_ascii=ascii_only, allow_nan=False)
    except ValueError:
        text = json.dumps(_finite(data), indent=2, ensure_ascii=ascii_only, allow_nan=False)
    sys.stdout.write(text + "\n")

"""What every `kb` command shares: exit codes, colour only on a TTY, JSON on stdout.

Exit codes (every command):
  0  success; for `diagnose`, at least one case matched; for `reproduce`, the
     program behaved as the case says (failing reproduced, or the fix worked)
  1  `diagnose`: nothing matched; `reproduce`: the program did not behave as documented;
     `env --fail-on-risk`: a risk was found
  2  usage error or unusable input (empty, binary, unreadable, unknown case); for `diagnose`,
     also an internal error while reading the input (reported in one line, never a traceback)
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


def print_json(data: Any) -> None:
    import json  # only the JSON outputs pay for it

    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")

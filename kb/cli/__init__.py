"""The `kb` command line: the entry point, which sends each command where it is handled.

`kb diagnose` goes straight to kb/diagnose/command.py, whose small argument reader keeps
argparse (and the modules of the other commands) out of its start-up; everything else,
and any diagnose arguments that reader does not take, goes to argparse in kb/cli/commands.py.
Exit codes are listed in kb/cli/output.py and in the README.
"""

from __future__ import annotations

import sys

from kb.cli.output import EXIT_OK

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args[:1] == ["diagnose"]:
            from kb.diagnose.command import parse_diagnose_args, run_diagnose

            options = parse_diagnose_args(args[1:])
            if options is not None:
                return run_diagnose(options)
        from kb.cli.commands import run_command

        return run_command(args)
    except BrokenPipeError:  # `kb ... | head`
        return EXIT_OK
    except KeyboardInterrupt:
        return 130

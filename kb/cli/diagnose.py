"""`kb diagnose`'s command line: a small argument reader and the command (its text is kb/render/diagnosis.py).

Diagnose should start about as fast as Python itself. argparse, with the gettext, locale
and shutil modules it pulls in, costs more than the rest of kb's start-up together, so
this module reads diagnose's few options itself. Whatever it does not take (``--help``,
an unknown or abbreviated option, a bad value) it hands to argparse in kb/cli/commands.py,
so help and usage errors read the same as every other command's.
"""

from __future__ import annotations

import sys

from kb.cli import LARGE_INPUT_BYTES, keep_freed_memory, started_up
from kb.cli.output import EXIT_NO_MATCH, EXIT_OK, EXIT_USAGE, Style, print_json, terminal_width
from kb.render.sanitize import sanitize_data

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    import argparse

FORMATS = ("text", "json")
MAX_INT_DIGITS = 9  # a longer --limit is handed to argparse, which says it is too large (int() of 5,000 digits raises)


class DiagnoseOptions:
    """What `kb diagnose` was asked: the same attribute names as argparse's namespace for it."""

    __slots__ = ("file", "format", "limit", "env", "all", "width")

    def __init__(self, file: str = "-", format: str = "text", limit: int = 0, env: bool = False,
                 all: bool = False, width: int = 0) -> None:
        self.file, self.format, self.limit, self.env = file, format, limit, env
        self.all, self.width = all, width


def parse_diagnose_args(args: list[str]) -> DiagnoseOptions | None:
    """The options in ``args`` (after ``diagnose``), or None to let argparse handle them.

    Takes ``[FILE|-] [--format text|json] [--limit N] [--env] [--all] [--width N]``, with ``--opt=value`` too.
    """
    options = DiagnoseOptions()
    files: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--env":
            options.env = True
        elif arg == "--all":
            options.all = True
        elif arg in ("--format", "--limit", "--width") or arg.startswith(("--format=", "--limit=", "--width=")):
            if "=" in arg:
                name, value = arg.split("=", 1)
            elif i + 1 < len(args):
                name, value = arg, args[i + 1]
                i += 1
            else:
                return None
            if name == "--format":
                if value not in FORMATS:
                    return None
                options.format = value
            else:
                digits = value.lstrip("0")  # int() refuses 4,300 characters even when they are zeros
                if not (value.isascii() and value.isdigit()) or len(digits) > MAX_INT_DIGITS or not digits:
                    return None  # argparse says what is wrong
                if name == "--limit":
                    options.limit = int(digits)
                else:
                    options.width = int(digits)
        elif arg == "-" or not arg.startswith("-"):
            files.append(arg)
        else:
            return None
        i += 1
    if len(files) > 1:
        return None
    if files:
        options.file = files[0]
    return options


def run_diagnose(ns: DiagnoseOptions | argparse.Namespace) -> int:
    """Read the input, match it, print the result; the exit code says whether anything matched."""
    from kb.diagnose.diagnosis import diagnose_reader
    from kb.diagnose.document import diagnosis_document, screen_document
    from kb.diagnose.input import BLOCK_BYTES, UnusableInput, file_size, open_input
    from kb.knowledge.index import load_index
    from kb.knowledge.model import KnowledgeError

    try:
        knowledge = load_index()
    except KnowledgeError as exc:
        print(f"kb diagnose: broken knowledge file: {exc}", file=sys.stderr)
        return EXIT_USAGE
    # the cyclic collector back on before the input is read, unless it is a file of one block (kb/cli/__init__.py)
    size = file_size(ns.file)
    started_up(size is not None and size <= BLOCK_BYTES)
    keep_freed_memory(size)  # a regular file of 32 MiB or more: malloc keeps what it frees (kb/cli/__init__.py)
    machine = None
    if getattr(ns, "env", False):  # `kb diagnose --env`: this machine's facts are evidence, weighed before ranking
        from kb.env.report import collect
        from kb.env.risks import machine_evidence

        machine = machine_evidence(collect(), knowledge.cases)
    if ns.file == "-" and sys.stdin is not None and sys.stdin.isatty():
        print("kb diagnose: reading the error output from standard input; paste it, then Ctrl-D "
              "(or give a file: kb diagnose train.log)", file=sys.stderr)
    try:
        reader = open_input(ns.file)
        if size is None:  # a pipe: told when LARGE_INPUT_BYTES have been read (kb/cli/__init__.py)
            reader.after_bytes = (LARGE_INPUT_BYTES, lambda: keep_freed_memory(LARGE_INPUT_BYTES))
        diagnosis = diagnose_reader(reader, knowledge, machine)
        # the one-screen text reads a few of the document's fields: only those are built for it (document.py)
        one_screen = ns.format != "json" and not getattr(ns, "all", False)
        doc = screen_document(diagnosis) if one_screen else diagnosis_document(diagnosis)
    except UnusableInput as exc:
        print(f"kb diagnose: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # a read failing midway (I/O error, a FIFO closed): still a clear message
        print(f"kb diagnose: cannot read {ns.file}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except (RecursionError, MemoryError, ValueError, TypeError, IndexError, KeyError, AttributeError) as exc:
        # A bug in kb must not print a traceback full of the user's log (and its secrets): say so briefly.
        print(f"kb diagnose: internal error ({type(exc).__name__}) while reading {ns.file}; please report it "
              "with the input that caused it (remove secrets first)", file=sys.stderr)
        return EXIT_USAGE
    if ns.limit:
        doc["matches"] = doc["matches"][: ns.limit]
    if ns.format == "json":
        print_json(doc)  # escapes what a terminal would act on (kb/cli/output.py: escape_json_text)
        return EXIT_OK if doc["matches"] else EXIT_NO_MATCH
    from kb.render.diagnosis import format_diagnosis

    # The terminal boundary: every string of the document is sanitized before the text is built, and what
    # is written passes sanitize_for_terminal again (main()'s TerminalWriter).
    width = getattr(ns, "width", 0) or terminal_width(sys.stdout)
    sys.stdout.write(format_diagnosis(sanitize_data(doc), width=width, full=getattr(ns, "all", False),
                                      style=Style(sys.stdout)))
    return EXIT_OK if doc["matches"] else EXIT_NO_MATCH

"""`kb diagnose`'s command line: a small argument reader, the command, and its human output.

Diagnose should start about as fast as Python itself. argparse, with the gettext, locale
and shutil modules it pulls in, costs more than the rest of kb's start-up together, so
this module reads diagnose's few options itself. Whatever it does not take (``--help``,
an unknown or abbreviated option, a bad value) it hands to argparse in kb/cli/commands.py,
so help and usage errors read the same as every other command's.
"""

from __future__ import annotations

import sys

from kb.cli.output import EXIT_NO_MATCH, EXIT_OK, EXIT_USAGE, Style, print_json

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    import argparse
    from typing import Any

FORMATS = ("text", "json")


class DiagnoseOptions:
    """What `kb diagnose` was asked: the same attribute names as argparse's namespace for it."""

    __slots__ = ("file", "format", "limit", "env")

    def __init__(self, file: str = "-", format: str = "text", limit: int = 0, env: bool = False) -> None:
        self.file, self.format, self.limit, self.env = file, format, limit, env


def parse_diagnose_args(args: list[str]) -> DiagnoseOptions | None:
    """The options in ``args`` (after ``diagnose``), or None to let argparse handle them.

    Takes ``[FILE|-] [--format text|json] [--limit N] [--env]``, with ``--opt=value`` too.
    """
    options = DiagnoseOptions()
    files: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--env":
            options.env = True
        elif arg in ("--format", "--limit") or arg.startswith(("--format=", "--limit=")):
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
                if not (value.isascii() and value.isdigit()):
                    return None
                options.limit = int(value)
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


def _indent(text: str, prefix: str) -> str:
    """textwrap.indent for non-blank lines, without importing textwrap."""
    return "".join(prefix + line if line.strip() else line for line in text.splitlines(keepends=True))


def run_diagnose(ns: DiagnoseOptions | argparse.Namespace) -> int:
    """Read the input, match it, print the result; the exit code says whether anything matched."""
    from kb.diagnose.diagnosis import diagnose_reader, diagnosis_document
    from kb.diagnose.input import UnusableInput, open_input
    from kb.knowledge.index import load_index

    try:
        reader = open_input(ns.file)
        diagnosis = diagnose_reader(reader, load_index())
        doc = diagnosis_document(diagnosis)
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
    if getattr(ns, "env", False):  # `kb diagnose --env`: see kb/env/risks.py
        from kb.env.report import collect
        from kb.env.risks import attach_to_diagnosis

        attach_to_diagnosis(doc, collect())
    if ns.limit:
        doc["matches"] = doc["matches"][: ns.limit]
    if ns.format == "json":
        print_json(doc)
        return EXIT_OK if doc["matches"] else EXIT_NO_MATCH
    print_diagnosis(doc, Style(sys.stdout))
    return EXIT_OK if doc["matches"] else EXIT_NO_MATCH


_CONFIDENCE_COLOUR = {"high": "32", "medium": "33", "low": "2"}


def print_diagnosis(doc: dict[str, Any], style: Style) -> None:
    """Human output of `kb diagnose` (the JSON document, rendered; colour only on a TTY)."""
    root = doc["root_error"]
    noise = [e for e in doc.get("errors", []) if e.get("noise")]
    env = doc.get("environment") or {}
    if not doc["matches"]:
        if root is None:
            print("No error found in the input (looked for Python tracebacks, `SomethingError: message` lines,")
            print("NCCL warnings and CUDA assertions).")
        elif root.get("noise"):
            print(style("Only follow-on errors were found; the error that started it is not in the input.", "1"))
            print(f"  {root['type']}: {root['message'][:200]}")
            print(f"  ({root['noise']})")
            print("  Paste the earlier output of the first process that failed (often prefixed [rankN]:).")
        else:
            print(style("No known case matches this error.", "1"))
            where = f"line {root['line']}" + (f", rank {root['rank']}" if root.get("rank") else "")
            print(f"  root error ({where}): {root['type'] or '(truncated traceback)'}: {root['message'][:300]}")
            if root.get("user_frame"):
                print(f"  your code: {root['user_frame']}")
        if root and root.get("meaning"):
            print(f"  what it usually means: {root['meaning']}")
        if env:
            print("  from the log: " + ", ".join(f"{k}={v}" for k, v in env.items()))
        print("Run `kb list` to see the known cases.")
        for note in doc["notes"]:
            print(f"note: {note}")
        return
    for rank, m in enumerate(doc["matches"], start=1):
        confidence = m.get("confidence", "")
        print(style(f"{rank}. {m['id']} {m['slug']}", "1") + "  "
              + style(f"{confidence} confidence", _CONFIDENCE_COLOUR.get(confidence, "0")) + f" (score {m['score']:.2f})")
        print(f"   {m['title']}")
        where = f"line {m['error']['line']}" + (f", rank {m['error']['rank']}" if m["error"].get("rank") else "")
        print(f"   error ({where}): {m['error']['type']}: {m['error']['message'][:300]}")
        if m["user_frame"]:
            print(f"   your code: {m['user_frame']}")
        if m.get("raised_in"):
            print(f"   raised in: {m['raised_in']}")
        if m.get("why"):
            print(f"   why: {m['why']}")
        print("   evidence:")
        for line in m["evidence"]:
            print(f"     - {line}")
        if m["fix"]:
            print(style("   fix:", "1"))
            print(_indent(m["fix"].strip(), "     "))
        print(f"   more: {m['more']}" + (f"  ·  {m['docs']}" if m.get("docs") else ""))
        print()
    if root is not None and doc["matches"][0]["error"]["line"] != root["line"]:
        print(f"root error of the log (line {root['line']}): {root['type']}: {root['message'][:200]}")
    if noise:
        kinds = sorted({e["type"].rsplit(".", 1)[-1] for e in noise})
        print(f"ignored as follow-on noise: {len(noise)} error(s) ({', '.join(kinds)})")
    if env:
        print("from the log: " + ", ".join(f"{k}={v}" for k, v in env.items()))
    for note in doc["notes"]:
        print(f"note: {note}")

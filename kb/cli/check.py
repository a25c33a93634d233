"""`kb check [--format json]`: the tidy checks of the knowledge (kb/tidy), one problem a line.

Text: ``path: message`` for each problem (paths relative to the working directory when below it),
then a summary line. JSON: ``{"ok", "problems": [{"path", "rule", "message"}], "checked": {...}}`` (``checked.signatures``:
whether the signature rule was applied; it is not without the checkout's dev set, see kb/tidy).
Exit 0 when clean, 1 when there are problems, 2 when the knowledge cannot be read at all.
"""

from __future__ import annotations

import argparse
import sys

from kb.cli.output import EXIT_NO_MATCH, EXIT_OK, EXIT_USAGE, print_json


def add_check_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from kb.tidy import RULES

    p = sub.add_parser(
        "check", help="check the knowledge: schema, placeholders, recorded runs, snippets, signatures, examples, families",
        description="The tidy checks of the knowledge (cases, families, examples): every problem, one a line.",
        epilog="rules:\n" + "\n".join(f"  {name:<12} {text}" for name, text in RULES.items())
               + "\n\nexit codes: 0 clean, 1 problems, 2 the knowledge cannot be read (docs/authoring.md)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_check)


def cmd_check(ns: argparse.Namespace) -> int:
    from kb.tidy import Roots, Unreadable, check

    try:
        report = check(Roots.current())
    except Unreadable as exc:
        print(f"kb check: {exc}", file=sys.stderr)
        return EXIT_USAGE
    checked = {"cases": report.cases, "families": report.families, "examples": report.examples,
               "outputs": report.inputs, "signatures": report.signatures}
    if ns.format == "json":
        print_json({"ok": not report.problems, "problems": [p.document() for p in report.problems],
                    "checked": checked})
    else:
        for problem in report.problems:
            print(problem.line())
        files = len({p.path for p in report.problems})
        what = ", ".join(_count(n, word) for n, word in ((report.cases, "case"), (report.families, "family"),
                                                         (report.examples, "example"), (report.inputs, "output")))
        what += " diagnosed"
        if not report.signatures:
            what += "; signatures not judged: no dev set (a checkout's tests/fixtures/diagnose/)"
        if report.problems:
            print(f"kb check: {_count(len(report.problems), 'problem')} in {_count(files, 'file')} ({what})")
        else:
            print(f"kb check: clean ({what})")
    return EXIT_NO_MATCH if report.problems else EXIT_OK


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word[:-1]}ies" if word.endswith("y") else f"{n} {word}s"

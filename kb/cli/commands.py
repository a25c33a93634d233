"""The argparse commands of `kb`: list, show, explain, env, reproduce, and the parser for all of them.

`kb diagnose` is parsed here too when kb/diagnose/command.py's small reader hands it over
(``--help``, a usage error); its work is done in kb/diagnose/command.py either way.
"""

from __future__ import annotations

import argparse
import sys

from kb.cli.output import EXIT_CANNOT_RUN, EXIT_NO_MATCH, EXIT_OK, EXIT_USAGE, Style, print_json
from kb.diagnose.command import run_diagnose

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def cmd_list(ns: argparse.Namespace) -> int:
    from kb.knowledge.registry import all_cases
    from kb.site.render import case_summary

    cases = all_cases()
    if ns.format == "json":
        print_json({"cases": [case_summary(c) for c in cases]})
        return EXIT_OK
    for c in cases:
        print(f"{c.id}  {c.slug:<34} {','.join(c.hardware):<10} {c.title}")
    return EXIT_OK


def _section_text(title: str, body: str) -> str:
    return f"{title}\n{'-' * len(title)}\n{body.strip()}\n"


def cmd_show(ns: argparse.Namespace, explain_only: bool = False) -> int:
    from kb.knowledge.registry import find_case
    from kb.site.render import case_document, program_diff

    case = find_case(ns.case)
    if ns.format == "json":
        print_json(case_document(case))
        return EXIT_OK
    style = Style(sys.stdout)
    print(style(f"{case.id} {case.slug}", "1"))
    print(case.title)
    if case.setting:
        print(f"\nSeen in: {case.setting}")
    for heading, body in case.sections.items():
        print()
        print(_section_text(heading, body))
    if explain_only:
        return EXIT_OK
    doc = case_document(case)
    print(_section_text("Hardware", ", ".join(case.hardware)))
    for rep in case.reproductions:
        print(_section_text(f"Use instead ({rep.name}: {rep.failing} -> {rep.fixed})", program_diff(case, rep)))
    if doc["observed"]:
        lines = [
            f"{r['date']}  {r['reproduction']}.{r['program']} on {r['profile']}: {r['outcome']}"
            f"  ({r.get('gpu') or r.get('cpu')}; "
            + ", ".join(f"{k} {v}" for k, v in (r.get("versions") or {}).items())
            + ")"
            for r in doc["observed"]
        ]
        print(_section_text("Observed", "\n".join(lines)))
    else:
        print(_section_text("Observed", "no recorded runs yet (kb reproduce --record)"))
    print(_section_text("Verification", doc["verification"]["headline"]))
    print(f"Folder: {case.path}")
    return EXIT_OK


def cmd_reproduce(ns: argparse.Namespace) -> int:
    from kb.knowledge.registry import find_case
    from kb.reproduce.runner import cannot_run, run_program

    case = find_case(ns.case)
    if not case.reproductions:
        print(f"kb reproduce: {case.id} has no reproduction ({case.status})", file=sys.stderr)
        return EXIT_CANNOT_RUN
    if ns.variant:
        try:
            rep = case.reproduction(ns.variant)
        except KeyError:
            names = ", ".join(r.name for r in case.reproductions)
            print(f"kb reproduce: {case.id} has no reproduction {ns.variant!r} (has: {names})", file=sys.stderr)
            return EXIT_USAGE
    else:
        rep = case.reproductions[0]
    reasons = []
    profiles = [ns.profile] if ns.profile else list(rep.hardware)
    chosen = None
    for name in profiles:
        reason = cannot_run(rep, name)
        if reason is None:
            chosen = name
            break
        reasons.append(f"{name}: {reason}")
    if chosen is None:
        print(f"kb reproduce: cannot run {case.id} {rep.name} here: " + "; ".join(reasons), file=sys.stderr)
        return EXIT_CANNOT_RUN
    program = "fixed" if ns.fixed else "failing"
    result = run_program(case, rep, program, chosen, timeout=ns.timeout)
    if ns.record:
        from kb.reproduce.evidence import record

        path = record(case, result)
        print(f"recorded {path}", file=sys.stderr)
    if ns.format == "json":
        print_json(
            {
                "id": case.id, "slug": case.slug, "reproduction": rep.name, "program": program,
                "profile": chosen, "outcome": result.outcome, "passed": result.passed,
                "explanation": result.explanation, "exit_code": result.exit_code,
                "duration_s": result.duration_s, "measures": result.measures,
                "exception": result.exception(), "environment": result.environment(),
            }
        )
    else:
        if not ns.quiet:
            sys.stdout.write(result.output)
        print(f"\n{case.id} {rep.name} {program} on {chosen}: {result.outcome} — {result.explanation}")
    return EXIT_OK if result.passed else EXIT_NO_MATCH


def cmd_env(ns: argparse.Namespace) -> int:
    from kb.env.report import collect
    from kb.env.config import ConfigError
    from kb.env.text import render_text

    try:
        report = collect(config_path=ns.config, nproc=ns.nproc)
    except ConfigError as exc:
        print(f"kb env: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if ns.format == "json":
        print_json(report)
    else:
        sys.stdout.write(render_text(report))
    return EXIT_NO_MATCH if ns.fail_on_risk and report["risks"] else EXIT_OK


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    from kb import __version__
    from kb.cli import output as cli_output

    parser = argparse.ArgumentParser(
        prog="kb",
        description="A troubleshooting knowledge base for LLM fine-tuning failures on small GPUs.",
        epilog=cli_output.__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )

    parser.add_argument("--version", action="version", version=f"kb {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("list", help="list the cases")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_list)

    for name, explain in (("show", False), ("explain", True)):
        p = sub.add_parser(
            name, help="the whole case: prose, diff, recorded runs" if not explain else "the case's prose only"
        )
        p.add_argument("case", metavar="ID|SLUG")
        p.add_argument("--format", choices=("text", "json"), default="text")
        p.set_defaults(func=lambda ns, e=explain: cmd_show(ns, explain_only=e))

    p = sub.add_parser("diagnose", help="match error output (a file, or - for stdin) to cases")
    p.add_argument("file", nargs="?", default="-", metavar="FILE|-")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--limit", type=int, default=0, help="show at most this many matches")
    p.add_argument("--env", action="store_true", help="attach `kb env`'s report and use it as evidence")
    p.set_defaults(func=run_diagnose)

    p = sub.add_parser("env", help="environment report and pre-flight risk check (GPUs, launch, versions)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--config", metavar="FILE", help="TrainingArguments/SFTConfig (or accelerate) JSON or YAML to check")
    p.add_argument("--nproc", type=_positive_int, metavar="N", help="processes per node you will launch (torchrun --nproc-per-node)")
    p.add_argument("--fail-on-risk", action="store_true", help="exit 1 when a risk is found (for CI / pre-flight scripts)")
    p.set_defaults(func=cmd_env)

    p = sub.add_parser("reproduce", help="run a case's failing (or --fixed) program and judge it")
    p.add_argument("case", metavar="ID|SLUG")
    p.add_argument("--fixed", action="store_true", help="run the fixed program instead of the failing one")
    p.add_argument("--variant", help="which reproduction (default: the first)")
    p.add_argument("--profile", help="hardware profile (default: the first this machine can run)")
    p.add_argument("--record", action="store_true", help="write the run into the case's evidence/ folder")
    p.add_argument("--timeout", type=int, help="seconds (default: the case's)")
    p.add_argument("--quiet", action="store_true", help="do not echo the program's output")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_reproduce)
    return parser


def run_command(argv: Sequence[str]) -> int:
    """Parse ``argv`` (without the program name) with argparse and run the command."""
    parser = build_parser()
    try:
        ns = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 for --help
        return int(exc.code or 0)
    if not getattr(ns, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(ns.func(ns))
    except Exception as exc:
        from kb.knowledge.load import KnowledgeError
        from kb.reproduce.profiles import UnknownProfile
        from kb.knowledge.registry import UnknownEntry

        if isinstance(exc, (UnknownEntry, UnknownProfile)):
            print(f"kb {ns.command}: {exc.args[0]}", file=sys.stderr)
            return EXIT_USAGE
        if isinstance(exc, KnowledgeError):
            print(f"kb {ns.command}: broken knowledge file: {exc}", file=sys.stderr)
            return EXIT_USAGE
        raise

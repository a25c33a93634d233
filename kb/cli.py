"""The `kb` command line.

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

import argparse
import json
import os
import sys
import textwrap
TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

EXIT_OK, EXIT_NO_MATCH, EXIT_USAGE, EXIT_CANNOT_RUN = 0, 1, 2, 3


class _Style:
    def __init__(self, stream: Any) -> None:
        self.on = hasattr(stream, "isatty") and stream.isatty() and not os.environ.get("NO_COLOR")

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.on else text


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def cmd_list(ns: argparse.Namespace) -> int:
    from kb.registry import all_cases
    from kb.render import case_summary

    cases = all_cases()
    if ns.format == "json":
        _print_json({"cases": [case_summary(c) for c in cases]})
        return EXIT_OK
    for c in cases:
        print(f"{c.id}  {c.slug:<34} {','.join(c.hardware):<10} {c.title}")
    return EXIT_OK


def _section_text(title: str, body: str) -> str:
    return f"{title}\n{'-' * len(title)}\n{body.strip()}\n"


def cmd_show(ns: argparse.Namespace, explain_only: bool = False) -> int:
    from kb.registry import find_case
    from kb.render import case_document, program_diff

    case = find_case(ns.case)
    if ns.format == "json":
        _print_json(case_document(case))
        return EXIT_OK
    style = _Style(sys.stdout)
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


def cmd_diagnose(ns: argparse.Namespace) -> int:
    from kb.diagnose import diagnose_reader, diagnosis_document
    from kb.inputs import UnusableInput, open_input
    from kb.signature_index import load_index

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
    if getattr(ns, "env", False):  # `kb diagnose --env`: see kb/risks.py
        from kb.env import collect
        from kb.risks import attach_to_diagnosis

        attach_to_diagnosis(doc, collect())
    if ns.limit:
        doc["matches"] = doc["matches"][: ns.limit]
    if ns.format == "json":
        _print_json(doc)
        return EXIT_OK if doc["matches"] else EXIT_NO_MATCH
    _print_diagnosis(doc, _Style(sys.stdout))
    return EXIT_OK if doc["matches"] else EXIT_NO_MATCH


_CONFIDENCE_COLOUR = {"high": "32", "medium": "33", "low": "2"}


def _print_diagnosis(doc: dict[str, Any], style: _Style) -> None:
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
            print(textwrap.indent(m["fix"].strip(), "     "))
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


def cmd_reproduce(ns: argparse.Namespace) -> int:
    from kb.registry import find_case
    from kb.runner import cannot_run, run_program

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
        from kb.evidence import record

        path = record(case, result)
        print(f"recorded {path}", file=sys.stderr)
    if ns.format == "json":
        _print_json(
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
    from kb.env import collect
    from kb.env_config import ConfigError
    from kb.env_text import render_text

    try:
        report = collect(config_path=ns.config, nproc=ns.nproc)
    except ConfigError as exc:
        print(f"kb env: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if ns.format == "json":
        _print_json(report)
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
    parser = argparse.ArgumentParser(
        prog="kb",
        description="A troubleshooting knowledge base for LLM fine-tuning failures on small GPUs.",
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from kb import __version__

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
    p.set_defaults(func=cmd_diagnose)

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


def main(argv: Sequence[str] | None = None) -> int:
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
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # imported only on this path: diagnose's start-up stays light
        from kb.case import CaseError
        from kb.profiles import UnknownProfile
        from kb.registry import UnknownCase

        if isinstance(exc, (UnknownCase, UnknownProfile)):
            print(f"kb {ns.command}: {exc.args[0]}", file=sys.stderr)
            return EXIT_USAGE
        if isinstance(exc, CaseError):
            print(f"kb {ns.command}: broken case file: {exc}", file=sys.stderr)
            return EXIT_USAGE
        raise

"""The argparse commands of `kb`: list, show, explain, env, plan, reproduce, and the parser for all of them.

`kb diagnose` is parsed here too when kb/cli/diagnose.py's small reader hands it over
(``--help``, a usage error); its work is done in kb/cli/diagnose.py either way.
"""

from __future__ import annotations

import argparse
import sys
import textwrap

from kb.cli.output import EXIT_CANNOT_RUN, EXIT_NO_MATCH, EXIT_OK, EXIT_USAGE, EXIT_WORKER_DIED, Style, print_json
from kb.cli.diagnose import run_diagnose

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def cmd_list(ns: argparse.Namespace) -> int:
    from kb.knowledge.registry import all_cases, all_families
    from kb.site.render import case_summary, family_summary

    if ns.families:
        families = all_families()
        if ns.format == "json":
            print_json({"families": [family_summary(f) for f in families]})
            return EXIT_OK
        for f in families:
            print(f"{f.name:<22} {len(f.triage):>2} causes  {f.title}")
        return EXIT_OK
    cases = all_cases()
    if ns.format == "json":
        print_json({"cases": [case_summary(c) for c in cases]})
        return EXIT_OK
    for c in cases:
        print(f"{c.id}  {c.slug:<34} {c.family:<22} {','.join(c.hardware):<10} {c.title}")
    return EXIT_OK


def _section_text(title: str, body: str) -> str:
    return f"{title}\n{'-' * len(title)}\n{body.strip()}\n"


def show_family(name: str, fmt: str, explain_only: bool) -> int:
    from kb.knowledge.registry import all_cases, find_entry
    from kb.knowledge.model import Knowledge
    from kb.site.render import family_document, fix_text

    family = find_entry(name)
    doc = family_document(family, Knowledge(all_cases(), (family,), {}))  # type: ignore[arg-type]
    if fmt == "json":
        print_json(doc)
        return EXIT_OK
    style = Style(sys.stdout)
    print(style(f"family {family.name}", "1"))
    print(family.title)
    print()
    print(family.summary.strip())
    lines = []
    for i, t in enumerate(doc["triage"], start=1):
        case = f"  [{t['case_id']} {t['case']}]" if t["case"] else ""
        lines.append(f"{i}. {t['cause']}{case}\n   tell: {t['tell'].strip()}" + (f"\n   fix: {t['fix'].strip()}" if t["fix"] else ""))
    print()
    print(_section_text("Triage (most common cause first)", "\n".join(lines)))
    print(_section_text("Generic fix", fix_text(family)))
    for heading, body in family.sections.items():
        print(_section_text(heading, body))
    if explain_only:
        return EXIT_OK
    print(_section_text("Cases", "\n".join(f"{c['id']}  {c['slug']}  {c['title']}" for c in doc["cases"]) or "none yet"))
    print(_section_text("Wordings recognised", "\n".join(f"{s['name']}: /{s['message']}/" for s in doc["signatures"])))
    print(f"File: {family.file}")
    return EXIT_OK


def cmd_show(ns: argparse.Namespace, explain_only: bool = False) -> int:
    from kb.knowledge.registry import all_families, find_case
    from kb.knowledge.pins import pins_text
    from kb.site.render import case_document, program_diff

    if any(f.name == ns.case.strip() for f in all_families()):
        return show_family(ns.case, ns.format, explain_only)
    case = find_case(ns.case)
    if ns.format == "json":
        print_json(case_document(case))
        return EXIT_OK
    style = Style(sys.stdout)
    # The docs page's order (kb/site/case_page.py): headline, summary, the fix first, the verification,
    # then symptom, why, what did not work, when it does not apply; the programs and the runs last.
    from kb.reproduce.verification import verification

    print(style(case.title, "1"))
    print(f"{case.id} {case.slug}  (family: {case.family}; kb show {case.family})")
    print(f"\n{case.summary.strip()}\n")
    fix = [textwrap.dedent(case.fix_snippet).strip("\n"), ""] if case.fix_snippet.strip() else []
    print(_section_text("Fix", "\n".join(fix + [case.sections.get("Fix", "")])))
    from kb.reproduce.ranges import verified_text

    ranges = [f"Verified range of {rep.name}: {verified_text(case, rep)}" for rep in case.reproductions]
    print(_section_text("Verification", "\n".join([verification(case).headline, *ranges])))
    ordered = ["Symptom", "Why it happens", "What did not work", "When this does not apply"]
    for heading in ordered + [h for h in case.sections if h not in ordered and h != "Fix"]:
        body = case.sections.get(heading, "")
        if heading == "Symptom" and case.setting:
            body = f"Seen in: {case.setting}\n\n{body.strip()}"
        if body.strip():
            print(_section_text(heading, body))
    if explain_only:
        return EXIT_OK
    doc = case_document(case)
    print(_section_text("Hardware", ", ".join(case.hardware)))
    for rep in case.reproductions:
        diff = program_diff(case, rep, code_only=True) or "(only docstrings or comments differ)"
        if rep.pinned:  # which versions each program runs with (a fix by upgrade pins the fixed program apart)
            diff += f"\n\nVersions: {pins_text(rep)}"
        print(_section_text(f"Use instead ({rep.name}: {rep.failing} -> {rep.fixed})", diff))
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
    print(f"Folder: {case.path}")
    return EXIT_OK


def cmd_new(ns: argparse.Namespace) -> int:
    from kb.knowledge.registry import cases_dir
    from kb.knowledge.scaffold import ScaffoldError, checkout_dev_manifest, manifest_entry, new_case

    root = cases_dir()
    manifest = checkout_dev_manifest(root)  # only the checkout's own cases/ has its dev set
    try:
        folder = new_case(ns.slug, ns.family, root, manifest, ns.id)
    except ScaffoldError as exc:
        print(f"kb new: {exc}", file=sys.stderr)
        return EXIT_USAGE
    case_id = folder.name[:6]
    print(f"created {folder}/ (case.md, failing.py, fixed.py)")
    if manifest is not None:
        print(f"added a commented dev-set entry to the end of {manifest}: paste a real public report and uncomment it")
    else:
        print(f"no dev-set entry written ({root} is not the cases/ of a checkout with tests/fixtures/diagnose/); "
              "the entry, for a dev set of yours:")
        print(manifest_entry(case_id, ns.slug, ns.family).strip("\n"))
    print("next (docs/authoring.md):\n"
          "  1. fill in every TODO and OWNER/REPO in case.md, failing.py and fixed.py\n"
          f"  2. kb reproduce {case_id}  and  kb reproduce {case_id} --fixed\n"
          f"  3. record both runs: kb reproduce {case_id} --record  and  kb reproduce {case_id} --fixed --record\n"
          "  4. kb check")
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
    program = "fixed" if ns.fixed else "failing"
    for name in profiles:
        reason = cannot_run(rep, name, program)
        if reason is None:
            chosen = name
            break
        reasons.append(f"{name}: {reason}")
    if chosen is None:
        print(f"kb reproduce: cannot run {case.id} {rep.name} here: " + "; ".join(reasons), file=sys.stderr)
        return EXIT_CANNOT_RUN
    result = run_program(case, rep, program, chosen, timeout=ns.timeout)
    from kb.reproduce.result import WORKER_DIED

    died = result.outcome == WORKER_DIED  # no verdict: nothing for evidence/ (the earlier run stays)
    if ns.record and not died:
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
    what = f"{case.id} {rep.name} {program} on {chosen}"
    return reproduce_exit_code(result.passed, result.outcome, result.explanation + ("; not recorded" if ns.record and died else ""), what)


def reproduce_exit_code(passed: bool, outcome: str, explanation: str, what: str) -> int:
    """`kb reproduce`'s exit code for a verdict: 0 passed, 1 did not behave as documented, 4 no verdict
    (``worker-died``: the program's process died before it reported), with one line on standard error
    saying how it ended and under which memory caps (the runner's explanation says both)."""
    from kb.reproduce.result import WORKER_DIED

    if passed:
        return EXIT_OK
    if outcome == WORKER_DIED:
        why = " ".join(explanation.removeprefix("no verdict, ").split())  # one line whatever the runner wrote
        print(f"kb reproduce: no verdict on {what} ({WORKER_DIED}): {why}", file=sys.stderr)
        return EXIT_WORKER_DIED
    return EXIT_NO_MATCH


def cmd_env(ns: argparse.Namespace) -> int:
    from kb.env.report import collect
    from kb.env.config import ConfigError
    from kb.cli.env_text import render_text

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


def cmd_plan(ns: argparse.Namespace) -> int:
    from kb.cli.plan import run_plan

    return run_plan(ns)


def _positive_int(text: str) -> int:
    from kb.cli.diagnose import MAX_INT_DIGITS

    bare = text.strip()
    sign, rest = (bare[0], bare[1:]) if bare[:1] in ("+", "-") else ("", bare)
    plain = rest.isascii() and rest.isdigit()
    digits = rest.lstrip("0")
    if plain and len(digits) > MAX_INT_DIGITS:
        raise argparse.ArgumentTypeError(f"too large: a number of {len(digits)} digits")
    try:  # leading zeros off: int() refuses 4,300 characters even when they are zeros
        value = int(sign + (digits or "0")) if plain else int(text)
    except ValueError:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise argparse.ArgumentTypeError(f"not a whole number: {shown!r}") from None
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

    p = sub.add_parser("list", help="list the cases (or the failure families)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--families", action="store_true", help="list the failure families instead of the cases")
    p.set_defaults(func=cmd_list)

    for name, explain in (("show", False), ("explain", True)):
        p = sub.add_parser(
            name, help="the whole case or family: prose, diff, recorded runs, triage" if not explain
            else "the case's or family's prose only"
        )
        p.add_argument("case", metavar="ID|SLUG|FAMILY")
        p.add_argument("--format", choices=("text", "json"), default="text")
        p.set_defaults(func=lambda ns, e=explain: cmd_show(ns, explain_only=e))

    p = sub.add_parser(
        "diagnose", help="match error output (a file, or - for stdin) to cases and failure families",
        description="Read error output (a traceback, a log, an issue you pasted) and answer with the known case "
                    "that explains it, or the failure family with its triage: why kb thinks so, and the fix with "
                    "your numbers filled in. Secrets and home paths in your input are redacted before printing.",
        epilog="examples:\n  kb diagnose train.log\n  python train.py 2>&1 | kb diagnose -\n"
               "  kb diagnose train.log --format json --limit 1\n\n"
               "exit codes: 0 an answer, 1 none, 2 unusable input or usage error (docs/diagnose.md)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", nargs="?", default="-", metavar="FILE|-")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--limit", type=_positive_int, default=0, metavar="N", help="show at most N answers (N >= 1)")
    p.add_argument("--env", action="store_true", help="attach `kb env`'s report and use it as evidence")
    p.add_argument("--all", action="store_true",
                   help="the whole story: every answer with its evidence, a family's triage, the notes "
                        "(default: one screen, the top answer and its fix)")
    p.add_argument("--width", type=_positive_int, default=0, metavar="N",
                   help="wrap the text to N columns (default: the terminal's width, else 80)")
    p.set_defaults(func=run_diagnose)

    p = sub.add_parser("env", help="environment report and pre-flight risk check (GPUs, launch, versions)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--config", metavar="FILE", help="TrainingArguments/SFTConfig (or accelerate) JSON or YAML to check")
    p.add_argument("--nproc", type=_positive_int, metavar="N", help="processes per node you will launch (torchrun --nproc-per-node)")
    p.add_argument("--fail-on-risk", action="store_true", help="exit 1 when a risk is found (for CI / pre-flight scripts)")
    p.set_defaults(func=cmd_env)

    from kb.cli.plan import add_plan_parser

    add_plan_parser(sub, cmd_plan)

    p = sub.add_parser("new", help="scaffold a new case folder (the next free id, every required field)")
    p.add_argument("slug", metavar="SLUG", help="kebab-case name of the failing pattern")
    p.add_argument("--family", required=True, help="its failure family (kb list --families)")
    p.add_argument("--id", help="KB#### to use (default: the next free one)")
    p.set_defaults(func=cmd_new)

    from kb.cli.check import add_check_parser
    from kb.cli.run import add_run_parser

    from kb.cli.verify import add_verify_parser

    add_check_parser(sub)
    add_run_parser(sub)  # `kb run -- CMD ...` (kb/cli/run.py)
    add_verify_parser(sub)  # `kb verify --stack NAME | --latest` (kb/cli/verify.py)

    p = sub.add_parser("reproduce", help="run a case's failing (or --fixed) program and judge it")
    p.add_argument("case", metavar="ID|SLUG")
    p.add_argument("--fixed", action="store_true", help="run the fixed program instead of the failing one")
    p.add_argument("--variant", help="which reproduction (default: the first)")
    p.add_argument("--profile", help="hardware profile (default: the first this machine can run)")
    p.add_argument("--record", action="store_true", help="write the run into the case's evidence/ folder")
    p.add_argument("--timeout", type=_positive_int, metavar="S", help="seconds (default: the case's)")
    p.add_argument("--quiet", action="store_true", help="do not echo the program's output")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_reproduce)
    # A usage error is one line on standard error (`kb diagnose: argument --width: ... (kb diagnose --help)`),
    # exit 2, for every command: argparse's default prints the usage block first.
    parser.error = cli_output.one_line_usage_error("kb")  # type: ignore[method-assign]
    for name, subparser in sub.choices.items():
        subparser.error = cli_output.one_line_usage_error(f"kb {name}")  # type: ignore[method-assign]
    return parser


def run_command(argv: Sequence[str]) -> int:
    """Parse ``argv`` (without the program name) with argparse and run the command."""
    parser = build_parser()
    try:
        ns, extra = parser.parse_known_args(argv)
        if extra:  # (audit49) said by the command's parser: `kb diagnose: unrecognized arguments: ... (kb diagnose
            # --help)`, not by the top one's, which named no command and pointed at `kb --help`
            commands = next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))
            commands.get(getattr(ns, "command", None) or "", parser).error(
                f"unrecognized arguments: {' '.join(extra)}")
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

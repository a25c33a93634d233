"""`kb verify [CASE...] --stack NAME | --latest`: the cases' CPU reproductions on a library stack.

The work is kb/reproduce/matrix.py's: build or reuse the stack's venv, run each CPU reproduction's two
programs with its Python, write ``evidence/matrix.toml`` per case. Here: the arguments, one line per
reproduction as it finishes, a summary, and with ``--latest`` the cases whose behaviour changed since
the ``newest`` stack's entries.

Exit 0 when every reproduction that ran passed (or a release fixed it), 1 when one failed, 2 for a
usage error (an unknown case or stack), 3 when the stack's venv could not be built, 4 when none failed
but a program's process died before it reported (outcome ``worker-died``: no verdict), each such
reproduction named on one line of standard error with how it ended and the memory caps.
"""

from __future__ import annotations

import argparse
import sys

from kb.cli.output import EXIT_CANNOT_RUN, EXIT_NO_MATCH, EXIT_OK, EXIT_USAGE, EXIT_WORKER_DIED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kb.knowledge.model import Case
    from kb.reproduce.matrix import Entry

PASSED = ("reproduced", "fixed")  # a program's outcomes that pass (kb/reproduce/runner.py judge_run)


def add_verify_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "verify", help="run the cases' CPU reproductions on a library stack and record the matrix",
        description="Build (or reuse) a venv for a library stack of tables/stacks.toml, run the CPU reproductions "
                    "of the cases (all by default) with it, and write one entry per stack x reproduction into "
                    "each case's evidence/matrix.toml. --latest runs the newest releases and reports which "
                    "cases changed behaviour.",
        epilog="examples:\n  kb verify --stack lowest\n  kb verify KB0027 KB0001 --stack newest --jobs 2\n"
               "  kb verify --latest\n\nexit codes: 0 all passed, 1 a reproduction failed, 2 usage, "
               "3 the venv could not be built, 4 no verdict: a program's process died before it reported "
               "(docs/contributing.md#the-version-matrix)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("cases", nargs="*", metavar="CASE", help="case ids or slugs (default: every case with a CPU reproduction)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--stack", metavar="NAME", help="a stack of tables/stacks.toml (lowest, newest, ...)")
    which.add_argument("--latest", action="store_true", help="the newest releases; report what changed since `newest`")
    # (review47) the other commands' whole-number check: a plain int() took --jobs 0 or -3 (run as 1, after the
    # stack's venv was built) and answered 5,000 digits with "invalid int value" and the 5,000 digits echoed
    from kb.cli.commands import _positive_int

    p.add_argument("--jobs", type=_positive_int, default=2, metavar="N", help="reproductions run at once (default 2)")
    p.add_argument("--wheelhouse", metavar="DIR", help="install from this folder of wheels too (--find-links)")
    p.add_argument("--offline", action="store_true", help="install from the wheelhouse and caches only")
    p.add_argument("--rebuild", action="store_true", help="rebuild the stack's venv even when it is current")
    p.set_defaults(func=cmd_verify)


def _say(line: str) -> None:
    print(line, flush=True)


def cmd_verify(ns: argparse.Namespace) -> int:
    from pathlib import Path

    from kb.knowledge.registry import all_cases, find_case
    from kb.reproduce.matrix import LATEST, StackError, ensure_stack, in_matrix, load_stacks, verify

    stacks = load_stacks()
    name = LATEST if ns.latest else ns.stack
    if name not in stacks or (name == LATEST and not ns.latest):
        print(f"kb verify: no stack {name!r} (tables/stacks.toml has: {', '.join(s for s in stacks if s != LATEST)})",
              file=sys.stderr)
        return EXIT_USAGE
    cases = [find_case(c) for c in ns.cases] if ns.cases else [c for c in all_cases() if in_matrix(c)]
    names = sorted({n for case in cases for rep in case.reproductions for n in rep.requires})
    try:
        env = ensure_stack(stacks[name], names, wheelhouse=Path(ns.wheelhouse) if ns.wheelhouse else None,
                           offline=ns.offline, rebuild=ns.rebuild, say=_say)
    except StackError as exc:
        print(f"kb verify: {exc}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    shown = ", ".join(f"{k} {v}" for k, v in env.versions.items()
                      if k in ("python", "torch", "transformers", "peft", "trl", "accelerate", "datasets"))
    _say(f"kb verify: stack {name}: {shown}")
    done, changes = verify(cases, env, jobs=ns.jobs, say=_say, compare_with="newest" if ns.latest else None)
    counts = {s: sum(1 for _, e in done if e.status == s) for s in ("pass", "does-not-fail", "fail", "skip")}
    _say(f"kb verify: {len(done)} reproductions of {len({c.id for c, _ in done})} cases on {name}: "
         + ", ".join(f"{n} {s}" for s, n in counts.items()))
    if ns.latest:
        _say("changed since newest:" if changes else "kb verify: no case changed behaviour since the newest stack")
        for line in changes:
            _say(f"  {line}")
    return verify_exit_code(done)


def no_verdict(entry: Entry) -> bool:
    """Whether a failed entry failed only for want of a verdict: each of its programs that did not pass
    ended ``worker-died`` (its process died before it reported), none ``not-reproduced``/``fix-failed``."""
    from kb.reproduce.result import WORKER_DIED

    outcomes = {run.get("outcome") for run in (entry.failing, entry.fixed) if run.get("outcome") not in PASSED}
    return entry.status == "fail" and outcomes == {WORKER_DIED}


def verify_exit_code(done: list[tuple[Case, Entry]]) -> int:
    """1 when a reproduction failed; else 4 when one gave no verdict (each named on standard error with the
    runner's explanation: the signal or exit status and the memory caps); else 0."""
    failed = [(case, entry) for case, entry in done if entry.status == "fail"]
    died = [(case, entry) for case, entry in failed if no_verdict(entry)]
    for case, entry in died:
        why = " ".join(entry.reason.split())  # "failing: no verdict, the worker died: ..."
        print(f"kb verify: no verdict on {case.id} {entry.reproduction} ({entry.stack}): {why}", file=sys.stderr)
    if len(died) < len(failed):
        return EXIT_NO_MATCH
    return EXIT_WORKER_DIED if died else EXIT_OK

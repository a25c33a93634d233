"""How much of the code `kb diagnose` unmarshals at start-up its run never calls, module by module.

Runs the diagnose path in-process (startup_phases.py's: kb.cli, the engine, load_index, the diagnosis, the document,
the text) for one input under a tracer of function calls, then for every kb module imported weighs (marshal size) the
functions and methods that never ran: what splitting them into modules imported only when needed could save from
the unmarshalling, at most (the module's own body and the class bodies run at import and are counted as used). Also
the module's .pyc size and a warm marshal.loads of it (repeated in this process: a lower bound of the cold cost).

    python benchmarks/startup_unused_code.py [--input FILE] [--tree DIR]
"""

from __future__ import annotations

import argparse
import io
import marshal
import os
import sys
import tempfile
import time
from pathlib import Path

ONE_LINE = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", type=Path, help="the input (default: a one-line dtype error)")
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent)
    ns = parser.parse_args()
    tree = ns.tree.resolve()
    sys.path.insert(0, str(tree))
    with tempfile.TemporaryDirectory(prefix="kb-unused-") as tmp:
        source = ns.input.resolve() if ns.input else Path(tmp) / "one-line.txt"
        if ns.input is None:
            source.write_text(ONE_LINE)
        called = trace(source)
    key = lambda code: (os.path.realpath(code.co_filename), code.co_firstlineno, code.co_qualname)  # noqa: E731
    ran = {key(code) for code in called}
    rows = []
    for name, module in sorted(sys.modules.items()):
        if not (name == "kb" or name.startswith("kb.")) or not getattr(module, "__cached__", None):
            continue
        with open(module.__cached__, "rb") as handle:
            data = handle.read()[16:]
        top = marshal.loads(data)
        fix = os.path.realpath(module.__file__)
        unused = sum(len(marshal.dumps(code)) for code in never_ran(top, ran, fix))
        start = time.perf_counter()
        for _ in range(20):
            marshal.loads(data)
        rows.append((unused, name, len(data), (time.perf_counter() - start) / 20 * 1e6))
    print(f"input {ns.input or 'one line'}; {sys.executable} {sys.version.split()[0]}")
    print(f"  {'module':32} {'code bytes':>10} {'never called':>13} {'share':>6} {'warm loads':>11}")
    for unused, name, size, micro in sorted(rows, reverse=True):
        print(f"  {name:32} {size:10d} {unused:13d} {unused / size:6.0%} {micro:9.1f}us")
    total, unused = sum(r[2] for r in rows), sum(r[0] for r in rows)
    print(f"  {'all ' + str(len(rows)) + ' modules':32} {total:10d} {unused:13d} {unused / total:6.0%}"
          f" {sum(r[3] for r in rows):9.1f}us")
    return 0


def trace(source: Path) -> set:
    """The code objects called while diagnosing ``source`` as `kb diagnose` does (imports included)."""
    called: set = set()

    def tracer(frame, event, arg):  # noqa: ANN001, ANN202 - sys.settrace's signature
        if event == "call":
            called.add(frame.f_code)

    sys.settrace(tracer)
    try:
        import kb.cli
        import kb.cli.diagnose  # noqa: F401
        from kb.cli.output import Style
        from kb.render.sanitize import sanitize_data
        from kb.diagnose.diagnosis import diagnose_reader
        from kb.diagnose.document import diagnosis_document
        from kb.diagnose.input import open_input
        from kb.knowledge.index import load_index
        from kb.render.diagnosis import format_diagnosis

        knowledge = load_index()
        kb.cli.started_up()
        doc = diagnosis_document(diagnose_reader(open_input(str(source)), knowledge, None))
        format_diagnosis(sanitize_data(doc), width=80, full=False, style=Style(io.StringIO()))
    finally:
        sys.settrace(None)
    return called


def never_ran(code, ran: set, path: str) -> list:  # noqa: ANN001 - a code object
    """The functions and methods defined in ``code`` (a module's or class body's) that never ran; comprehensions and
    lambdas go with the function that holds them."""
    out = []
    for const in code.co_consts:
        if not hasattr(const, "co_code") or const.co_name.startswith("<"):
            continue
        if (path, const.co_firstlineno, const.co_qualname) in ran:
            out.extend(never_ran(const, ran, path))  # a class body or a function that ran: its nested ones
        else:
            out.append(const)
    return out


if __name__ == "__main__":
    raise SystemExit(main())

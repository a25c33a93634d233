"""How long `kb diagnose`'s one-screen answer is, over the dev set and the examples (issue #23).

For every input: the rows the default text takes at a width (a longer row counts as more than one, as a
terminal shows it), and the row where the fix starts (the "fix:" or "check, ..." header of the top
answer). Prints the median and the maximum, how many answers exceed 30 rows, and how many start the fix
below row 12.

    python benchmarks/answer_length.py             # at 80 columns
    python benchmarks/answer_length.py --width 60
    python benchmarks/answer_length.py --worst 5   # the longest answers, printed
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.knowledge.examples import devset_manifest, examples_manifest, load_examples
from kb.knowledge.registry import load_knowledge
from kb.render.diagnosis import format_diagnosis
from kb.render.text import physical_lines

FIX_HEADERS = ("fix:", "fix, ", "check, ")


def inputs() -> list[Path]:
    paths: list[Path] = []
    for manifest in (devset_manifest(), examples_manifest()):
        paths += [manifest.parent / e["file"] for e in load_examples(manifest)]
    return paths


def measure(width: int) -> list[tuple[Path, int, int | None, str]]:
    knowledge = load_knowledge()
    out = []
    for path in inputs():
        with open(path, encoding="utf-8", errors="replace") as handle:
            doc = diagnosis_document(diagnose_lines(handle, knowledge))
        text = format_diagnosis(doc, width=width)
        lines = text.splitlines()
        fix_row = None
        for i, line in enumerate(lines):
            if line.startswith(FIX_HEADERS):
                fix_row = physical_lines(lines[:i], width) + 1
                break
        if doc["matches"] and fix_row is None:
            fix_row = 10**6  # an answer without a fix: counted as the fix arriving too late
        out.append((path, physical_lines(lines, width), fix_row if doc["matches"] else None, text))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=80)
    parser.add_argument("--worst", type=int, default=0)
    args = parser.parse_args()
    rows = measure(args.width)
    counts = [r[1] for r in rows]
    answered = [r for r in rows if r[2] is not None]
    late = [r for r in answered if r[2] > 12]
    print(f"{len(rows)} inputs at {args.width} columns ({len(answered)} answered)")
    print(f"rows: median {statistics.median(counts)}, max {max(counts)}, over 30: {sum(c > 30 for c in counts)}")
    if answered:
        fix_rows = [r[2] for r in answered]
        print(f"fix starts at row: median {statistics.median(fix_rows)}, max {max(fix_rows)}, below row 12: {len(late)}")
    answered_counts = [r[1] for r in answered]
    if answered_counts:
        print(f"answered only: median {statistics.median(answered_counts)} rows, max {max(answered_counts)}")
    for path, count, fix_row, text in sorted(rows, key=lambda r: -r[1])[: args.worst]:
        print(f"\n== {path.relative_to(REPO)}: {count} rows, fix at {fix_row}\n{text}")


if __name__ == "__main__":
    main()

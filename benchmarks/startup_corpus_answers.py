"""Every answer document `kb diagnose` gives for the dev corpus's reports, to check that a start-up change changes none.

For each report of corpus/reports-*.jsonl (not corpus/sealed/), the text `scripts/corpus.py score` diagnoses (the
error, else the title) is diagnosed in-process by the tree named (its kb, its knowledge) and its JSON document
(kb/diagnose/document.py, with the text rendering) written, one line per report, to OUT. Two such files are
compared with ``--compare A B``. In-process, so the lazy imports' gates run as they do in `kb diagnose`.

    python benchmarks/startup_corpus_answers.py OUT [--tree DIR]
    python benchmarks/startup_corpus_answers.py --compare OLD NEW
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, sys
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.knowledge.index import load_index
from kb.render.diagnosis import format_diagnosis
knowledge = load_index()
out = open(sys.argv[2], "w", encoding="utf-8")
for path in sys.argv[3:]:
    for line in open(path, encoding="utf-8"):
        if not line.strip():
            continue
        record = json.loads(line)
        text = record["error"] if record["error"].strip() else record["title"]
        doc = diagnosis_document(diagnose_lines(text.splitlines(keepends=True), knowledge))
        out.write(json.dumps({"id": record["id"], "doc": doc, "text": format_diagnosis(doc, width=80)},
                             sort_keys=True) + "\n")
"""


def snapshot(out: Path, tree: Path) -> int:
    batches = sorted(str(p) for p in (REPO / "corpus").glob("reports-*.jsonl"))  # this checkout's reports, either tree
    proc = subprocess.run([sys.executable, "-c", CHILD, str(tree), str(out), *batches], cwd=tree,
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"}, check=False)
    if proc.returncode:
        return proc.returncode
    print(f"{sum(1 for _ in open(out, encoding='utf-8'))} reports -> {out}")
    return 0


def compare(old: Path, new: Path, key: str = "id", noun: str = "report") -> int:
    """Two snapshots (JSON lines in the same order), line by line: each that differs named by its ``key``; 1 when any
    differs or the counts do (benchmarks/startup_fixture_docs.py compares its snapshots with this too)."""
    a = [json.loads(line) for line in open(old, encoding="utf-8")]
    b = [json.loads(line) for line in open(new, encoding="utf-8")]
    differ = [x[key] for x, y in zip(a, b) if x != y]
    for name in differ:
        print("differs:", name)
    if len(a) != len(b):
        print(f"{noun} counts differ: {len(a)} and {len(b)}")
    print(f"{min(len(a), len(b))} {noun}s compared, {len(differ)} differ")
    return 1 if differ or len(a) != len(b) else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path)
    parser.add_argument("--tree", type=Path, default=REPO)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    ns = parser.parse_args()
    if ns.compare:
        return compare(*ns.compare)
    if ns.out is None:
        parser.error("give OUT or --compare OLD NEW")
    return snapshot(ns.out.resolve(), ns.tree.resolve())


if __name__ == "__main__":
    raise SystemExit(main())

"""Every dev fixture's and example's `kb diagnose` document and text, in-process, to check that a start-up change
changes none of them.

For each file of tests/fixtures/diagnose (a set whose first score is pending left out: kb.knowledge.examples'
pending_sets / in_pending_set; the labels, manifests and sampling notes are no inputs) and examples/*.txt|log, the
tree named diagnoses it as `kb diagnose FILE` does (open_input, diagnose_reader) in one process, and writes its JSON
document (kb/diagnose/document.py), its text (width 80), the text as `kb diagnose` prints it (sanitized; the one
screen built from what the tree builds for it: screen_document where it has one) and as `--all` prints it, or the
one-line refusal, as one JSON line to OUT. Two such files are compared with ``--compare A B``. In-process, so the
lazy imports' gates run as they do in `kb diagnose`.

    python benchmarks/startup_fixture_docs.py OUT [--tree DIR]      # DIR: another checkout (default: this one)
    python benchmarks/startup_fixture_docs.py --compare OLD NEW
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, sys
import kb.diagnose.document as document
try:  # (the one sanitiser, in kb/render/sanitize.py since the notebook's turn; kb/cli/output.py before)
    from kb.render.sanitize import sanitize_data
except ImportError:
    from kb.cli.output import sanitize_data
from kb.diagnose.diagnosis import diagnose_reader
from kb.diagnose.document import diagnosis_document
from kb.diagnose.input import UnusableInput, open_input
from kb.knowledge.index import load_index
from kb.render.diagnosis import format_diagnosis
knowledge = load_index()
screen_document = getattr(document, "screen_document", diagnosis_document)  # (turn 48) what the one screen builds
with open(sys.argv[1], "w", encoding="utf-8") as out:
    for name in sys.argv[3:]:
        try:
            diagnosis = diagnose_reader(open_input(sys.argv[2] + "/" + name), knowledge, None)
            doc = diagnosis_document(diagnosis)
            record = {"file": name, "doc": doc, "text": format_diagnosis(doc, width=80),
                      "screen": format_diagnosis(sanitize_data(screen_document(diagnosis)), width=80),
                      "all": format_diagnosis(sanitize_data(doc), width=80, full=True)}
        except UnusableInput as exc:
            record = {"file": name, "unusable": str(exc)}
        out.write(json.dumps(record, sort_keys=True, default=str) + "\n")
"""


def inputs() -> list[str]:
    """This checkout's fixture and example files (relative paths), the same list whichever tree diagnoses them."""
    sys.path.insert(0, str(REPO))
    from kb.knowledge.examples import devset_manifest, in_pending_set, pending_sets

    pending = pending_sets(devset_manifest())
    fixtures = [p for p in (REPO / "tests" / "fixtures" / "diagnose").rglob("*")
                if p.is_file() and p.suffix not in (".toml", ".json") and not p.name.endswith("-sampling.txt")
                and not in_pending_set(p, pending)]
    examples = [p for p in (REPO / "examples").rglob("*") if p.is_file() and p.suffix in (".txt", ".log")]
    return sorted(str(p.relative_to(REPO)) for p in fixtures + examples)


def snapshot(out: Path, tree: Path) -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["PYTHONPATH"] = str(tree)
    if "KB_CACHE_DIR" in os.environ:
        env["KB_CACHE_DIR"] = os.environ["KB_CACHE_DIR"]
    files = inputs()
    proc = subprocess.run([sys.executable, "-c", CHILD, str(out.resolve()), str(REPO), *files], cwd=tree, env=env,
                          check=False)
    if proc.returncode:
        return proc.returncode
    print(f"{len(files)} inputs -> {out}")
    return 0


def compare(old: Path, new: Path) -> int:
    from startup_corpus_answers import compare as compare_snapshots  # (this folder is the script's sys.path[0])

    return compare_snapshots(old, new, key="file", noun="input")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path)
    parser.add_argument("--tree", type=Path, default=REPO)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    ns = parser.parse_args()
    if ns.compare:
        return compare(*ns.compare)
    if ns.out is None:
        parser.error("give OUT, or --compare OLD NEW")
    return snapshot(ns.out, ns.tree.resolve())


if __name__ == "__main__":
    raise SystemExit(main())

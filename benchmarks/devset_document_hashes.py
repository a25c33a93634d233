"""The dev set's `kb diagnose` documents and texts, one line per file (its path and a sha256 of its JSON document and
its one-screen and whole text), for this tree or another (``--tree``: a `git archive` of an earlier commit unpacked in
a folder), so that two trees' outputs can be compared byte for byte (``diff`` the two files; ``--show`` prints the
documents of the files named, to read what changed).

    python benchmarks/devset_document_hashes.py [--tree /tmp/kb-before] --out /tmp/after.txt [--show PATH ...]

(turn 48: a change to redaction or to what a diagnosis quotes must leave every dev-set document as it was, but where
a real secret is now masked.)
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if "--tree" in sys.argv[:-1]:
    sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--tree") + 1]).resolve()))
else:
    sys.path.insert(0, str(REPO))


def dev_files() -> list[Path]:
    from kb.knowledge.examples import in_pending_set, pending_sets

    fixtures = REPO / "tests" / "fixtures" / "diagnose"
    pending = pending_sets(fixtures / "manifest.toml")
    return sorted(p for p in [*fixtures.rglob("*.txt"), *(REPO / "examples").rglob("*.txt")]
                  if not in_pending_set(p, pending))


def rendered(path: Path) -> str:
    import json

    from kb.diagnose.diagnosis import diagnose_reader
    from kb.diagnose.document import diagnosis_document
    from kb.diagnose.input import UnusableInput, open_input
    from kb.knowledge.index import load_index
    from kb.render.diagnosis import format_diagnosis

    try:
        doc = diagnosis_document(diagnose_reader(open_input(str(path)), load_index(), None))
    except UnusableInput as exc:
        return f"unusable: {exc}"
    return json.dumps(doc, ensure_ascii=False, indent=1) + format_diagnosis(doc) + format_diagnosis(doc, full=True)


def main() -> int:
    import argparse
    import hashlib

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", metavar="DIR", help="the kb package of this tree instead of this one's")
    parser.add_argument("--out", metavar="FILE", help="write the lines here (default: standard output)")
    parser.add_argument("--show", nargs="+", metavar="PATH", help="print these files' documents instead")
    ns = parser.parse_args()
    if ns.show:
        for name in ns.show:
            print(f"== {name}\n{rendered(REPO / name)}")
        return 0
    lines = [f"{p.relative_to(REPO).as_posix()} {hashlib.sha256(rendered(p).encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"
             for p in dev_files()]
    text = "\n".join(lines) + "\n"
    if ns.out:
        Path(ns.out).write_text(text)
    else:
        sys.stdout.write(text)
    print(f"{len(lines)} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

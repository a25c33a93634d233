"""CPU seconds a MB of text through redaction's span finder (kb.diagnose.redact's ``_secret_spans``, what every answer's
redact() runs on a text it has not seen), over the dev set's texts, for this tree and for other trees (a ``git
archive`` of an earlier commit unpacked in a folder git ignores), alternated round by round; the least of the
rounds is reported. Each measurement runs in its own process (the tree's kb first on sys.path), reads the same
files (this tree's dev set: tests/fixtures/diagnose and examples/, less the sets whose first score is pending) and
prints its CPU time, its bytes and the sha256 of every file's spans and masked text, so that the trees' outputs can
be compared byte for byte.

    python benchmarks/redaction_cpu.py [--tree /tmp/kb-before] [--rounds 3]

(issue 26, turn 46: benchmarks/results/hostile-turn46-leaks.txt)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def dev_texts() -> list[tuple[str, str]]:
    """(relative path, text) of each dev-set text file, sorted."""
    sys.path[:0] = [str(REPO)]
    from kb.knowledge.examples import in_pending_set, pending_sets

    fixtures = REPO / "tests" / "fixtures" / "diagnose"
    pending = pending_sets(fixtures / "manifest.toml")
    files = sorted(p for p in [*fixtures.rglob("*.txt"), *(REPO / "examples").rglob("*.txt")]
                   if not in_pending_set(p, pending))
    return [(p.relative_to(REPO).as_posix(), p.read_text(encoding="utf-8", errors="replace")) for p in files]


def measure(listing: Path) -> dict:
    """In the tree at the current directory: the CPU time of the span finder over the listed texts."""
    import hashlib
    import time

    texts = json.loads(listing.read_text(encoding="utf-8"))
    from kb.diagnose.redact import _secret_spans, redact  # the tree's own (cwd first on sys.path)
    import kb.diagnose.redact as redaction

    for _name, text in texts[:50]:  # rules compiled, tables loaded: not counted
        _secret_spans(text)
    start = time.process_time()
    spans = [_secret_spans(text) for _name, text in texts]
    took = time.process_time() - start
    digest = hashlib.sha256()
    redaction.SEEN_TEXT_CHARS = 1 << 40  # redact() reads the spans found above (memo), so the hash costs no second pass
    for (name, text), found in zip(texts, spans):
        redaction._SEEN.clear()
        redaction._SEEN[text] = found
        digest.update(name.encode())
        digest.update(repr(found).encode())
        digest.update(redact(text).encode())
    size = sum(len(text.encode()) for _name, text in texts)
    return {"cpu": took, "bytes": size, "sha256": digest.hexdigest()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", default=[], help="another tree to measure (alternated with this one)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.measure:
        sys.path.insert(0, os.getcwd())
        print(json.dumps(measure(ns.measure)))
        return 0
    import tempfile

    listing = Path(tempfile.mkdtemp()) / "texts.json"
    listing.write_text(json.dumps(dev_texts()), encoding="utf-8")
    trees = [str(REPO), *ns.tree]
    best: dict[str, dict] = {}
    for _round in range(ns.rounds):
        for tree in trees:
            env = dict(os.environ, PYTHONPATH=tree)
            out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--measure", str(listing)], cwd=tree,
                                 env=env, capture_output=True, text=True, check=True).stdout
            got = json.loads(out)
            print(f"  {tree}: {got['cpu']:.2f} s CPU for {got['bytes'] / 1e6:.2f} MB", flush=True)
            if tree not in best or got["cpu"] < best[tree]["cpu"]:
                best[tree] = got
    for tree in trees:
        got = best[tree]
        print(f"{tree}: {got['cpu'] / (got['bytes'] / 1e6):.2f} s CPU/MB (least of {ns.rounds}), "
              f"spans+masked sha256 {got['sha256'][:16]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

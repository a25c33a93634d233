"""Score kb diagnose on the runtime-38, runtime-39, runtime-40, runtime-41, runtime-42, runtime-43 or runtime-44 fixtures (tests/fixtures/diagnose/SET/labels.toml).

    python benchmarks/runtime_tracebacks_score.py [--set runtime-39] [--json]

Each fixture is diagnosed as a user would (``python -m kb diagnose --format json FILE`` from this checkout).
Graded on the top answer's family: right (the labelled family), wrong (another family), silent (no answer).
Where a case is labelled, whether the top answer is that case is counted apart (case-right). A fixture labelled family
"none" (out of scope: no failure family of kb's) is counted apart: claimed (any answer) or left unclaimed.
``--first-labels`` grades with the labels the first score was taken with (``first_family`` where a label was
changed after it).
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "diagnose" / "runtime-38"


def labels(fixtures: Path = FIXTURES) -> list[dict]:
    return tomllib.loads((fixtures / "labels.toml").read_text(encoding="utf-8"))["label"]


def top_answer(path: Path) -> dict | None:
    """The top match of kb diagnose's JSON answer for one file, or None when it answers nothing."""
    proc = subprocess.run([sys.executable, "-m", "kb", "diagnose", "--format", "json", str(path)], cwd=REPO,
                          capture_output=True, text=True)
    try:
        matches = json.loads(proc.stdout).get("matches") or []
    except json.JSONDecodeError:
        return {"family": f"(exit {proc.returncode}: {proc.stderr.strip()[:80]})", "slug": "", "id": ""}
    return matches[0] if matches else None


def grade(label: dict, top: dict | None) -> str:
    """right / wrong / silent; for an out-of-scope fixture (family "none", from runtime-44): unclaimed or claimed."""
    if label["family"] == "none":
        return "unclaimed" if top is None else "claimed"
    if top is None:
        return "silent"
    return "right" if top.get("family") == label["family"] else "wrong"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=("runtime-38", "runtime-39", "runtime-40", "runtime-41", "runtime-42", "runtime-43", "runtime-44"), default="runtime-38", help="the fixture set")
    parser.add_argument("--json", action="store_true", help="one JSON line per fixture instead of the table")
    parser.add_argument("--wave", type=int, help="score only the fixtures of this wave")
    parser.add_argument("--first-labels", action="store_true", help="grade with the labels of the first score")
    a = parser.parse_args()
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    tally: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    misses = []
    fixtures = FIXTURES.parent / a.set
    for label in labels(fixtures):
        if a.wave and label.get("wave", 1) != a.wave:
            continue
        if a.first_labels:
            label = {**label, "family": label.get("first_family", label["family"])}
        top = top_answer(fixtures / label["file"])
        g = grade(label, top)
        if label["family"] == "none":
            tally["out of scope"][g] += 1
        else:
            tally[label["family"]][g] += 1
            tally["ALL"][g] += 1
        if label.get("case"):
            tally["ALL"]["case-labelled"] += 1
            if top and top.get("id") == label["case"].split("-")[0]:
                tally["ALL"]["case-right"] += 1
        got = f"{top['kind']}:{top.get('slug')} ({top.get('family')})" if top else "-"
        if a.json:
            print(json.dumps({"file": label["file"], "family": label["family"], "case": label.get("case", ""),
                              "grade": g, "got": got}))
        if g not in ("right", "unclaimed"):
            misses.append(f"{g:<6} {label['file']:<36} label {label['family']:<22} got {got}")
    if a.json:
        return 0
    which = "the first score's labels" if a.first_labels else "labels.toml's families"
    waves = f"wave {a.wave}" if a.wave else "all waves"
    print(f"{a.set} fixtures ({waves}) scored at commit {commit} (top answer's family, against {which})")
    outside = tally.pop("out of scope", None)
    for fam, c in sorted(tally.items(), key=lambda kv: (kv[0] == "ALL", kv[0])):
        n = c["right"] + c["wrong"] + c["silent"]
        print(f"{fam:<24} {n:>3}: right {c['right']:>3} ({c['right'] / n:.0%}), wrong {c['wrong']:>3}, "
              f"silent {c['silent']:>3}")
    if outside:
        print(f"{'out of scope':<24} {outside['claimed'] + outside['unclaimed']:>3}: claimed {outside['claimed']:>3}, "
              f"left unclaimed {outside['unclaimed']:>3}")
    total = tally["ALL"]
    print(f"labelled with a case: {total['case-labelled']}, top answer is that case: {total['case-right']}")
    print("\nnot right:")
    print("\n".join(misses) if misses else "(none)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Does kb still answer a report when it is pasted the way forums show error text?

Forum posts (Hugging Face Forums and Hub discussions, Stack Overflow, Reddit, Kaggle) carry the same errors as GitHub
issues in other shapes (corpus/reports-qa-34.jsonl, reports-qa-38.jsonl): the traceback flattened onto one line, its
newlines left as ``\\n`` escapes, HTML entities left by a page's markup, a web UI's ``ERROR`` prefix on every line,
prose around it, or a Colab cell's IPython traceback (``<cell line: N>``, ``---> N``, ``N frames``). This takes every
corpus report with error output that today's kb answers right (in scope), renders its error in each shape, diagnoses
it again and counts: the same family (kept), another answer (wrong), no answer (lost).

    python benchmarks/forum_shapes.py [--shape NAME] [--limit N] [--show]

The shapes are renderings of real reports' text, not new reports: a class the rendering exercises is one a forum
report showed (the qa batches), measured here on many more errors than the forum batches hold.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kb.diagnose.diagnosis import diagnose_lines  # noqa: E402
from kb.knowledge.registry import load_knowledge  # noqa: E402

FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)\s*$')


def flattened(text: str) -> str:
    """Every line joined by one space (a forum's paragraph, a copied web UI toast)."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def escaped(text: str) -> str:
    """The text as a JSON string or a Python repr shows it: newlines as ``\\n``, quotes as ``\\"``."""
    return json.dumps(text)[1:-1]


def entities(text: str) -> str:
    """HTML entities left by a page's markup (a copied RSS item, an API's HTML body)."""
    return html.escape(text, quote=True).replace("\n", "<br>\n")


def ui_prefixed(text: str) -> str:
    """A web UI's log, every line behind its level word (AutoTrain's ``ERROR train has failed ...``)."""
    return "ERROR train has failed due to an exception:\n" + "\n".join(f"ERROR {line}" for line in text.splitlines())


def prose(text: str) -> str:
    """Stack Overflow's question: prose first, the error in the middle, a question after."""
    return ("I am fine-tuning a model with the Trainer and I get this error when I call trainer.train(). "
            "I searched for a solution but nothing worked.\n\n" + text +
            "\n\nWhat am I doing wrong? Any help is appreciated.")


def colab(text: str) -> str:
    """The traceback as IPython prints it in a Colab cell: ``in <cell line: N>()``, each frame as
    ``PATH in FUNC(...)`` with an arrow ``---> N`` on its line, the hidden frames counted (``N frames``)."""
    out: list[str] = []
    lines = text.splitlines()
    head = next((i for i, line in enumerate(lines) if line.strip().startswith("Traceback (most recent call last)")), None)
    if head is None:
        return text
    exc = next((line for line in reversed(lines) if re.match(r"^\s*[\w.]+(?:Error|Exception|Warning|Interrupt|Exit)\b", line)), "")
    out.extend(lines[:head])
    out.append(f"{exc.split(':', 1)[0].strip() or 'Exception'}                                 Traceback (most recent call last)")
    out.append("<ipython-input-7-2c1f0a5e> in <cell line: 11>()")
    out.append("---> 11 trainer.train()")
    out.append("")
    out.append("3 frames")
    i = head + 1
    while i < len(lines):
        m = FRAME.match(lines[i])
        if m:
            code = lines[i + 1].strip() if i + 1 < len(lines) and not FRAME.match(lines[i + 1]) else ""
            out.append(f"{m['path']} in {m['func']}(self, *args, **kwargs)")
            out.append(f"--> {m['line']} {code}".rstrip())
            out.append("")
            i += 2 if code else 1
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


SHAPES = {"flattened": flattened, "escaped": escaped, "entities": entities, "ui-prefixed": ui_prefixed,
          "prose": prose, "colab": colab}


def family_of(text: str, knowledge, case_family: dict[str, str]) -> str | None:
    answers = diagnose_lines(text.splitlines(keepends=True), knowledge).answers
    if not answers:
        return None
    top = answers[0]
    return case_family.get(top.match.entry.key) if top.kind == "case" else top.match.entry.key


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shape", choices=sorted(SHAPES), action="append")
    p.add_argument("--limit", type=int, default=0, help="at most N reports (0: all)")
    p.add_argument("--show", action="store_true", help="list each report a shape lost or made wrong")
    args = p.parse_args()
    knowledge = load_knowledge()
    case_family = {c.key: c.family for c in knowledge.cases}
    reports, outside = [], []
    for path in sorted((REPO / "corpus").glob("reports-*.jsonl")):  # never corpus/sealed/
        for line in path.open(encoding="utf-8"):
            r = json.loads(line)
            if r["error"].strip():
                (outside if r["label"]["family"] in ("out-of-scope", "unknown-family") else reports).append(r)
    base = [(r, family_of(r["error"], knowledge, case_family)) for r in reports]
    right = [r for r, fam in base if fam == r["label"]["family"]]
    if args.limit:
        right = right[:args.limit]
    quiet = [r for r in outside if family_of(r["error"], knowledge, case_family) is None]
    if args.limit:
        quiet = quiet[:args.limit]
    print(f"{len(reports)} in-scope corpus reports with error output; {len(right)} answered right as pasted")
    print(f"{len(outside)} out-of-scope or unknown-family reports with error output; {len(quiet)} left silent as pasted "
          "(claimed: a shape made kb answer one of them)")
    for name in args.shape or list(SHAPES):
        shape = SHAPES[name]
        tally: Counter[str] = Counter()
        shown = []
        for r in right:
            got = family_of(shape(r["error"]), knowledge, case_family)
            grade = "kept" if got == r["label"]["family"] else "lost" if got is None else "wrong"
            tally[grade] += 1
            if grade != "kept":
                shown.append(f"    {grade:5} {got or '-':20} {r['label']['family']:20} {r['id']}")
        claimed = []
        for r in quiet:
            got = family_of(shape(r["error"]), knowledge, case_family)
            if got is not None:
                claimed.append(f"    claim {got:20} {r['label']['family']:20} {r['id']}")
        n = sum(tally.values()) or 1
        print(f"{name:12} kept {tally['kept']:4} ({tally['kept'] / n:.0%})  lost {tally['lost']:4}  wrong {tally['wrong']:3}"
              f"  claimed {len(claimed):3}")
        shown += claimed
        if args.show:
            print("\n".join(shown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Leaks over the secret corpus and false redactions over the dev set, for this tree's redaction and,
with ``--before COMMIT``, for that commit's ``kb/diagnose/redact.py`` (issues 23 and 26).

Leaks: forms of tests/fixtures/secrets/forms.toml whose output shows 8 characters or more of their
secret: through ``redact()`` alone, and (this tree) through `kb diagnose`'s pipeline, JSON document and
text rendering; counted by the issue's class (S1 token shapes, S2 values beside names, S3 escaped text,
S4 wrapped lines, S5 output sections: tests/fixtures/secrets/forms.toml's `class`). False redactions:
the spans of dev-set text (tests/fixtures/diagnose, examples/) that redaction masks and that are
neither a home path's user name nor an e-mail address (this tree: ``secret_spans``, as
tests/test_redaction_corpus.py counts them; ``--before``: a diff of ``redact(text)`` against ``text``).

    python benchmarks/redaction_corpus.py [--before 7f163a0] [--turn 38] [--by-place] [--redact-only]
        [--tree DIR] [--ids FILE] [--jobs N]

``--turn 38``: only the forms a red team of that turn wrote (an entry of forms.toml with ``turn = 38``: a new
shape, context, name or placement, crossed with the others), e.g. to first-score a new group.
(turn 48) ``--tree DIR``: measure the kb package (and tables) of another tree (e.g. a `git archive` of main) over
this tree's corpus; ``--ids FILE``: write the ids that leak (``redact <id>``, ``pipeline <id>``), to diff two trees;
``--jobs N``: the pipeline pass over N processes.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]
if "--tree" in sys.argv[:-1]:  # (turn 48) that tree's kb, imported before this one's (its knowledge root too)
    sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--tree") + 1]).resolve()))

from secret_corpus import forms  # noqa: E402

_PERSONAL_PATH = re.compile(r"(?:/home/|/Users/|\\Users\\)$", re.IGNORECASE)
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")


def old_redact(commit: str) -> Callable[[str], str]:
    source = subprocess.run(["git", "-C", str(REPO), "show", f"{commit}:kb/diagnose/redact.py"],
                            capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp()) / "redact_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("redact_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.redact


def _diff_spans(text: str, out: str) -> list[tuple[int, int]]:
    """The spans of ``text`` that differ in ``out`` (for a tree without ``secret_spans``)."""
    return [(a1, a2) for op, a1, a2, _b1, _b2 in difflib.SequenceMatcher(None, text, out, autojunk=False).get_opcodes()
            if op != "equal"]


def false_redactions(redact: Callable[[str], str],
                     spans: Callable[[str], list] | None = None) -> tuple[int, int, list[str]]:
    """(files, false redactions, examples) over the dev set: the masked spans (``spans``, else a diff of
    ``redact``'s output, which can split one masked e-mail address into pieces) that are neither a home
    path's user name nor an e-mail address."""
    fixtures = REPO / "tests" / "fixtures" / "diagnose"
    # a set whose first score is pending (a sealed batch) is left out, and so is runtime-38, the output of kb's own
    # generated programs (one passes the placeholder use_auth_token="hf_xxx", rightly masked), not users' reports
    from kb.knowledge.examples import in_pending_set, pending_sets

    pending = pending_sets(fixtures / "manifest.toml")
    files = sorted(p for p in [*fixtures.rglob("*.txt"), *(REPO / "examples").rglob("*.txt")]
                   if "runtime-38" not in p.parts and not in_pending_set(p, pending))
    count, examples = 0, []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        if spans is not None:
            masked = [(s[0], s[1]) for s in spans(text)]
        else:
            out = redact(text)
            masked = [] if out == text else _diff_spans(text, out)
        for a1, a2 in masked:
            piece = text[a1:a2]
            before = text[max(0, a1 - 10):a1].replace("\\\\", "\\")  # C:\\Users\\ in JSON-escaped text
            if (_PERSONAL_PATH.search(before) and "/" not in piece) or _EMAIL.fullmatch(piece):
                continue
            count += 1
            if len(examples) < 8:
                examples.append(f"{path.name}: {text[max(0, a1 - 25):a2 + 5]!r}")
    return len(files), count, examples


def by_place(ids: list[str], corpus: list) -> str:
    """(``--by-place``) leaked/forms for each context or placement (the part of a form's id after its ``@``)."""
    total: dict[str, int] = {}
    for f in corpus:
        place = f.id.split("@")[1]
        total[place] = total.get(place, 0) + 1
    leaked: dict[str, int] = {}
    for fid in ids:
        place = fid.split("@")[1]
        leaked[place] = leaked.get(place, 0) + 1
    return ", ".join(f"{p} {leaked.get(p, 0)}/{total[p]}" for p in sorted(total))


def by_class(ids: list[str], corpus: list) -> str:
    classes = {f.id: f.cls for f in corpus}
    total: dict[str, int] = {}
    for f in corpus:
        total[f.cls] = total.get(f.cls, 0) + 1
    leaked: dict[str, int] = {}
    for fid in ids:
        leaked[classes[fid]] = leaked.get(classes[fid], 0) + 1
    return ", ".join(f"{c} {leaked.get(c, 0)}/{total[c]}" for c in sorted(total))


TURN = [0]  # --turn: only the forms of this red team's turn (0: all)
BY_PLACE = [False]  # --by-place: the leaks counted by context and placement too


def corpus_forms() -> list:
    return [f for f in forms() if f.turn >= TURN[0]]


JOBS = [1]  # --jobs: processes for the pipeline pass


def _pipeline_part(part: tuple[int, int]) -> list[str]:
    """The ids that leak through the pipeline among the forms ``part[0]``, ``part[0] + part[1]``, ..."""
    from kb.render.diagnosis import format_diagnosis
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.diagnose.document import diagnosis_document
    from kb.knowledge.index import load_index

    knowledge = load_index()
    leaked = []
    for form in corpus_forms()[part[0]::part[1]]:
        doc = diagnosis_document(diagnose_lines(form.text.splitlines(keepends=True), knowledge))
        shown = format_diagnosis(doc) + format_diagnosis(doc, full=True)
        if form.leaks(shown) or form.leaks(json.dumps(doc, ensure_ascii=False)):
            leaked.append(form.id)
    return leaked


def pipeline_leaks() -> list[str]:
    jobs = max(1, JOBS[0])
    if jobs == 1:
        return _pipeline_part((0, 1))
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        parts = pool.map(_pipeline_part, [(k, jobs) for k in range(jobs)])
    order = {f.id: i for i, f in enumerate(corpus_forms())}
    return sorted((fid for part in parts for fid in part), key=order.__getitem__)


IDS: list[str] = []  # --ids: the file the leaked ids are written to


def report(name: str, redact: Callable[[str], str], pipeline: bool, spans: Callable[[str], list] | None = None) -> None:
    corpus = corpus_forms()
    start = time.perf_counter()
    leaked = [f.id for f in corpus if f.leaks(redact(f.text))]
    took = time.perf_counter() - start
    written = [f"redact {fid}" for fid in leaked]
    files, false, examples = false_redactions(redact, spans)
    print(f"{name}")
    print(f"  secret corpus: {len(corpus)} forms, {len(leaked)} leak through redact() ({took * 1e3:.0f} ms in all)")
    print(f"    leaks by class (leaked/forms): {by_class(leaked, corpus)}")
    if BY_PLACE[0]:
        print(f"    leaks by context or placement (leaked/forms): {by_place(leaked, corpus)}")
    if leaked:
        shapes = sorted({f.split("@")[0] for f in leaked})
        print(f"    shapes and names that leak ({len(shapes)}): {', '.join(shapes)}")
        places = sorted({f.split("@")[1] for f in leaked})
        print(f"    contexts and placements where they leak ({len(places)}): {', '.join(places)}")
    if pipeline:
        through = pipeline_leaks()
        written += [f"pipeline {fid}" for fid in through]
        print(f"  secret corpus through kb diagnose (document and text): {len(through)} forms leak")
        print(f"    leaks by class (leaked/forms): {by_class(through, corpus)}")
        if BY_PLACE[0]:
            print(f"    leaks by context or placement (leaked/forms): {by_place(through, corpus)}")
        if through:
            shapes = sorted({f.split("@")[0] for f in through})
            print(f"    shapes and names that leak ({len(shapes)}): {', '.join(shapes)}")
            places = sorted({f.split("@")[1] for f in through})
            print(f"    contexts and placements where they leak ({len(places)}): {', '.join(places)}")
    print(f"  dev set: {files} files, {false} false redactions (masked text that is not a secret or a personal path)")
    for example in examples:
        print(f"    {example}")
    if IDS:
        Path(IDS[0]).write_text("".join(line + "\n" for line in written))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", metavar="COMMIT", help="also measure this commit's kb/diagnose/redact.py")
    parser.add_argument("--turn", type=int, default=0, help="only the forms of this red team's turn (e.g. 38)")
    parser.add_argument("--by-place", action="store_true", help="count the leaks by context and placement too")
    parser.add_argument("--redact-only", action="store_true",
                        help="(turn 44) this tree's leaks through redact() alone, not through kb diagnose's pipeline")
    parser.add_argument("--tree", metavar="DIR", help="(turn 48) measure the kb package of this tree instead")
    parser.add_argument("--ids", metavar="FILE", help="(turn 48) write the ids of the forms that leak to FILE")
    parser.add_argument("--jobs", type=int, default=1, help="(turn 48) processes for the pipeline pass")
    ns = parser.parse_args()
    TURN[0] = ns.turn
    JOBS[0] = ns.jobs
    IDS[:] = [ns.ids] if ns.ids else []
    BY_PLACE[0] = ns.by_place
    if ns.before:
        report(f"{ns.before} (kb/diagnose/redact.py)", old_redact(ns.before), pipeline=False)
    from kb.diagnose.redact import redact, secret_spans

    import kb

    name = f"the tree of {Path(kb.__file__).parent.parent}" if ns.tree else "this tree"
    report(f"{name} (kb/diagnose/redact/, tables/secrets.toml)", redact, pipeline=not ns.redact_only, spans=secret_spans)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

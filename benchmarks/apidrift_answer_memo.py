"""kb/apidrift/answer.py's memo of answers: the same documents with it and without it, over the dev set and the corpus.

Three passes in one process over every dev fixture (its bytes through the reader, as `kb diagnose FILE`) and every
report of the dev corpus (corpus/reports-*.jsonl: its error output, or its title where it shows none, as
scripts/corpus.py reads it), each giving every input's full JSON document: the memo off; on (filled as the pass
goes); on again (its answers kept from the pass before, as far as ANSWER_MEMO_SIZE holds them). Prints the CPU of each
pass, the answers asked and found in the memo, and every input whose document differs; also checks that no answer
changes its question's dicts (a memo hit would not), and the largest question and answer kept.

    python benchmarks/apidrift_answer_memo.py
"""

from __future__ import annotations

import copy
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(1, str(REPO / "tests"))

from devset_documents import FIXTURES, document  # noqa: E402

from kb.apidrift import answer as memo  # noqa: E402
from kb.diagnose.diagnosis import diagnose_lines  # noqa: E402
from kb.diagnose.document import diagnosis_document  # noqa: E402
from kb.knowledge.registry import load_knowledge  # noqa: E402


def _corpus() -> list[tuple[str, str]]:
    out = []
    for path in sorted((REPO / "corpus").glob("reports-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                out.append((r["id"], r["error"] if r["error"].strip() else r["title"]))
    return out


def main() -> int:
    knowledge = load_knowledge()
    corpus = _corpus()
    asked, unchanged = [0], [True]
    inner = memo._answer

    def checked(form, fields, facts, env, h):  # noqa: ANN001, ANN202
        before = copy.deepcopy((fields, facts, env))
        found = inner(form, fields, facts, env, h)
        if (fields, facts, env) != before:
            unchanged[0] = False
            print("  an answer changed its question's dicts:", form, before)
        return found

    memo._answer = checked
    real = memo.answer

    def counted(*args):  # noqa: ANN002, ANN202
        asked[0] += 1
        return real(*args)

    memo.answer = counted
    passes = []
    for label, on in (("memo off", False), ("memo on", True), ("memo on again", True)):
        memo.ANSWER_MEMO = on
        asked[0], computed = 0, 0
        before_inner = [0]

        def counting_inner(*args, _f=checked, _c=before_inner):  # noqa: ANN002, ANN202
            _c[0] += 1
            return _f(*args)

        memo._answer = counting_inner
        start = time.process_time()
        docs = {f"dev:{p.name}": document(p.read_bytes(), knowledge) for p in FIXTURES}
        docs.update({f"corpus:{rid}": json.dumps(diagnosis_document(diagnose_lines(text.splitlines(keepends=True),
                                                                                   knowledge)), sort_keys=True)
                     for rid, text in corpus})
        spent = time.process_time() - start
        computed = before_inner[0]
        passes.append((label, docs))
        print(f"{label:14}: {len(FIXTURES)} dev fixtures + {len(corpus)} corpus reports, {spent:.1f} s CPU; "
              f"answer() asked {asked[0]}, answered from the memo {asked[0] - computed}")
    differ = 0
    for label, docs in passes[1:]:
        bad = [k for k, v in docs.items() if v != passes[0][1][k]]
        differ += len(bad)
        print(f"{label}: {len(bad)} of {len(docs)} documents differ from the memo-off pass", bad[:10])
    sizes = [len(repr(k)) for k in memo._MEMO]
    answers = [len(json.dumps(v)) for v in memo._MEMO.values()]
    print(f"memo: {len(memo._MEMO)} answers kept (of at most {memo.ANSWER_MEMO_SIZE}); largest question "
          f"{max(sizes, default=0)} chars, largest answer {max(answers, default=0)} chars of JSON; "
          f"questions' dicts unchanged by every answer: {unchanged[0]}")
    return 1 if differ or not unchanged[0] else 0


if __name__ == "__main__":
    sys.exit(main())

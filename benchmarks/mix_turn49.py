"""Every dev-corpus report's answer, as ``scripts/corpus.py score`` gives it, written to a JSON file; or two such files
compared (issue #24, turn 49: mechanisms that answer a class of reports, checked before -> after).

    python benchmarks/mix_turn49.py dump OUT.json [--fixtures]   # corpus/reports-*.jsonl (never corpus/sealed)
    python benchmarks/mix_turn49.py diff BEFORE.json AFTER.json
    python benchmarks/mix_turn49.py classes DUMP.json          # the candidate classes below, scored as new rules

``--fixtures`` also answers tests/fixtures/diagnose's out-of-scope fixtures (manifest entries whose family is
``out-of-scope`` or that expect no answer), so that a mechanism's claims there are counted too.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

import corpus as C  # noqa: E402  (scripts/corpus.py)

from kb.diagnose.diagnosis import diagnose_lines  # noqa: E402
from kb.diagnose.priors import basis  # noqa: E402
from kb.knowledge.registry import load_knowledge  # noqa: E402


def dump(out: Path) -> int:
    knowledge = load_knowledge()
    case_family = {c.key: c.family for c in knowledge.cases}
    rows = [r for p in C.batch_files() for r in C.read(p)]
    moves = C.rehomes(C.read_frequency("frequency-aliases") or {}, rows, {f.key for f in knowledge.families})
    result = {}
    for r in rows:
        text = r["error"] if r["error"].strip() else r["title"]
        answers = diagnose_lines(text.splitlines(keepends=True), knowledge).answers
        got, how = None, ""
        if answers:
            top = answers[0]
            got = f"case:{top.match.entry.key}" if top.kind == "case" else f"family:{top.match.entry.key}"
            how = basis(top)
        family = moves.get((r["label"]["family"], r["label"]["cause"]), r["label"]["family"])
        result[r["id"]] = {"batch": r["batch"], "family": family, "cause": r["label"]["cause"],
                           "kind": "error" if r["error"].strip() else "title", "answer": got, "basis": how,
                           "grade": C.grade(family, got, case_family)}
    out.write_text(json.dumps(result, indent=0, ensure_ascii=False))
    print(summary(result))
    return 0


def group(row: dict) -> str:
    return row["family"] if row["family"] in ("out-of-scope", "unknown-family") else "kb"


def summary(result: dict) -> str:
    c = Counter((group(r), r["grade"]) for r in result.values())
    total = Counter(r["grade"] for r in result.values())
    lines = [f"all {len(result)}: right {total['right']} wrong {total['wrong']} silent {total['silent']}"]
    for g in ("kb", "unknown-family", "out-of-scope"):
        n = sum(v for k, v in c.items() if k[0] == g)
        lines.append(f"  {g:15} {n:5}: right {c[(g, 'right')]:5} wrong {c[(g, 'wrong')]:4} silent {c[(g, 'silent')]:5}")
    return "\n".join(lines)


def diff(before: Path, after: Path) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    print("before\n" + summary(a) + "\nafter\n" + summary(b))
    for key in sorted(set(a) & set(b)):
        if a[key]["answer"] != b[key]["answer"]:
            x, y = a[key], b[key]
            print(f"{x['grade']:>6} -> {y['grade']:<6} {key:55} {y['family']:16} {x['answer']} -> {y['answer']} "
                  f"({y['basis']}) [{y['batch']}]")
    return 0


# Candidate classes of issue #24 (turn 49's brief): a family and the words a report's first lines would need, all of
# them (case-insensitive). Each is scored as if it were a new keyword rule placed after every existing one: only the
# reports kb does not answer today could change, and each would become right (labelled with that family) or wrong
# (another family, unknown-family, out-of-scope). Read where kb's keyword rules read: the title of a title-only report;
# the first three non-blank lines of an error output that holds no exception or traceback line.
FAIL = r"报错|错误|失败|出错|\berror|\bfail|not work|doesn.?t work|can.?t|cannot|unable|crash|\bbug|broken|\bissues?\b|problem"
CLASSES: dict[str, tuple[str, list[str]]] = {
    "multi-GPU / multi-node + failure (en, zh)": ("multi-gpu-launch", [
        r"多卡|多机|单机多卡|多节点|分布式|multi[- ]?gpus?|multiple gpus|multi[- ]?nodes?|\d ?x? ?gpus\b|\bddp\b", FAIL]),
    "ZeRO / DeepSpeed / FSDP + failure": ("sharding-config", [
        r"\bzero[- _]?(?:stage[- _]?)?[123]\b|\bzero3\b|\bdeepspeed\b|\bfsdp\b|\bds_?config", FAIL]),
    "install / setup / build + failure": ("package-install", [
        r"\binstall\w{0,6}|安装|\bpip\b|\bsetup\b|\bbuild\w{0,3}\b|\bwheel\b|\bcompil\w{1,5}", FAIL]),
    "OOM words (no stack word needed)": ("cuda-oom", [
        r"out of memory|(?<![a-z])oom(?![a-z])|显存|outofmemory|\bmemory (?:error|issue|usage)"]),
    "stuck / hang / slow / no progress": ("hang", [
        r"\bstuck|\bhang|\bhung\b|freez|卡住|卡死|不动|没反应|no progress|\bslow|很慢|太慢|\bblock(?:s|ed)?\b"]),
    "save / load / merge / resume / export + failure": ("checkpoint-io", [
        r"\bsav(?:e|ing|ed)\b|\bload\w{0,3}|\bmerg\w{0,4}|\bresum\w{0,3}|\bexport\w{0,3}|合并|导出|加载|保存", FAIL]),
    "pip's failure output": ("package-install", [
        r"subprocess-exited-with-error|did not run successfully|could not find a version that satisfies|failed building wheel"]),
    "loss nan / 0 words": ("loss-nan", [r"\bnan\b|\binf\b|loss[^\n]{0,12}\b0(?:\.0+)?\b"]),
}
TYPED = re.compile(r"^\s*(?:\[rank\d+\]:\s*)?(?:Traceback|[A-Za-z_][\w.]*(?:Error|Exception)\b)", re.M)


def half(batch: str) -> str:
    """A fixed split of the batches (first hex digit of sha1(batch) even: A, odd: B): a class "derived" on one half
    should hold on the other."""
    return "A" if int(hashlib.sha1(batch.encode()).hexdigest()[0], 16) % 2 == 0 else "B"


def classes(dump_path: Path) -> int:
    result = json.loads(dump_path.read_text())
    records = {r["id"]: r for p in C.batch_files() for r in C.read(p)}
    table = load_knowledge().tables["priors"]
    other = re.compile(table["other"]["words"], re.I)  # the engine answers no keyword rule on these words
    stack = re.compile(table["stack"]["words"], re.I)
    for need_stack in (False, True):
        print(f"\n-- with the [stack] words required: {need_stack}")
        _classes(result, records, other, stack if need_stack else None)
    return 0


def _classes(result: dict, records: dict, other: re.Pattern, stack: re.Pattern | None) -> None:
    print("class -> family: [half] right-if-claimed / wrong-if-claimed (other family, unknown-family, out-of-scope) "
          "among reports kb leaves unanswered today; already answered (any answer) in parentheses")
    for name, (family, words) in CLASSES.items():
        rx = [re.compile(w, re.I) for w in words]
        line = [f"{name} -> {family}:"]
        for part in ("A", "B"):
            c: Counter = Counter()
            for key, row in result.items():
                if half(row["batch"]) != part:
                    continue
                r = records[key]
                if row["kind"] == "title":
                    text = r["title"]
                elif TYPED.search(r["error"]):
                    continue
                else:
                    text = "\n".join([x for x in r["error"].splitlines() if x.strip()][:3])
                if not all(x.search(text) for x in rx) or other.search(text) or (stack and not stack.search(text)):
                    continue
                if row["answer"] is not None:
                    c["answered"] += 1
                elif row["family"] == family:
                    c["right"] += 1
                elif row["family"] in ("out-of-scope", "unknown-family"):
                    c[row["family"]] += 1
                else:
                    c["other"] += 1
            line.append(f"[{part}] right {c['right']} / wrong {c['other'] + c['unknown-family'] + c['out-of-scope']}"
                        f" ({c['other']} other, {c['unknown-family']} uf, {c['out-of-scope']} oos) ({c['answered']})")
        print("  " + " ".join(line))


if __name__ == "__main__":
    if sys.argv[1:2] == ["classes"]:
        raise SystemExit(classes(Path(sys.argv[2])))
    if sys.argv[1:2] == ["dump"]:
        raise SystemExit(dump(Path(sys.argv[2])))
    if sys.argv[1:2] == ["diff"]:
        raise SystemExit(diff(Path(sys.argv[2]), Path(sys.argv[3])))
    raise SystemExit(__doc__)

"""Issue #24, turn 50: the kb-family reports of the dev corpus that show error output and that kb is silent or wrong
on, grouped by the evidence their output shows, and the mechanisms each kind of evidence would allow, scored on two
fixed halves of the batches (derived on one half, measured on the other: right gained vs wrong claims added).

    python benchmarks/mix_turn49.py dump DUMP.json          # every dev-corpus report's answer today (never sealed)
    python benchmarks/mix_turn50.py residue DUMP.json       # the residue, one evidence kind per report
    python benchmarks/mix_turn50.py halves DUMP.json        # table-learned mechanisms, derived on A -> B and B -> A
    python benchmarks/mix_turn50.py rewrites DUMP.json      # input rewrites and ungated signatures, re-diagnosed

A mechanism here only answers a report kb leaves unanswered today (as a rule placed after every existing one would):
on the measured half it is right when the report is labelled with the family it would name, wrong otherwise (another
family, unknown-family, out-of-scope). Halves as benchmarks/mix_turn49.py's: first hex digit of sha1(batch) even: A.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "benchmarks"))

import corpus as C  # noqa: E402  (scripts/corpus.py)
from mix_turn49 import half  # noqa: E402

SCOPE = ("out-of-scope", "unknown-family")
EXCEPTION = re.compile(r"^\s*(?:\[rank\d+\]:\s*)?((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Failure))"
                       r"\b(?::(.*))?$")
IPYTHON_HEADER = re.compile(r"\s{5,}Traceback \(most recent call last\)")
FRAME = re.compile(r'File "([^"]+)", line \d+, in (\S+)')
PROCESS = {
    "ChildFailedError": r"ChildFailedError",
    "exit code / signal": r"exitcode: -?\d+|exit(?:ed with)? (?:code|status) -?\d+|Signal \d+ \(SIG\w+\)|SIGKILL|SIGTERM",
    "Killed": r"^\s*Killed\b|\bKilled\s*$|core dumped|Segmentation fault",
    "broken pipe / timeout": r"Broken pipe|timed out|Timeout",
}
ENVIRONMENT = {
    "shared object / ABI": r"undefined symbol|GLIBC|\.so(?:\.\d+)*: cannot open|ABI",
    "driver / arch": r"driver version|CUDA driver|no kernel image|sm_\d\d",
    "CUDA toolkit": r"CUDA_HOME|\bnvcc\b|CUDA_PATH",
    "pip build": r"Failed building wheel|subprocess-exited-with-error|Could not build wheels|ResolutionImpossible",
}
KINDS = ("process", "environment/ABI", "exception + message", "exception class only", "raising frame only",
         "log lines only")


def load(dump_path: Path) -> tuple[dict, dict]:
    return json.loads(dump_path.read_text()), {r["id"]: r for p in C.batch_files() for r in C.read(p)}


def label(row: dict) -> str:
    return row["family"] if row["family"] in SCOPE else "kb:" + row["family"]


def exceptions(text: str) -> list[tuple[str, str]]:
    return [(m.group(1).rsplit(".", 1)[-1], (m.group(2) or "").strip()) for line in text.splitlines()
            for m in [EXCEPTION.match(IPYTHON_HEADER.split(line)[0])] if m]


def frame_module(text: str, depth: int = 2) -> str | None:
    frames = FRAME.findall(text)
    if not frames:
        return None
    m = re.search(r"(?:site|dist)-packages/(.+)$", frames[-1][0])
    return "/".join(m.group(1).split("/")[:depth]) if m else "(user code)"


def evidence(text: str) -> str:
    if any(re.search(rx, text, re.M) for rx in PROCESS.values()):
        return "process"
    if any(re.search(rx, text, re.M) for rx in ENVIRONMENT.values()):
        return "environment/ABI"
    exc = exceptions(text)
    if exc and exc[-1][1]:
        return "exception + message"
    if exc:
        return "exception class only"
    return "raising frame only" if FRAME.search(text) else "log lines only"


def residue(dump_path: Path) -> int:
    result, records = load(dump_path)
    rows = [(rid, r) for rid, r in result.items()
            if r["family"] not in SCOPE and r["kind"] == "error" and r["grade"] != "right"]
    by_kind: dict[str, list] = defaultdict(list)
    for rid, r in rows:
        by_kind[evidence(records[rid]["error"])].append((rid, r))
    print(f"kb-family reports with error output, kb silent or wrong: {len(rows)} "
          f"(silent {sum(r['grade'] == 'silent' for _, r in rows)}, wrong {sum(r['grade'] == 'wrong' for _, r in rows)})")
    for kind in KINDS:
        members = by_kind[kind]
        fams = Counter(r["family"] for _, r in members)
        halves = Counter(half(r["batch"]) for _, r in members)
        print(f"\n{kind}: {len(members)} (A {halves['A']}, B {halves['B']}); "
              + ", ".join(f"{f} {n}" for f, n in fams.most_common()))
        for rid, r in sorted(members, key=lambda x: (x[1]["family"], x[0])):
            exc = exceptions(records[rid]["error"])
            shown = f"{exc[-1][0]}: {exc[-1][1][:60]}" if exc else (frame_module(records[rid]["error"]) or "")
            print(f"  {half(r['batch'])} {r['family']:18} {r['grade']:6} {str(r['answer'])[:24]:24} {rid[:46]:46} {shown}")
    return 0


# ---- table-learned mechanisms: a feature of the output -> a family, learned from one half's unanswered reports


def _ngrams(text: str, n: int) -> set[str]:
    out: set[str] = set()
    for line in text.splitlines():
        s = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "Q", line)
        s = re.sub(r"/[\w./-]+", "P", s)
        s = re.sub(r"\d+(?:\.\d+)*", "N", s)
        words = re.sub(r"[^\w\s]", " ", s.lower()).split()
        out.update(" ".join(words[i:i + n]) for i in range(len(words) - n + 1))
    return out


FEATURES: dict[str, Callable[[str], Iterable[str]]] = {
    "raising frame (module of the last frame)": lambda t: [m] if (m := frame_module(t)) else [],
    "exception class (the last one)": lambda t: [e[-1][0]] if (e := exceptions(t)) else [],
    "exception class + raising frame": lambda t: [f"{e[-1][0]}@{m}"] if (e := exceptions(t)) and (m := frame_module(t))
    else [],
    "library message family (3 normalised words)": lambda t: _ngrams(t, 3),
    "library message family (4 normalised words)": lambda t: _ngrams(t, 4),
    "library message family (6 normalised words)": lambda t: _ngrams(t, 6),
    "process evidence": lambda t: [k for k, rx in PROCESS.items() if re.search(rx, t, re.M)],
    "environment / ABI evidence": lambda t: [k for k, rx in ENVIRONMENT.items() if re.search(rx, t, re.M)],
}


def halves(dump_path: Path) -> int:
    result, records = load(dump_path)
    silent = [(rid, r) for rid, r in result.items() if r["answer"] is None and r["kind"] == "error"]
    print(f"unanswered reports with error output: {len(silent)} "
          f"(A {sum(half(r['batch']) == 'A' for _, r in silent)}, B {sum(half(r['batch']) == 'B' for _, r in silent)}); "
          f"kb-family among them {sum(r['family'] not in SCOPE for _, r in silent)}")
    print("a feature is learned on a half when >= 2 (or >= 1) of its unanswered reports there are labelled with one kb "
          "family and (strict) none / (loose) at most a third are labelled otherwise; it then claims that family on the "
          "other half")
    for name, feature in FEATURES.items():
        members: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
        for rid, r in silent:
            for f in set(feature(records[rid]["error"])):
                members[f][half(r["batch"])].append(label(r))
        cells = []
        for loose, least in ((False, 2), (True, 2), (False, 1)):
            for src, dst in (("A", "B"), ("B", "A")):
                learned = {}
                for f, by_half in members.items():
                    labs = Counter(by_half[src])
                    top, n = labs.most_common(1)[0] if labs else ("", 0)
                    others = sum(labs.values()) - n
                    if top.startswith("kb:") and n >= least and (others * 3 <= sum(labs.values()) if loose else others == 0):
                        learned[f] = top
                right = wrong = 0
                for rid, r in silent:
                    if half(r["batch"]) != dst:
                        continue
                    claims = {learned[f] for f in set(feature(records[rid]["error"])) if f in learned}
                    if claims:
                        right += label(r) in claims and len(claims) == 1
                        wrong += not (label(r) in claims and len(claims) == 1)
                rule = f"{'loose' if loose else 'strict'}, >= {least}"
                cells.append(f"{rule:12} {src}->{dst}: learned {len(learned):4}, "
                             f"right {right:2} / wrong {wrong:2}")
        print(f"\n{name}\n  " + "\n  ".join(cells))
    return 0


# ---- rewrites of the input and signatures without their gate, re-diagnosed with kb's engine


FULL_WIDTH = str.maketrans({"；": ";", "：": ":", "，": ",", "（": "(", "）": ")", "！": "!", "＂": '"', "＇": "'",
                            "　": " ", "［": "[", "］": "]", "＝": "=", "＜": "<", "＞": ">"})
MID_LINE = re.compile(r"^(?P<pre>.*?\S.*?)(?<![\w.])(?P<exc>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)):\s")


def _cut_before_exception(text: str) -> str:
    out = []
    for line in text.splitlines():
        m = MID_LINE.match(line)
        keep = (m and not re.match(r"^\s*(?:File |Traceback|\[|\w+\.py)", line)
                and not re.search(r"\braise\b|\bexcept\b", m.group("pre")))
        out.append(line[m.start("exc"):] if keep and m else line)
    return "\n".join(out)


def rewrites(dump_path: Path) -> int:
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.knowledge.registry import load_knowledge

    knowledge = load_knowledge()
    case_family = {c.key: c.family for c in knowledge.cases}
    result, records = load(dump_path)
    for name, rewrite in (("full-width punctuation to ASCII", lambda t: t.translate(FULL_WIDTH)),
                          ("prose before an exception cut", _cut_before_exception)):
        changed, moves = 0, Counter()
        for rid, r in result.items():
            text = records[rid]["error"]
            if not text.strip() or (new := rewrite(text)) == text:
                continue
            changed += 1
            answers = diagnose_lines(new.splitlines(keepends=True), knowledge).answers
            got = None
            if answers:
                top = answers[0]
                got = f"case:{top.match.entry.key}" if top.kind == "case" else f"family:{top.match.entry.key}"
            if got != r["answer"]:
                moves[(half(r["batch"]), r["grade"], C.grade(r["family"], got, case_family))] += 1
                print(f"  {half(r['batch'])} {r['family']:18} {r['grade']} -> {C.grade(r['family'], got, case_family)} "
                      f"{r['answer']} -> {got} {rid}")
        print(f"{name}: {changed} reports rewritten; answers changed: "
              + (", ".join(f"{h} {a}->{b} {n}" for (h, a, b), n in sorted(moves.items())) or "none"))
    print("\nsignatures with a gate (requires_frame / requires_type): their message alone, on reports kb leaves "
          "unanswered")
    for path in sorted((REPO / "families").glob("*.md")):
        meta = tomllib.loads(path.read_text(encoding="utf-8").split("+++")[1])
        for sig in meta.get("signatures", []):
            if not (sig.get("requires_frame") or sig.get("requires_type")) or not sig.get("message"):
                continue
            rx = re.compile(sig["message"])
            hits = Counter()
            for rid, r in result.items():
                if r["answer"] is None and rx.search(records[rid]["error"] or records[rid]["title"]):
                    hits[(half(r["batch"]), "right" if r["family"] == meta["name"] else "wrong")] += 1
            if hits:
                print(f"  {meta['name']}/{sig['name']}: "
                      + ", ".join(f"{h} {k} {n}" for (h, k), n in sorted(hits.items())))
    return 0


if __name__ == "__main__":
    commands = {"residue": residue, "halves": halves, "rewrites": rewrites}
    if len(sys.argv) != 3 or sys.argv[1] not in commands:
        print(__doc__)
        raise SystemExit(2)
    raise SystemExit(commands[sys.argv[1]](Path(sys.argv[2])))

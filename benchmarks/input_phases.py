"""Where `kb diagnose`'s time goes on a large log: CPU seconds of each stage, cumulatively, in one process.

For a log (benchmarks/diagnose_speed.py's generator unless a file is given) it runs, each after the
other and each from a fresh read of the file (the page cache holds it after the first):

1. read + decode + split into lines (kb/diagnose/input.py LogReader.chunks);
2. 1, then the scanners that read facts from every chunk (environment, versions, process evidence);
3. 2, then the structural search (the lines holding a trigger word: kb/diagnose/stream.py trigger_lines);
4. the whole diagnosis (diagnose_reader: 2, then parse_chunks with its search, matching, the document);
and, for comparison, one ``str.find`` pass per trigger word over the whole log, and ``grep -E`` of all
the trigger words (its CPU time, from wait4). Each figure is the minimum of ``--runs`` runs.

    python benchmarks/input_phases.py [LOG] [--size-mb 200] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from diagnose_speed import generate_log  # noqa: E402

from kb.diagnose import stream  # noqa: E402
from kb.diagnose.diagnosis import diagnose_reader  # noqa: E402
from kb.diagnose.document import diagnosis_document  # noqa: E402
from kb.diagnose.drift import VersionScanner  # noqa: E402
from kb.diagnose.environment import _ENV_TOKENS, EnvironmentScanner  # noqa: E402
from kb.diagnose.input import open_input  # noqa: E402
from kb.diagnose.parser import STRUCTURAL_TOKENS  # noqa: E402
from kb.diagnose.priors import LineEvidence  # noqa: E402
from kb.knowledge.index import load_index  # noqa: E402


def cpu(run: object, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        run()  # type: ignore[operator]
        best = min(best, time.process_time() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", nargs="?", type=Path)
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    ns = parser.parse_args()
    knowledge = load_index()
    tables = knowledge.tables
    with tempfile.TemporaryDirectory(prefix="kb-phases-") as tmp:
        log = ns.log or Path(tmp) / "noisy.log"
        if ns.log is None:
            generate_log(log, ns.size_mb)
        size = log.stat().st_size

        def scanners() -> object:
            env = EnvironmentScanner(tables["gpus"]["card"] if "gpus" in tables else None)
            versions = VersionScanner(knowledge.libraries("log_versions"))
            evidence = LineEvidence(tables.get("priors"))
            return evidence.scan(versions.scan(env.scan(open_input(str(log)).chunks())))

        def read() -> None:
            for _ in open_input(str(log)).chunks():
                pass

        def scan() -> None:
            for _ in scanners():  # type: ignore[attr-defined]
                pass

        def search() -> None:
            for text, _lines in scanners():  # type: ignore[attr-defined]
                stream.trigger_lines(text, STRUCTURAL_TOKENS)

        def whole() -> None:
            diagnosis_document(diagnose_reader(open_input(str(log)), knowledge))

        words = list(dict.fromkeys(STRUCTURAL_TOKENS + _ENV_TOKENS))
        text = log.read_text(encoding="utf-8", errors="replace")

        def finds() -> None:
            for word in words:
                text.find(word)  # (absent words: one full pass each; present ones stop early)

        def grep() -> float:
            pattern = "|".join(w.replace("(", "\\(").replace(")", "\\)").replace(".", "\\.") for w in words)
            proc = subprocess.Popen(["grep", "-E", pattern, str(log)], stdout=subprocess.PIPE,
                                    env={**os.environ, "LC_ALL": "C"})
            assert proc.stdout is not None
            while proc.stdout.read(1 << 20):
                pass
            _, _status, usage = os.wait4(proc.pid, 0)
            return usage.ru_utime + usage.ru_stime

        figures = [
            ("read + decode + split into lines", cpu(read, ns.runs)),
            ("... + the fact scanners (environment, versions, evidence)", cpu(scan, ns.runs)),
            ("... + the structural search (trigger_lines)", cpu(search, ns.runs)),
            ("the whole diagnosis (kb diagnose's work after start-up)", cpu(whole, ns.runs)),
            (f"one str.find per trigger word ({len(words)}), whole log in memory", cpu(finds, ns.runs)),
            (f"grep -E of the {len(words)} trigger words (child CPU)", min(grep() for _ in range(ns.runs))),
        ]
        print(f"{size / 1e6:.0f} MB log, CPU seconds, best of {ns.runs}, {os.cpu_count()} CPUs, "
              f"load average {os.getloadavg()[0]:.2f}")
        for name, seconds in figures:
            print(f"  {name:<66} {seconds:6.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

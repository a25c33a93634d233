"""Where a large log's time goes in `kb diagnose`, by stage and by who searches the chunks (issue 26).

In one process, as the command runs a large file (glibc's malloc told to keep what it frees, as
kb/cli/__init__.py keep_freed_memory does for a file of 32 MiB or more), ``--runs`` times each, alternating:

- the reader alone (read, decode, split into lines: kb/diagnose/input.py LogReader.chunks);
- the whole diagnosis (diagnose_reader and the document), with the CPU time of each caller of
  kb/diagnose/stream.py trigger_lines: the environment scanner, the versions scanner, the priors' process
  evidence (kb/diagnose/priors.py) and the parser's structural search with the first lines' literals;
- kb/diagnose/stream.py _repeated (the message memo's check), its calls and how many it counted.

What is left of the whole is the parse loop, matching, the document and the wrappers' own cost (a few ms).
CPU time (time.process_time), medians and ranges over the runs: on a shared machine, report the load.

    python benchmarks/input_callers.py [LOG] [--size-mb 200] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from diagnose_speed import generate_log  # noqa: E402

from kb.diagnose import environment, priors, stream, versions  # noqa: E402
from kb.diagnose.diagnosis import diagnose_reader  # noqa: E402
from kb.diagnose.document import diagnosis_document  # noqa: E402
from kb.diagnose.input import open_input  # noqa: E402
from kb.knowledge.index import load_index  # noqa: E402


def keep_freed_memory() -> bool:
    """What kb/cli/__init__.py keep_freed_memory tells glibc for a large file (in-process it is not done)."""
    if not sys.platform.startswith("linux") or not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
        return False
    import ctypes

    from kb.cli import _M_MMAP_THRESHOLD, _M_TRIM_THRESHOLD, MMAP_THRESHOLD_BYTES, TRIM_THRESHOLD_BYTES

    mallopt = ctypes.CDLL(None).mallopt
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)) & bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", nargs="?", type=Path)
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    ns = parser.parse_args()
    kept = keep_freed_memory()
    knowledge = load_index()
    spent: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    search = stream.trigger_lines

    def timed(name: str):  # noqa: ANN202 - a wrapper of trigger_lines
        def run(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            start = time.process_time()
            found = search(*args, **kwargs)
            spent[name] += time.process_time() - start
            calls[name] += 1
            return found
        return run

    memo_check = stream._repeated

    def repeated(*args):  # noqa: ANN002, ANN202
        start = time.process_time()
        end = memo_check(*args)
        spent["message memo (_repeated)"] += time.process_time() - start
        calls["message memo (_repeated)"] += 1
        calls["message memo: repeats counted"] += end != -1
        return end

    environment.trigger_lines = timed("environment scanner")
    versions.trigger_lines = timed("versions scanner")
    priors.trigger_lines = timed("priors (process evidence)")
    stream.trigger_lines = timed("parser (structural words, first lines' literals)")
    stream._repeated = repeated
    with tempfile.TemporaryDirectory(prefix="kb-callers-") as tmp:
        log = ns.log
        if log is None:
            log = Path(tmp) / "noisy.log"
            generate_log(log, ns.size_mb)
        rows: dict[str, list[float]] = {}
        counts: dict[str, int] = {}
        for _ in range(ns.runs):
            start = time.process_time()
            for _chunk in open_input(str(log)).chunks():
                pass
            rows.setdefault("the reader alone (read, decode, split)", []).append(time.process_time() - start)
            spent.clear()
            calls.clear()
            start = time.process_time()
            diagnosis_document(diagnose_reader(open_input(str(log)), knowledge))
            rows.setdefault("the whole diagnosis (wrapped)", []).append(time.process_time() - start)
            for name, seconds in spent.items():
                rows.setdefault(f"  {name}", []).append(seconds)
            counts = dict(calls)
        size = log.stat().st_size  # (before the temporary folder and the log generated in it are gone)
    print(f"{size / 1e6:.0f} MB log, CPU seconds, {ns.runs} runs (median, min-max); malloc told to keep "
          f"what it frees: {kept}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    for name, values in rows.items():
        key = name.strip()
        n = f"  ({counts[key]} calls)" if key in counts else ""
        print(f"  {name:<62} {statistics.median(values):6.3f} s ({min(values):.3f}-{max(values):.3f}){n}")
    if "message memo: repeats counted" in counts:
        print(f"  (the message memo counted {counts['message memo: repeats counted']} repeats without parsing them)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Check tests/devset_documents.py's read-state reduction over the whole dev set, for every variant that uses it.

tests/test_prefilter.py and tests/test_speed_paths.py build a fixture's document under a variant only where its read
state (``read_state``: everything the pipeline holds once the input is read) differs from the default reading's. That
is sound when equal read states give equal documents. This builds, for every dev fixture and every variant, both the
read state and the full document, and counts:

- same state, same document;  - same state, other document (the reduction would miss it: must be 0);
- other state, same document (a difference the document does not show: the test builds the document there);
- other state, other document.

    python benchmarks/read_state_soundness.py            # every variant
    python benchmarks/read_state_soundness.py crlf cr    # some
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(1, str(REPO / "tests"))

from devset_documents import FIXTURES, document, read_state  # noqa: E402

from kb.diagnose import stream  # noqa: E402
from kb.knowledge.registry import load_knowledge  # noqa: E402


def _ends(data: bytes, end: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", end)


def _cr_only(path: Path) -> bytes | None:
    data = path.read_bytes()
    return None if b"\r" in data.replace(b"\r\n", b"") else _ends(data, b"\r")


VARIANTS: dict[str, tuple[dict[str, object], Callable[[Path], bytes | None]]] = {
    "no-prefilter": ({"PREFILTER": False}, Path.read_bytes),
    "cr": ({}, _cr_only),
    "crlf": ({}, lambda path: _ends(path.read_bytes(), b"\r\n")),
    "presence-every-chunk": ({"PRESENCE_MIN_CHARS": 0}, Path.read_bytes),
    "no-fast-path": ({"FAST_CONTINUATION": False}, Path.read_bytes),
    "no-run-memo": ({"RUN_MEMO": False}, Path.read_bytes),
    "no-message-memo": ({"MESSAGE_MEMO": False}, Path.read_bytes),
}


def main(names: list[str]) -> int:
    knowledge = load_knowledge()
    start = time.process_time()
    originals = {path: (read_state(path.read_bytes(), knowledge), document(path.read_bytes(), knowledge))
                 for path in FIXTURES}
    print(f"{len(FIXTURES)} dev fixtures, default reading: {time.process_time() - start:.1f} s CPU")
    missed = 0
    for name in names or list(VARIANTS):
        flags, data_of = VARIANTS[name]
        saved = {flag: getattr(stream, flag) for flag in flags}
        counts = {(s, d): 0 for s in (True, False) for d in (True, False)}
        state_s = doc_s = 0.0
        try:
            for flag, value in flags.items():
                setattr(stream, flag, value)
            for path in FIXTURES:
                data = data_of(path)
                if data is None:
                    continue
                t = time.process_time()
                state = read_state(data, knowledge)
                u = time.process_time()
                doc = document(data, knowledge)
                state_s, doc_s = state_s + u - t, doc_s + time.process_time() - u
                same = (state == originals[path][0], doc == originals[path][1])
                counts[same] += 1
                if same == (True, False):
                    print(f"  MISSED: {name} {path.name}: the same read state, another document")
        finally:
            for flag, value in saved.items():
                setattr(stream, flag, value)
        missed += counts[(True, False)]
        print(f"{name:22} read {sum(counts.values()):5}: same state+same doc {counts[(True, True)]:5}, "
              f"same state+other doc {counts[(True, False)]}, other state+same doc {counts[(False, True)]}, "
              f"other state+other doc {counts[(False, False)]};  CPU: states {state_s:.1f} s, documents {doc_s:.1f} s")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""CPU timing for the tests that guard redaction against pathological input: the least of a few runs, so one pause
of a loaded CI machine does not read as a slope, and a bound relative to ordinary text measured in the same process,
so a slower or contended machine (two xdist workers on the two hyperthreads of one core read ~1.6 times the CPU
time of one alone) moves both sides alike."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

REPEAT = 3  # runs per measurement; the least is kept
FIXTURES = Path(__file__).parent / "fixtures" / "diagnose"
ORDINARY_BYTES = 64 * 1024
PER_MB_FLOOR = 3.0  # CPU seconds a MB always allowed (tests/test_adversarial_time.py's bound for diagnose)


def least_cpu_seconds(call: Callable[[], object], repeat: int = REPEAT, enough: float = 0.0) -> float:
    """The least CPU time ``call`` took over ``repeat`` runs, or over the runs until one took less than ``enough``
    seconds: a bound ``least < enough`` then holds as it would after all ``repeat`` (the least of more runs is no
    larger), so a test that passes stops measuring, and only one over its bound is run again."""
    took: list[float] = []
    for _ in range(repeat):
        start = time.process_time()
        call()
        took.append(time.process_time() - start)
        if took[-1] < enough:
            break
    return min(took)


@cache
def ordinary_text() -> str:
    """64 KiB of the dev set's real reports (the first files in sorted order)."""
    parts, size = [], 0
    for path in sorted(FIXTURES.rglob("*.txt")):
        parts.append(path.read_text(encoding="utf-8", errors="replace"))
        size += len(parts[-1])
        if size >= ORDINARY_BYTES:
            break
    return "".join(parts)[:ORDINARY_BYTES]


@cache
def per_mb_bound(apply: Callable[[str], object]) -> float:
    """CPU seconds a MB a pathological text may take: what ``apply`` takes on ordinary text (real reports cost
    redaction ~5.6 s/MB on a 2-core machine), measured once a process, and never less than PER_MB_FLOOR."""
    text = ordinary_text()
    apply(text)
    return max(PER_MB_FLOOR, least_cpu_seconds(lambda: apply(text)) / (len(text) / 1e6))


def diagnose_text(text: str) -> object:
    """``diagnose_lines`` over ``text`` with the loaded knowledge: the ``apply`` of the timing tests of the whole
    pipeline. One function for all of them, so that per_mb_bound measures the pipeline on ordinary text once a process
    (each test's own closure measured it again: 4 runs over 64 KiB, ~2 CPU s, per test)."""
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.knowledge.index import load_index

    return diagnose_lines(text.splitlines(keepends=True), load_index())


def assert_cheap(apply: Callable[[str], object], text: str) -> None:
    """``apply`` on ``text`` costs no more CPU a MB than on ordinary text (or PER_MB_FLOOR): the least of REPEAT runs,
    or of the runs until one is under the bound (least_cpu_seconds)."""
    bound = per_mb_bound(apply)
    mb = len(text) / 1e6
    took = least_cpu_seconds(lambda: apply(text), enough=bound * mb) / mb
    assert took < bound, f"{took:.2f} CPU s/MB, ordinary text {bound:.2f}"


def assert_linear_on(apply: Callable[[str], object], small: str, large: str, ratio: float = 6.0) -> None:
    """``apply`` on ``small`` and on ``large`` (about 4 times as long): no dearer a MB than ordinary text (see
    per_mb_bound), and the larger not more than ``ratio`` times the smaller (linear, with room for a loaded machine).

    The least of REPEAT runs of each size is compared, as before, but the larger is run again only while no run of it
    has met both bounds: the small text REPEAT times (its least sets the ratio's bound), with the first run of the
    large one between its first two (measured one after the other, a contended stretch, the other xdist worker
    starting a heavy test, fell on the larger only and read as a slope: CI, turn 46, 0.058 s and 0.397 s for a text
    that takes 0.056 s and 0.226 s on an idle machine); then the large one up to REPEAT runs in all. Whether it passes
    is what REPEAT rounds of both would give on the same runs (the least of the large runs is under a bound as soon as
    one run is); a text that passes costs 3 small runs and 1 large one instead of 3 of each (about half the time)."""
    apply(small[:256])
    bound = per_mb_bound(apply)

    def cpu(text: str) -> float:
        start = time.process_time()
        apply(text)
        return time.process_time() - start

    small_runs = [cpu(small)]
    large_runs = [cpu(large)]
    small_runs += [cpu(small) for _ in range(REPEAT - 1)]
    least_small = min(small_runs)
    limit = min(ratio * least_small + 0.05, bound * len(large) / 1e6)
    while min(large_runs) >= limit and len(large_runs) < REPEAT:
        large_runs.append(cpu(large))
    took = [least_small, min(large_runs)]
    for text, seconds in zip((small, large), took):
        assert seconds / (len(text) / 1e6) < bound, (len(text), took, bound)
    assert took[1] < ratio * took[0] + 0.05, took


def assert_linear(apply: Callable[[str], object], fragment: str, sizes: tuple[int, int] = (64 * 1024, 256 * 1024),
                  ratio: float = 6.0) -> None:
    """``apply`` on ``fragment`` repeated to each of ``sizes`` characters (assert_linear_on). The rules the fragment
    wakes are compiled once outside the timing."""
    apply(fragment * 4)
    small, large = (fragment * (size // len(fragment)) for size in sizes)
    assert_linear_on(apply, small, large, ratio)

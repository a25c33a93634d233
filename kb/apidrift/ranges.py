"""Sets of version indices written compactly: "0-16,20,22-40"."""

from __future__ import annotations


def encode(indices: list[int] | set[int]) -> str:
    out: list[str] = []
    run: list[int] = []
    for i in sorted(set(indices)):
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
        run = [i]
    if run:
        out.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ",".join(out)


def decode(text: str) -> set[int]:
    found: set[int] = set()
    for part in text.split(","):
        if not part:
            continue
        first, _, last = part.partition("-")
        found.update(range(int(first), int(last or first) + 1))
    return found

"""Facts about the machine and the run read from the log as it streams past (GPU, memory, ranks, batch).

They fill fix templates (``{gpu_memory_gib}``) and count as evidence for signatures with an
``environment`` table.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from kb.diagnose.errors import ParsedError
from kb.diagnose.stream import trigger_lines

_CAPACITY = re.compile(r"(?:total capacity of ([\d.]+) GiB|([\d.]+) GiB total capacity)")
_GPU_NAME = re.compile(
    r"\b(Tesla T4|T4|Tesla [PVK]\d+|[PV]100|A100|H100|H200|A10G?|L4|L40S?|A6000|A40"
    r"|(?:GeForce )?(?:RTX|GTX) ?\d{3,4}(?: Ti)?)\b"
)
_VISIBLE = re.compile(r"CUDA_VISIBLE_DEVICES=[\"']?([\d,]+)")
_NPROC = re.compile(r"--nproc[_-]per[_-]node[= ](\d+)|num_processes[:=] ?(\d+)")
_PER_DEVICE_BATCH = re.compile(r"per_device_train_batch_size[\"']?\s*[=:]\s*(\d+)|--per_device_train_batch_size[= ](\d+)")
_ENV_TOKENS = ("GiB total capacity", "total capacity of", "Tesla", "GeForce", "NVIDIA", "CUDA_VISIBLE_DEVICES",
               "nproc", "num_processes", "per_device_train_batch_size", "Root Cause (first observed failure)",
               "(local_rank:")
# torchrun's ChildFailedError summary names the rank that failed first:
#   Root Cause (first observed failure):  ...  rank      : 1 (local_rank: 1)
_ROOT_CAUSE_RANK = re.compile(r"^\s*rank\s*:\s*(\d+) \(local_rank:")


class EnvironmentScanner:
    """Collect environment facts (GPU, memory, ranks, batch size) from lines as they stream past."""

    def __init__(self, cards: list[dict] | None = None) -> None:
        if cards is None:  # built without the knowledge's tables (tests, tools): read the file
            from kb.knowledge.tables import read_table

            cards = read_table("gpus")["card"]
        self.cards = cards  # tables/gpus.toml: the card a capacity means
        self.facts: dict[str, str] = {}
        self.expect_root_rank = False

    def scan(self, chunks: Iterable[tuple[str, list[str]]]) -> Iterator[tuple[str, list[str]]]:
        """Pass (text, lines) chunks through, reading facts from the few lines that can hold one."""
        for text, lines in chunks:
            for i in trigger_lines(text, _ENV_TOKENS):
                self._look(lines[i][:2000])
            yield text, lines

    def _look(self, line: str) -> None:
        if "Root Cause (first observed failure)" in line:
            self.expect_root_rank = True
            return
        if "(local_rank:" in line:
            r = _ROOT_CAUSE_RANK.match(line)
            if r and self.expect_root_rank:
                self.facts["first_failed_rank"] = r.group(1)
                self.expect_root_rank = False
            return
        if "GiB" in line and "gpu_memory_gib" not in self.facts:
            c = _CAPACITY.search(line)
            if c:
                total = float(c.group(1) or c.group(2))
                self.facts["gpu_memory_gib"] = f"{total:g}"
                for card in self.cards:
                    if card["min_gib"] <= total <= card["max_gib"]:
                        self.facts.setdefault("gpu", card["name"])
        if "gpu" not in self.facts or "card" in self.facts["gpu"]:
            g = _GPU_NAME.search(line)
            if g:
                self.facts["gpu"] = g.group(1)
        if "CUDA_VISIBLE_DEVICES" in line:
            v = _VISIBLE.search(line)
            if v:
                self.facts["visible_gpus"] = str(len([x for x in v.group(1).split(",") if x]))
        if "nproc" in line or "num_processes" in line:
            n = _NPROC.search(line)
            if n:
                self.facts["world_size"] = n.group(1) or n.group(2)
        if "per_device_train_batch_size" in line:
            b = _PER_DEVICE_BATCH.search(line)
            if b:
                self.facts["per_device_batch"] = b.group(1) or b.group(2)

    def result(self, errors: list[ParsedError], top_rank: int = -1) -> dict[str, str]:
        """The facts; ``ranks_seen`` from ``top_rank`` (the highest rank of every error, folded repeats
        included: see RankCounter) or, without it, from ``errors``."""
        facts = dict(self.facts)
        ranks = [int(e.rank) for e in errors if e.rank is not None and e.rank.isdigit() and len(e.rank) < 10]
        top = max([top_rank, *ranks])
        if top >= 0 and "world_size" not in facts:
            facts["ranks_seen"] = str(top + 1)
        return facts

"""What one run of a case program did: the runner makes it, evidence records it (without the runner)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# A rank's status while its program runs: the harness writes it before the program starts and replaces
# it when the program ends. A record still saying so afterwards is a process that died before reporting.
RUNNING = "running"
# The outcome of a run whose harness process died (a signal, an exit of its own) before it reported:
# the program ran, but what it did cannot be judged, so it is neither reproduced nor not.
WORKER_DIED = "worker-died"


@dataclass
class RunResult:
    case_id: str
    slug: str
    reproduction: str
    program: str  # "failing" or "fixed"
    profile: str
    outcome: str  # reproduced | not-reproduced | fixed | fix-failed | worker-died | timeout | error
    passed: bool
    explanation: str
    exit_code: int | None
    duration_s: float
    date: str
    command: list[str]
    output: str
    ranks: list[dict[str, Any]] = field(default_factory=list)
    measures: dict[str, float] = field(default_factory=dict)

    def environment(self) -> dict[str, Any]:
        return self.ranks[0].get("environment", {}) if self.ranks else {}

    def exception(self) -> dict[str, Any] | None:
        for rank in self.ranks:
            if rank.get("exception"):
                return rank["exception"]
        return None

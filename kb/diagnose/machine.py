"""What `kb diagnose --env` knows of the machine, handed to diagnose as input before ranking.

kb/env builds it from its report (:func:`kb.env.risks.machine_evidence`); diagnose never imports
kb/env. A case whose pre-flight checks this machine fits gains evidence lines and
``MACHINE_WEIGHT`` before the answers are ranked; one it does not fit gains a line against it.
The installed versions feed the API-drift stage where the log named none.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from kb.diagnose.match import Match

# What a machine that fits a diagnosis adds to its score (kept <= 1.0): the same as
# kb.diagnose.match's WEIGHT_ENVIRONMENT for a matching fact read from the log.
MACHINE_WEIGHT = 0.05
MACHINE_NOTE = "kb env facts were read on the machine running kb diagnose: run it where the training ran"


class MachineEvidence:
    """``report``: `kb env`'s report (the document shows it under ``env``); ``versions``: installed library
    versions; ``checks``: case slug -> (supports, against) messages; ``risks``: (slug, message, more) of
    every risk found, noted when no answer is its case."""

    __slots__ = ("report", "versions", "checks", "risks")

    def __init__(self, report: dict[str, Any], versions: dict[str, str],
                 checks: dict[str, tuple[list[str], list[str]]], risks: list[tuple[str, str, str]]) -> None:
        self.report, self.versions, self.checks, self.risks = report, versions, checks, risks

    def on(self, slug: str) -> dict[str, list[str]]:
        supports, against = self.checks.get(slug, ([], []))
        return {"supports": list(supports), "against": list(against)}

    def weigh(self, matches: list[Match]) -> None:
        """Add this machine's evidence to case matches, before they are ranked."""
        for m in matches:
            if m.entry.kind != "case":
                continue
            found = self.on(m.entry.slug)
            m.evidence.extend(f"this machine (kb env) fits: {s}" for s in found["supports"])
            m.evidence.extend(f"this machine (kb env) does not fit: {a}" for a in found["against"])
            if found["supports"]:
                m.score = round(min(1.0, m.score + MACHINE_WEIGHT), 3)

    def notes(self, answered: set[str]) -> list[str]:
        """A note per risk whose case is not among the answers, and where the facts were read."""
        return [f"this machine (kb env) has a risk [{slug}]: {message} ({more})"
                for slug, message, more in self.risks if slug not in answered] + [MACHINE_NOTE]

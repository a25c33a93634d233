"""From matches to answers: a case when evidence singles it out, else its family with the triage.

A case's signature matching the message is not enough to name the case: the same message has other
causes in the same family (any CUDA OOM, any `cpu and cuda:0`). A case answers on its own only with
a *discriminator* (kb/diagnose/match.py: a frame, a nearby line, an environment fact other than the
card, or a signature marked ``specific``). Without one, the answer is the family: its triage, the
cases that matched ranked first among its candidates, and the generic fix. A case with a
discriminator always ranks above its own family's answer.

Answers are ordered by score, then by how much evidence matched (``Match.strength``: frames, hints,
``compare`` rules, environment facts such as the card, the model's size and its quantization), then a
case before a family, then the input's order.
"""

from __future__ import annotations

from kb.diagnose.match import Match, rank_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kb.knowledge.model import Case, Family, Knowledge


class Candidate:
    """A case of a family answer: matched (its signature matched the message, without a discriminator) or not."""

    __slots__ = ("case", "match")

    def __init__(self, case: Case, match: Match | None) -> None:
        self.case, self.match = case, match


class Answer:
    """One entry of the diagnosis: a case, or a family with its candidate cases."""

    __slots__ = ("match", "candidates", "drift", "numbers", "plan", "advice_for", "keywords")

    def __init__(self, match: Match, candidates: list[Candidate] | None = None) -> None:
        self.match = match
        self.candidates = candidates if candidates is not None else []
        self.drift: dict | None = None  # the API-drift stage's facts (kb/diagnose/drift.py)
        self.numbers: list[str] = []  # computed from the evidence (kb/diagnose/numbers.py)
        self.plan: dict | None = None  # the memory planner's answer for an OOM whose log names the model
        self.advice_for: str | None = None  # which library versions the fix is written for (kb/diagnose/advice.py)
        self.keywords: dict[str, str] = {}  # {kw:...} placeholder of the fix -> the keyword for the user's versions

    @property
    def kind(self) -> str:
        return self.match.entry.kind

    @property
    def family(self) -> str:
        return self.match.entry.family

    def __repr__(self) -> str:
        return f"Answer({self.kind} {self.match.entry.key}, score={self.match.score})"


# A word of a message that may name a default a release changed (torch.load's "Weights only load failed ...
# weights_only"): the API-drift stage reads such an answer whatever its family (kb/diagnose/drift.py decides).
DEFAULT_CHANGE_WORD = "eights"


def drift_may_read(m: Match, api_history_families: frozenset[str] | set[str]) -> bool:
    """Whether the API-drift stage (kb/diagnose/drift.py attach_drift) reads the answer of ``m``: its family asks for
    the API history, or its message may name a changed default. diagnosis.drift_stage_needed asks it before the
    stage's module is imported; attach_drift asks it first for each answer."""
    return m.entry.family in api_history_families or DEFAULT_CHANGE_WORD in m.error.message


def _via_case(family: Family, m: Match) -> Match:
    """A family answer for a case match when none of the family's own signatures matched."""
    evidence = [*m.evidence, f"recognised through the signature '{m.signature.name}' of its case {m.entry.key}"]
    return Match(family, m.signature, m.error, m.score, m.captures, evidence, m.environment, [], m.strength)


def rank_answers(case_matches: list[Match], family_matches: list[Match], knowledge: Knowledge,
                 only_noise: bool = False) -> list[Answer]:
    """Cases with a discriminator, and the families recognised, best first. ``only_noise``: the input
    holds follow-on errors alone (a watchdog timeout), whose family is then the answer."""
    decisive: list[Match] = []
    tentative: dict[str, list[Match]] = {}
    for m in case_matches:
        family = knowledge.family(m.entry.family)
        if m.discriminators or family is None:
            decisive.append(m)
        else:
            tentative.setdefault(family.name, []).append(m)
    # A family recognised in follow-on noise (a watchdog timeout after another rank died) is not an answer
    # when the log holds the error that started it; when it holds nothing else, it is (with its triage:
    # which rank failed or stalled first), and the text says the cause is not in the input.
    families: dict[str, Match] = {m.entry.key: m for m in family_matches if only_noise or not m.error.noise}
    for name, matches in tentative.items():
        if name not in families:
            families[name] = _via_case(knowledge.family(name), min(matches, key=rank_key))  # type: ignore[arg-type]

    answers = [Answer(m) for m in decisive]
    for name, fm in families.items():
        family = knowledge.family(name)
        matched = sorted(tentative.get(name, []), key=lambda x: (*rank_key(x), x.entry.key))
        seen = {m.entry.key for m in matched}
        rest = [Candidate(c, None) for c in knowledge.family_cases(family) if c.key not in seen]  # type: ignore[arg-type]
        answers.append(Answer(fm, [Candidate(m.entry, m) for m in matched] + rest))  # type: ignore[arg-type]

    for a in answers:  # a family never ranks above a case of its own that evidence singled out
        if a.kind != "family":
            continue
        cases = [m for m in decisive if m.entry.family == a.family and rank_key(m) > rank_key(a.match)]
        if cases:  # its score and strength come down to its best case's: equal keys put the case first
            best = min(cases, key=rank_key)
            m = a.match
            a.match = Match(m.entry, m.signature, m.error, best.score, m.captures,
                            [*m.evidence, f"ranked below its case {best.entry.key}, which evidence singles out"],
                            m.environment, m.discriminators, min(m.strength, best.strength))
    return sorted(answers, key=lambda a: (*rank_key(a.match), a.kind == "family", a.match.error.line_no,
                                          a.match.entry.key))

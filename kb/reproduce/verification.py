"""A case's verification status, derived only from its recorded runs (``evidence/``).

The docs pages and ``kb show`` read the status from here, so a case is never called
"verified" by hand: a reproduction counts as verified on a profile when the latest
recorded failing run reproduced the error *and* the latest recorded fixed run passed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kb.knowledge.model import Case
from kb.knowledge.evidence import observed
from kb.reproduce.profiles import PROFILES

# States, from the strongest claim to the weakest.
VERIFIED_GPU = "verified-gpu"
CPU_ONLY = "cpu-only"
UNVERIFIED = "unverified"
NO_REPRODUCTION = "no-reproduction"


@dataclass(frozen=True)
class ProfileCheck:
    """The latest failing and fixed runs of one reproduction on one profile."""

    reproduction: str
    profile: str
    failing: dict[str, Any] | None
    fixed: dict[str, Any] | None

    @property
    def verified(self) -> bool:
        return bool(self.failing and self.failing.get("passed") and self.fixed and self.fixed.get("passed"))

    @property
    def on_gpu(self) -> bool:
        """True when the runs used a GPU (by the profile's definition, else by what was recorded)."""
        profile = PROFILES.get(self.profile)
        if profile is not None:
            return profile.gpus > 0
        return bool((self.failing or {}).get("gpu"))

    @property
    def emulated(self) -> str | None:
        """What the profile emulates (a memory cap standing in for a small GPU), or None."""
        recorded = (self.failing or {}).get("emulated") or (self.fixed or {}).get("emulated")
        if recorded:
            return str(recorded)
        profile = PROFILES.get(self.profile)
        return profile.emulates if profile and profile.emulates else None

    def problem(self) -> str | None:
        """Why this pair is not verified, in words; None when it is."""
        if self.verified:
            return None
        parts = []
        for program, run in (("failing", self.failing), ("fixed", self.fixed)):
            if run is None:
                parts.append(f"no recorded {program} run")
            elif not run.get("passed"):
                parts.append(f"latest {program} run: {run.get('outcome')} ({run.get('date', '?')[:10]})")
        return "; ".join(parts)


@dataclass(frozen=True)
class Verification:
    state: str  # one of the module constants
    title: str  # a few words: "Verified on GPU", "Fixed upstream; verified on CPU only"
    headline: str  # one line with the profiles, hardware, versions and dates
    checks: tuple[ProfileCheck, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def verified_profiles(self) -> tuple[str, ...]:
        return tuple(sorted({c.profile for c in self.checks if c.verified}))


def _runs_by_pair(runs: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, dict[str, Any]]]:
    """``{(reproduction, profile): {program: newest run}}``; ``runs`` come newest first."""
    pairs: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for run in runs:
        key = (str(run.get("reproduction")), str(run.get("profile")))
        pairs.setdefault(key, {}).setdefault(str(run.get("program")), run)
    return pairs


def profile_checks(case: Case, runs: list[dict[str, Any]] | None = None) -> tuple[ProfileCheck, ...]:
    """One check per (reproduction, profile) the case declares or has evidence for."""
    runs = observed(case) if runs is None else runs
    pairs = _runs_by_pair(runs)
    keys: list[tuple[str, str]] = [(r.name, p) for r in case.reproductions for p in r.hardware]
    keys += [k for k in pairs if k not in keys]
    return tuple(
        ProfileCheck(rep, profile, pairs.get((rep, profile), {}).get("failing"), pairs.get((rep, profile), {}).get("fixed"))
        for rep, profile in keys
    )


def versions_text(run: dict[str, Any], libraries: tuple[str, ...] = ()) -> str:
    """``torch 2.11.0+cu130, numpy 2.5.2, CUDA 13.0``: torch, the case's libraries, CUDA."""
    versions = run.get("versions") or {}
    names = ["torch", *[lib for lib in libraries if lib != "torch"]]
    parts = [f"{name} {versions[name]}" for name in names if name in versions]
    if versions.get("cuda"):
        parts.append(f"CUDA {versions['cuda']}")
    return ", ".join(parts)


def describe_check(check: ProfileCheck, libraries: tuple[str, ...] = ()) -> str:
    """``profile `gpu` on 2x NVIDIA H200 (torch 2.11.0, CUDA 13.0), 2026-11-21``."""
    run = check.failing or check.fixed or {}
    where = run.get("gpu") or run.get("cpu") or "unknown hardware"
    text = f"profile `{check.profile}` on {where}"
    versions = versions_text(run, libraries)
    if versions:
        text += f" ({versions})"
    dates = sorted(r["date"][:10] for r in (check.failing, check.fixed) if r and r.get("date"))
    if dates:
        text += f", {dates[-1]}"
    if check.emulated:
        text += f"; emulated: {check.emulated}"
    return text


def verification(case: Case, runs: list[dict[str, Any]] | None = None) -> Verification:
    """Derive the case's status from its evidence and its declared ``status``."""
    checks = profile_checks(case, runs)
    verified = [c for c in checks if c.verified]
    gpu = [c for c in verified if c.on_gpu]
    notes = [f"{c.reproduction} on `{c.profile}`: {c.problem()}" for c in checks if not c.verified and (c.failing or c.fixed)]

    if gpu:
        state, title = VERIFIED_GPU, "Verified on GPU"
        headline = "Verified on GPU: " + "; ".join(describe_check(c, case.libraries) for c in _one_per_profile(gpu))
        cpu = [c for c in verified if not c.on_gpu]
        if cpu:
            headline += "; also on CPU: " + "; ".join(describe_check(c, case.libraries) for c in _one_per_profile(cpu))
    elif verified:
        state, title = CPU_ONLY, "Verified on CPU only"
        headline = "Verified on CPU only: " + "; ".join(describe_check(c, case.libraries) for c in _one_per_profile(verified))
    elif not case.reproductions:
        state, title = NO_REPRODUCTION, "No reproduction"
        headline = "No reproduction: nothing to verify (the prose says what was tried)"
    else:
        state, title = UNVERIFIED, "Unverified"
        headline = "Unverified: " + ("no recorded run passed" if notes else "no recorded run yet")

    prefix = {
        "fixed-upstream": f"Fixed upstream since {case.versions.get('fixed_upstream') or 'an unrecorded version'}",
        "retired": "Retired (kept for reference)",
        "unreproduced": "Unreproduced: no reproduction could be built",
    }.get(case.status)
    if prefix:
        title = f"{prefix.split(':')[0]}; {title[0].lower()}{title[1:]}"
        headline = f"{prefix}. {headline}"
    return Verification(state, title, headline, checks, tuple(notes))


def _one_per_profile(checks: list[ProfileCheck]) -> list[ProfileCheck]:
    """The newest verified check per profile (variants on the same profile say the same thing)."""
    best: dict[str, ProfileCheck] = {}
    for check in checks:
        date = (check.failing or {}).get("date", "")
        if check.profile not in best or date > (best[check.profile].failing or {}).get("date", ""):
            best[check.profile] = check
    return [best[p] for p in sorted(best)]

"""Remove secrets and personal paths from text before kb echoes it."""

from __future__ import annotations

import re

_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bhf_[A-Za-z0-9]{16,}"), "hf_***"),
    (re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}"), r"\1-***"),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"), "gh*_***"),
    (re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"), "AKIA***"),
    (
        re.compile(
            r"(?i)\b([A-Z0-9_]*(?:TOKEN|API_?KEY|SECRET|PASSWORD|PASSWD|AUTH)[A-Z0-9_]*)(\s*[=:]\s*)(['\"]?)[^\s'\"]{4,}\3"
        ),
        r"\1\2\3***\3",
    ),
    (re.compile(r"\b[0-9a-f]{40}\b"), "***"),  # wandb API keys are 40 hex characters
    (re.compile(r"(/home/|/Users/)[^/\s\"']+"), r"\1~"),
    (re.compile(r"(?i)([A-Z]:\\+Users\\+)[^\\\s\"']+"), r"\1~"),
)


def redact(text: str) -> str:
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text

"""Remove secrets and personal paths from text before kb echoes it, and cut text without leaving
a piece of a secret behind.

Redaction runs on whole text first and only then is the text cut for display (a cut first could
leave 39 of a key's 40 characters, which no rule recognises any more). Where text must be cut before
it can be redacted (the parser keeps at most so many characters of a frame's code or a nearby line),
``clip`` cuts at a space and drops the word the limit fell in, so no piece of a token survives.

Every rule runs in time linear in the text: each starts at a fixed word (``hf_``, ``://``, ``Bearer``)
or at the start of a run of the characters it takes (a lookbehind), never anywhere inside a long run.
What is redacted is listed in docs/diagnose.md ("Secrets and paths").
"""

from __future__ import annotations

import re

_KEY_CHARS = r"A-Za-z0-9/+"  # base64, as AWS secret access keys use

_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bhf_[A-Za-z0-9]{16,}"), "hf_***"),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"), "github_pat_***"),
    (re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}"), r"\1-***"),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"), "gh*_***"),
    (re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"), "AKIA***"),
    # The credential after an HTTP auth scheme ("Authorization: Bearer eyJ...", "Basic dXNlcjpwYXNz").
    # (12 characters or more with a digit or a symbol: "basic training loop" is prose, not a credential)
    (re.compile(r"(?i)\b(Bearer|Basic)(\s+)(?=[A-Za-z0-9._~+/=-]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{12,}"), r"\1\2***"),
    # NAME=value in environment dumps; a value that is an auth scheme is left to the rule above. (The name's
    # parts are bounded: "TOKENTOKEN…" unbounded retried the rest of the word from each TOKEN in it.)
    (
        re.compile(
            r"(?i)\b([A-Z0-9_]{0,64}?(?:TOKEN|API_?KEY|SECRET|PASSWORD|PASSWD|AUTH)[A-Z0-9_]{0,64})(\s*[=:]\s*)(['\"]?)"
            r"(?!(?:Bearer|Basic)\s|\*\*\*)[^\s'\"]{4,}\3"
        ),
        r"\1\2\3***\3",
    ),
    # A password in a URL: scheme://user:password@host
    (re.compile(r"://([^\s/:@]{1,256}):[^\s/@]{1,256}@"), r"://\1:***@"),
    (re.compile(r"\b[0-9a-f]{40}\b"), "***"),  # wandb API keys (and other 40-hex-digit keys)
    # AWS secret access keys outside NAME=value: 40 base64 characters with upper and lower case and a digit,
    # standing alone (a path's 40 letters and slashes lack one of the three or start with a slash).
    (
        re.compile(
            rf"(?<![{_KEY_CHARS}=])(?=[{_KEY_CHARS}]*[A-Z])(?=[{_KEY_CHARS}]*[a-z])(?=[{_KEY_CHARS}]*[0-9])"
            rf"[A-Za-z0-9+][{_KEY_CHARS}]{{39}}(?![{_KEY_CHARS}=])"
        ),
        "***",
    ),
    # E-mail addresses (the local part starts where its run of characters starts: linear).
    (re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+"),
     "***@***"),
    (re.compile(r"(/home/|/Users/)[^/\s\"']+"), r"\1~"),
    (re.compile(r"(?i)([A-Z]:\\+Users\\+)[^\\\s\"']+"), r"\1~"),
)


def redact(text: str) -> str:
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters (plus "…") at a space: the word the limit falls in is
    dropped whole, so a cut never leaves part of a token that redaction would no longer recognise."""
    if len(text) <= limit:
        return text
    if limit <= 0:
        return "…"
    cut = text[:limit]
    if not text[limit].isspace():
        space = max(cut.rfind(" "), cut.rfind("\t"))
        cut = cut[:space] if space != -1 else ""
    return cut.rstrip() + "…"

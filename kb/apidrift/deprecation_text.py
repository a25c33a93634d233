"""What a deprecation message says: the old name it quotes and the new one it sends the caller to.

Split from kb/apidrift/deprecations.py (which reads a release's source: ast, the wheel's files) so that `kb diagnose`,
whose API-drift answers read a message the history kept (kb/apidrift/answer.py), imports only this and ``re``
(turn 47: deprecations.py's imports, ast, dataclasses, zipfile, datetime, shutil, ..., were ~10-20 ms of such a run).
"""

from __future__ import annotations

import re

_QUOTED = re.compile(r"[`'\"]([A-Za-z_][\w.]*)(?:\(\))?(?:=[^`'\"]{0,40})?[`'\"]")
_NEW = re.compile(
    r"(?:use|using|in favou?r of|renamed to|moved to|replaced by|replaced with|instead pass|pass|set)\s+(?:the\s+)?(?:argument\s+|parameter\s+)?"
    r"[`'\"]?([A-Za-z_][\w.]*)[`'\"]?", re.IGNORECASE)
_CAMEL = re.compile(r"[A-Z][a-z]+[A-Z0-9]\w*$")  # MatMul8bitLt, MissConfig: a class named without quotes
# "Please pass an `accelerate.DataLoaderConfiguration` instead" (accelerate 0.28-0.34's Accelerator): an article
# before the quoted name, which _NEW would read as the name; only with "instead" right after the quote
_NEW_ARTICLE = re.compile(r"\b(?:use|pass)\s+an?\s+[`'\"]([A-Za-z_][\w.]*)(?:\(\))?[`'\"]\s+instead\b", re.IGNORECASE)
# "Use `--accelerator_config {'dispatch_batches':VALUE}` instead" (transformers' TrainingArguments): the option
# as a command-line flag, quoted with its value; the keyword is the flag's name
_NEW_FLAG = re.compile(r"\buse\s+`--([A-Za-z_]\w*)[ =][^`]{0,80}`?\s*instead\b", re.IGNORECASE)
_STOP = {"the", "a", "an", "it", "this", "that", "instead", "of", "in", "to", "and", "or", "you", "transformers",
         "version", "is", "be", "please", "with", "was", "for", "your", "them", "which"}


def parse_message(message: str, old: str | None = None) -> tuple[str | None, str | None]:
    """(old, new) names told by a deprecation text, when it quotes them (`old` given: only the new one)."""
    quoted = [q for q in _QUOTED.findall(message) if q.lower() not in _STOP]
    if old is None:
        old = quoted[0] if quoted else None
    new = None
    for m in _NEW.finditer(message):
        candidate = m.group(1).rstrip(".")
        if candidate and candidate != old and candidate.lower() not in _STOP and (
                candidate in quoted or "_" in candidate or "." in candidate
                or _CAMEL.match(candidate) and message[m.end():].lstrip(" `'\"").lower().startswith("instead")):
            new = candidate
            break
    if new is None:
        m = _NEW_ARTICLE.search(message) or _NEW_FLAG.search(message)
        if m and m.group(1) != old and m.group(1).lower() not in _STOP:
            new = m.group(1)
    return old, new

"""What a tidy check reports: a file, the rule it breaks, and what is wrong, precisely."""

from __future__ import annotations

import os
from dataclasses import dataclass

# Every rule `kb check` applies, in the order it reports them; docs/authoring.md ("kb check") says the same.
RULES = {
    "schema": "a case or family file the loader rejects (kb/knowledge/load.py), two cases sharing an id or "
              "slug, a case naming a family without a file, a [fix] numbers line that does not parse or a "
              "{kw:...} placeholder the API history does not know",
    "registry": "the id, slug and folder name agree; the prose sections come in order; the metadata is "
                "complete; every reproduction's programs differ and its failing run asserts something",
    "placeholder": "a TODO or another `kb new` placeholder (OWNER/REPO) left in case.md or a program",
    "runs": "a reproduction without a failing and a fixed run recorded on one of its hardware profiles; an "
            "evidence file not as the runner writes it",
    "versions": "a reproduction's requires_versions that does not parse, or that a run which passed (evidence/*.json, "
                "evidence/matrix.toml) lies outside; a matrix entry not as `kb verify` writes it",
    "snippet": "fix code (a [fix] snippet, a ```python block of ## Fix, a fix template's code lines) that does not "
               "compile, uses a name it neither defines nor imports (beyond builtins and the user objects of "
               "kb/tidy/snippets.py), imports kb's helpers, or is a keyword-argument fragment; a [fix] snippet using "
               "a library word its case's fixed programs never use",
    "template": "a fix template placeholder that a signature captures but that has no fallback, or a run of "
                "placeholders with empty fallbacks that prints an empty quote",
    "signature": "a signature that no recorded output, example or dev-set output exercises, unless "
                 "examples/manifest.toml says why ([[unexercised]]); such an allowance no longer needed",
    "recorded": "a recorded failing output not answered by its own case (among the cases) or its family "
                "(among everything)",
    "example": "an example (examples/*.txt) whose top `kb diagnose` answer is not what examples/manifest.toml "
               "says it is",
    "family": "a family whose triage names no existing case, or whose generated page lacks its triage or prose",
    "unread": "a signature with no exception type that has a form a line of its own never turns into an error: no "
              "literal of KNOWN_MESSAGE_MIN characters marks the line for the parser (list the exception type whose "
              "message carries the form, or restate it: process evidence goes to tables/priors.toml [[process]])",
}


@dataclass(frozen=True)
class Problem:
    """One thing wrong: ``path`` (the file to edit), ``rule`` (a key of RULES), ``message``."""

    path: str
    rule: str
    message: str

    def shown_path(self, start: str | None = None) -> str:
        """The path relative to ``start`` (default: the working directory) when it lies below it, else absolute."""
        path = os.path.abspath(self.path)
        start = os.path.abspath(start or os.getcwd())
        if path == start or path.startswith(start.rstrip(os.sep) + os.sep):
            return os.path.relpath(path, start)
        return path

    def line(self, start: str | None = None) -> str:
        return f"{self.shown_path(start)}: {self.message}"

    def document(self, start: str | None = None) -> dict[str, str]:
        return {"path": self.shown_path(start), "rule": self.rule, "message": self.message}

"""`kb check`: the tidy checks of the knowledge (rustc's ``tidy`` is the model).

:func:`check` reads the cases, the families, the examples and (in a checkout) the dev set, and returns
every problem it finds: a :class:`Problem` names the file, the rule (:data:`RULES`) and what is wrong.
It keeps going after a file that does not load, so one run lists everything to fix. The rules:

- ``schema``: the loader's KnowledgeError for any case or family; shared ids or slugs; a family
  without a file (kb/tidy/load.py); a ``[fix] numbers`` line that does not parse, a ``{kw:...}``
  placeholder the API history does not know (kb/tidy/fixes.py);
- ``registry``: id, slug and folder agree, sections in order, metadata complete, reproductions
  consistent (kb/tidy/cases.py);
- ``placeholder``: a ``kb new`` placeholder (``TODO``, ``OWNER/REPO``) left in case.md or a program;
- ``runs``: every reproduction has a failing and a fixed run recorded on one of its profiles;
  evidence files are as the runner writes them;
- ``versions``: a reproduction's ``requires_versions`` parses and holds every run that passed; the
  matrix entries are as `kb verify` writes them (kb/tidy/ranges.py);
- ``snippet``: every piece of fix code runs as pasted into a user's script, and a [fix] snippet uses only
  library words its fixed programs use (kb/tidy/snippets.py);
- ``template``: a fix template never prints its markup (kb/tidy/templates.py);
- ``signature``: every signature is exercised by a recorded output, an example or a dev-set output,
  or its ``unexercised`` field says why not, and no longer says so once one does (kb/tidy/outputs.py);
- ``recorded``: a recorded failing output is answered by its case (among the cases) and within its family;
- ``example``: each examples/*.txt is answered as examples/manifest.toml says;
- ``family``: triage entries name existing cases; the site's page holds the triage and the prose
  (kb/tidy/families.py);
- ``unread``: a signature with no exception type has no form that the parser never reads on a line of its own (its
  literal too short to mark the line: kb/tidy/unread.py).

This package may import kb.knowledge, kb.diagnose, kb.reproduce and kb.site, never kb.cli.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from kb.knowledge.examples import devset_manifest
from kb.knowledge.paths import KnowledgeNotFound, cases_root, families_root, folder
from kb.tidy.problem import RULES, Problem

__all__ = ["RULES", "Problem", "Report", "Roots", "check"]


@dataclass(frozen=True)
class Roots:
    """The folders checked. ``examples`` and ``dev_manifest`` may be None (not checked, not read).
    ``signatures``: whether the ``signature`` rule is applied (see :meth:`current`)."""

    cases: Path
    families: Path
    examples: Path | None = None
    dev_manifest: Path | None = None
    signatures: bool = True

    @classmethod
    def current(cls) -> Roots:
        """What every kb command reads (kb/knowledge/paths.py), plus the checkout's dev set where present.

        Without the dev set (an installed wheel carries none) the ``signature`` rule is not applied:
        the signatures' ``unexercised`` allowances are written against the recorded outputs, the examples
        *and* the dev set, so a signature only the dev set exercises would be reported."""
        try:
            examples: Path | None = Path(folder("examples"))
        except KnowledgeNotFound:  # $KB_CASES_DIR and $KB_FAMILIES_DIR without a knowledge root
            examples = None
        dev = devset_manifest()
        present = dev.is_file()
        return cls(Path(cases_root()), Path(families_root()), examples, dev if present else None, signatures=present)


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)
    cases: int = 0
    families: int = 0
    examples: int = 0
    inputs: int = 0  # outputs kb diagnose read: recorded logs, examples, dev-set files
    signatures: bool = True  # whether the signature rule was applied

    def of(self, rule: str) -> list[Problem]:
        return [p for p in self.problems if p.rule == rule]


class Unreadable(OSError):
    """The knowledge cannot be checked at all (no cases folder): `kb check` exits 2."""


def check(roots: Roots | None = None) -> Report:
    """Every problem in the knowledge under ``roots`` (default: :meth:`Roots.current`)."""
    from kb.tidy.cases import case_problems, placeholder_problems
    from kb.tidy.examples import read_manifest
    from kb.tidy.families import family_problems
    from kb.tidy.fixes import fix_problems
    from kb.tidy.load import load
    from kb.tidy.outputs import output_problems
    from kb.tidy.unread import unread_problems

    roots = roots or Roots.current()
    for what, path in (("cases", roots.cases), ("families", roots.families)):
        if not os.path.isdir(path):
            raise Unreadable(f"no {what} folder at {path}")
    loaded = load(roots.cases, roots.families)
    problems = list(loaded.problems)
    for case_folder in loaded.folders:
        problems += placeholder_problems(case_folder)
    for case in loaded.cases:
        problems += case_problems(case) + fix_problems(case)
    for family in loaded.families:
        problems += family_problems(family, loaded.cases, loaded.unloaded) + fix_problems(family)
    knowledge = loaded.knowledge()
    for entry in (*loaded.cases, *loaded.families):
        problems += unread_problems(entry, knowledge)
    manifest = read_manifest(roots.examples) if roots.examples is not None else None
    if manifest is not None:
        problems += manifest.problems
    found, inputs = output_problems(loaded.cases, loaded.families, knowledge, roots.examples, manifest,
                                    roots.dev_manifest, loaded.unloaded, roots.signatures)
    problems += found
    order = list(RULES)
    problems.sort(key=lambda p: (p.path, order.index(p.rule)))  # stable: a file's problems in the order found
    return Report(problems, len(loaded.cases), len(loaded.families),
                  len(manifest.examples) if manifest is not None else 0, inputs, roots.signatures)

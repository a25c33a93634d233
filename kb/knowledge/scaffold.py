"""`kb new SLUG --family FAMILY`: a new case folder with every required field, ready to fill in.

The id is the next free ``KB####``; the id and slug are typed once (the folder name, case.md and
the dev-set entry all come from them). What the author still writes is marked ``TODO``; the case
loads at once, and passes the registry checks once its programs and signature are real.
"""

from __future__ import annotations

import re
from pathlib import Path

from kb.knowledge.load import SLUG_PATTERN, load_case
from kb.knowledge.model import KnowledgeError
from kb.knowledge.registry import all_families, case_folders

CASE_TEMPLATE = '''+++
id = "{id}"
slug = "{slug}"
family = "{family}"
title = "TODO: the error headline as users see it (ExceptionType: message)"
summary = "TODO: one sentence: what goes wrong and why."
status = "active"
libraries = ["torch"]
setting = "TODO: where it was seen (hardware, model, library versions, date)"
hardware = ["cpu"]

[versions]
observed = "TODO: filled in from evidence/ once `kb reproduce {id} --record` has run"

[[sources]]
title = "TODO: the incident or public report this case comes from"
url = "https://github.com/OWNER/REPO/issues/N"

[[signatures]]
name = "{slug}"
exception = ["RuntimeError"]
message = 'TODO: a regex on the exception message; (?P<name>...) groups fill the fix'

[fix]
template = """
TODO: the fix, with {{name}} placeholders filled from the captures.
"""
snippet = """
TODO: the few lines of fixed.py that are the fix, copied from it (a test checks they appear there)
"""

[[reproductions]]
name = "default"
description = "TODO: what the failing program does."
failing = "failing.py"
fixed = "fixed.py"
requires = ["torch"]
failing_expect = {{ signature = "{slug}", raised_in = {{ file = 'TODO: regex on the library file that raises' }} }}
+++

## Symptom

TODO: the error as users see it, verbatim.

## Why it happens

TODO: the mechanism, with the library code path that raises.

## Fix

TODO: the fix, and why it works.

## What did not work

TODO: attempts that did not help, and why.

## When this does not apply

TODO: the same message from other causes (they belong to the family's triage).
'''

PROGRAM_TEMPLATE = '''"""{id} {slug}: the {which} program.

{what}
Build models from configs with random weights (kb/fixtures), download nothing. The library must
raise the documented error itself: no `raise`, no mocks. Run it with `kb reproduce {id}{flag}`.
"""

raise SystemExit("TODO: write the {which} program")
'''

MANIFEST_STUB = '''
# kb new {id}: paste a real public report of this error into dev/{slug}-SOURCE.txt, then uncomment.
# [[entry]]
# file = "dev/{slug}-SOURCE.txt"
# source = "https://github.com/OWNER/REPO/issues/N"
# expect = "{slug}"
# family = "{family}"
# forms = ["traceback"]
# note = "TODO"
'''


class ScaffoldError(ValueError):
    pass


def next_id(root: Path) -> str:
    numbers = [int(m.group(1)) for p in case_folders(root) if (m := re.match(r"KB(\d{4})-", p.name))]
    return f"KB{max(numbers, default=0) + 1:04d}"


def new_case(slug: str, family: str, root: Path, manifest: Path | None = None, case_id: str | None = None) -> Path:
    """Write ``root/KB####-slug/`` and, when ``manifest`` exists, a commented dev-set entry; return the folder."""
    if not SLUG_PATTERN.match(slug):
        raise ScaffoldError(f"slug {slug!r} is not kebab-case (lowercase words joined by '-')")
    families = {f.name for f in all_families()}
    if family not in families:
        raise ScaffoldError(f"no family {family!r} (kb list --families: {', '.join(sorted(families))})")
    if any(p.name.split("-", 1)[1] == slug for p in case_folders(root)):
        raise ScaffoldError(f"a case with the slug {slug!r} exists")
    if case_id is not None and (not re.fullmatch(r"KB\d{4}", case_id) or any(p.name.startswith(case_id + "-") for p in case_folders(root))):
        raise ScaffoldError(f"id {case_id!r} is not KB#### or is taken")
    case_id = case_id or next_id(root)
    folder = root / f"{case_id}-{slug}"
    folder.mkdir(parents=True)
    values = {"id": case_id, "slug": slug, "family": family}
    (folder / "case.md").write_text(CASE_TEMPLATE.format(**values), encoding="utf-8")
    (folder / "failing.py").write_text(PROGRAM_TEMPLATE.format(
        which="failing", what="The smallest program that fails the way users see it.", flag="", **values), encoding="utf-8")
    (folder / "fixed.py").write_text(PROGRAM_TEMPLATE.format(
        which="fixed", what="The same program with the fix: keep the diff to the lines that change.", flag=" --fixed",
        **values), encoding="utf-8")
    if manifest is not None and manifest.is_file():
        with manifest.open("a", encoding="utf-8") as handle:
            handle.write(MANIFEST_STUB.format(**values))
    try:
        load_case(folder)
    except KnowledgeError as exc:  # the template and the schema disagree: a bug in kb
        raise ScaffoldError(f"the new case does not load: {exc}") from None
    return folder

"""`kb new SLUG --family FAMILY`: a new case folder with every required field, ready to fill in.

The id is the next free ``KB####`` (``KB`` and four ASCII digits; after ``KB9999`` there is none
left, and ids are never reused); the id and slug are typed once (the folder name, case.md and the
dev-set entry all come from them). What the author still writes is marked with one of
:data:`PLACEHOLDERS` (``TODO``, ``OWNER/REPO``); the case loads at once, and `kb check`
(kb/tidy) names every placeholder left until the programs, the prose and the runs are real.

It writes only inside the chosen cases folder, plus, when that folder is the checkout's own
``cases/``, a commented entry at the end of the checkout's dev set
(``tests/fixtures/diagnose/manifest.toml``); for a cases folder elsewhere (``$KB_CASES_DIR``,
``$KB_KNOWLEDGE_DIR``) the dev set is left alone. Everything is checked before anything is
written, and a failure part way (a full disk, a template the schema rejects) removes what was
written: the folder, its files, the manifest's new lines.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from kb.knowledge.load import ID_PATTERN, SLUG_PATTERN, load_case
from kb.knowledge.model import KnowledgeError
from kb.knowledge.paths import CHECKOUT_ROOT
from kb.knowledge.registry import case_folders, family_files

# What the templates below write where the author must write instead: kb/tidy reports any left in
# case.md and the programs (tests/test_scaffold.py: an untouched scaffold fails `kb check` on them).
PLACEHOLDERS = ("TODO", "OWNER/REPO")
LAST_NUMBER = 9999  # KB9999: ids are KB followed by four digits
# The checkout's dev set of real error outputs, relative to the checkout.
DEV_MANIFEST = os.path.join("tests", "fixtures", "diagnose", "manifest.toml")

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
TODO: the fix, with {{name|what to say without it}} placeholders filled from the captures.
"""
snippet = """
TODO: the few lines of fixed.py that are the fix, as a user pastes them (kb check: they run as pasted)
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


_FOLDER_ID = re.compile(r"KB([0-9]{4})-")  # ASCII digits: int() reads any Unicode digit


def next_id(root: Path) -> str:
    """The id after the highest one under ``root``; :class:`ScaffoldError` when that was KB9999."""
    numbers = [int(m.group(1)) for p in case_folders(root) if (m := _FOLDER_ID.match(p.name))]
    number = max(numbers, default=0) + 1
    if number > LAST_NUMBER:
        raise ScaffoldError(f"no id left: KB{LAST_NUMBER} is taken and ids are never reused "
                            "(KB followed by four digits)")
    return f"KB{number:04d}"


def check_id(case_id: str, root: Path) -> None:
    """``case_id`` is ``KB`` and four ASCII digits (not ``KB٠٠٩٩``) and no case under ``root`` has it."""
    if not ID_PATTERN.match(case_id):
        raise ScaffoldError(f"id {case_id!r} is not KB followed by four ASCII digits (like KB0042)")
    if any(p.name.startswith(case_id + "-") for p in case_folders(root)):
        raise ScaffoldError(f"id {case_id} is taken")


def checkout_dev_manifest(root: Path, checkout: str = CHECKOUT_ROOT) -> Path | None:
    """The checkout's dev-set manifest, when ``root`` is the checkout's own ``cases/`` and the manifest
    exists; None otherwise (a cases folder elsewhere gets no entry in a dev set it is not part of)."""
    manifest = Path(checkout) / DEV_MANIFEST
    try:
        own = Path(root).resolve() == (Path(checkout) / "cases").resolve()
    except OSError:
        return None
    return manifest if own and manifest.is_file() else None


def manifest_entry(case_id: str, slug: str, family: str) -> str:
    """The commented dev-set entry `kb new` appends (or that an author adds by hand)."""
    return MANIFEST_STUB.format(id=case_id, slug=slug, family=family)


def _created_dirs(folder: Path) -> Path:
    """The outermost of ``folder`` and its ancestors that does not exist yet (what mkdir(parents) creates)."""
    top = folder
    while not top.parent.exists() and top.parent != top:
        top = top.parent
    return top


MAX_SLUG_LENGTH = 80  # the longest slug so far is 47; the folder name and dev/{slug}-SOURCE.txt stay far under NAME_MAX


def new_case(slug: str, family: str, root: Path, manifest: Path | None = None, case_id: str | None = None) -> Path:
    """Write ``root/KB####-slug/`` and, when ``manifest`` is given and exists, a commented dev-set entry at
    its end; return the folder. Raises :class:`ScaffoldError` before writing anything when the slug,
    family or id is not usable, and after removing everything it wrote when writing fails."""
    root = Path(root)
    if len(slug) > MAX_SLUG_LENGTH:  # (audit49: 6,000 characters gave the OS's "File name too long" with a path)
        raise ScaffoldError(f"the slug is {len(slug):,} characters: at most {MAX_SLUG_LENGTH} (it names the case's folder "
                            "and files)")
    if not SLUG_PATTERN.fullmatch(slug):  # fullmatch: `$` alone lets a trailing newline through
        raise ScaffoldError(f"slug {slug!r} is not kebab-case (lowercase words joined by '-')")
    families = {p.stem for p in family_files()}  # the names only: a broken case elsewhere does not stop kb new
    if family not in families:
        raise ScaffoldError(f"no family {family!r} (kb list --families: {', '.join(sorted(families))})")
    if any(p.name.split("-", 1)[1] == slug for p in case_folders(root)):
        raise ScaffoldError(f"a case with the slug {slug!r} exists")
    if case_id is not None:
        check_id(case_id, root)
    case_id = case_id or next_id(root)
    folder = root / f"{case_id}-{slug}"
    if folder.exists():
        raise ScaffoldError(f"{folder} exists")
    values = {"id": case_id, "slug": slug, "family": family}
    files = {
        "case.md": CASE_TEMPLATE.format(**values),
        "failing.py": PROGRAM_TEMPLATE.format(
            which="failing", what="The smallest program that fails the way users see it.", flag="", **values),
        "fixed.py": PROGRAM_TEMPLATE.format(
            which="fixed", what="The same program with the fix: keep the diff to the lines that change.",
            flag=" --fixed", **values),
    }
    manifest = manifest if manifest is not None and manifest.is_file() else None
    top = _created_dirs(folder)  # did not exist: if it does after a failure, this call made it
    manifest_size = manifest.stat().st_size if manifest is not None else None
    try:
        folder.mkdir(parents=True)
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
        try:
            load_case(folder)
        except KnowledgeError as exc:  # the template and the schema disagree: a bug in kb
            raise ScaffoldError(f"the new case does not load: {exc}") from None
        if manifest is not None:
            with manifest.open("a", encoding="utf-8") as handle:
                handle.write(manifest_entry(case_id, slug, family))
    except BaseException as exc:
        undone = _roll_back(top if top.exists() else None, manifest, manifest_size)
        if isinstance(exc, OSError):
            raise ScaffoldError(f"cannot write {exc.filename or folder}: {exc.strerror or exc}; {undone}") from None
        if isinstance(exc, ScaffoldError):
            raise ScaffoldError(f"{exc}; {undone}") from None
        raise
    return folder


def _roll_back(created: Path | None, manifest: Path | None, size: int | None) -> str:
    """Remove the folders `new_case` created and cut the manifest back to ``size`` bytes; say what was undone."""
    left = []
    if created is not None:
        shutil.rmtree(created, ignore_errors=True)
        if created.exists():
            left.append(str(created))
    if manifest is not None and size is not None:
        try:
            if manifest.stat().st_size != size:
                with manifest.open("r+b") as handle:
                    handle.truncate(size)
        except OSError:
            left.append(f"the end of {manifest}")
    if left:
        return "could not remove what it wrote: " + ", ".join(left)
    return "nothing was left behind"

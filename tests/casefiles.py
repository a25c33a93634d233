"""Complete, loadable case.md texts for tests that write throw-away case folders.

The knowledge schema (kb/knowledge/schema.py) requires a family, a summary and the five prose
sections; tests that care about one field write only that and let this fill the rest.
"""

from __future__ import annotations

from pathlib import Path

SECTIONS = ("Symptom", "Why it happens", "Fix", "What did not work", "When this does not apply")
DEFAULT_FAMILY = "cuda-oom"


def case_md(meta: str, symptom: str = "x", prose: dict[str, str] | None = None) -> str:
    """``meta`` (TOML front matter) with ``family`` and ``summary`` added when absent, and every section."""
    head = []
    if not any(line.startswith("family =") for line in meta.splitlines()):
        head.append(f'family = "{DEFAULT_FAMILY}"')
    if not any(line.startswith("summary =") for line in meta.splitlines()):
        head.append('summary = "A throw-away case written by a test."')
    # Top-level keys must come before the first [table]: put the additions first.
    front = "\n".join(head + [meta.strip()])
    if "[[signatures]]" in meta and "[fix]" not in meta:
        front += '\n[fix]\ntemplate = "The fix, written by a test."'
    texts = {"Symptom": f"```text\n{symptom}\n```", **(prose or {})}
    body = "\n\n".join(f"## {s}\n\n{texts.get(s, 'Written by a test.')}" for s in SECTIONS)
    return f"+++\n{front}\n+++\n\n{body}\n"


def write_case(folder: Path, meta: str, symptom: str = "x", programs: dict[str, str] | None = None) -> Path:
    """Write ``folder/case.md`` (and the programs, default empty failing.py/fixed.py); return the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "case.md").write_text(case_md(meta, symptom), encoding="utf-8")
    for name, text in (programs or {"failing.py": "", "fixed.py": ""}).items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder

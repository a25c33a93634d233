"""Markdown helpers shared by the site's pages."""

from __future__ import annotations

import json
import re
from typing import Any

INCIDENT_PREFIX = "../shared/incidents/"  # how case files name the incident reports beside the repository
INCIDENTS_DIR = "incidents"  # where the incident pages live in the site
_MD_SPECIAL = re.compile(r"([\\`*_\[\]>|#])|([<&])")
_ENTITY = {"<": "&lt;", "&": "&amp;"}


def md_escape(text: str) -> str:
    """Escape text so Markdown shows it literally (titles are error messages full of ``_`` and ``<``).

    ``<`` and ``&`` become HTML entities: Python-Markdown takes no backslash escape for ``<`` (the page showed
    ``transformers \\<= 4.33`` and ``died with \\<Signals.SIGKILL: 9>``, backslash and all), and a ``&`` of the
    text would otherwise start an entity (``&lt;`` in an error message shown as ``<``)."""
    return _MD_SPECIAL.sub(lambda m: "\\" + m[1] if m[1] else _ENTITY[m[2]], text)


_BREAK_AFTER = re.compile(r"(?<=[./(=,])(?=\w)|(?<=\\_)(?=\w)")


def breakable(text: str) -> str:
    """Markdown text with ``<wbr>`` after dots, underscores, slashes and brackets inside long tokens.

    A headline like ``torch.OutOfMemoryError:`` is wider than a 400 px screen at heading size; the
    browser then breaks it where these say instead of in the middle of a word.
    """
    return _BREAK_AFTER.sub("<wbr>", text)


def fence(text: str, lang: str = "text") -> str:
    """A fenced code block whose fence is longer than any backtick run inside ``text``."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def front_matter(data: dict[str, Any]) -> str:
    # JSON is valid YAML; it quotes every string safely.
    lines = [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in data.items()]
    return "---\n" + "\n".join(lines) + "\n---\n"


def incident_name(url: str) -> str | None:
    """The incident report a source URL names (``../shared/incidents/<name>.md`` -> ``<name>``), else None."""
    if url.startswith(INCIDENT_PREFIX) and url.endswith(".md"):
        return url[len(INCIDENT_PREFIX):-3]
    return None


def source_line(src: dict[str, str], from_dir: str = "") -> str:
    """A source as a list item: a web source or an incident (its page on this site) as a link, a path as text."""
    title, url = src.get("title", src.get("url", "")), src.get("url", "")
    if url.startswith(("http://", "https://")):
        return f"- [{md_escape(title)}]({url})"
    incident = incident_name(url)
    if incident is not None:
        target = f"{INCIDENTS_DIR}/{incident}.md"
        if from_dir:
            target = f"{incident}.md" if from_dir == INCIDENTS_DIR else f"../{target}"
        return f"- [{md_escape(title)}]({target}) (the incident, told on this site)"
    return f"- {md_escape(title)}" + (f": `{url}`" if url else "")

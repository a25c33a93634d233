"""Markdown helpers shared by the site's pages."""

from __future__ import annotations

import json
import re
from typing import Any

INCIDENT_PREFIX = "../shared/incidents/"  # how case files name the incident reports beside the repository
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def md_escape(text: str) -> str:
    """Escape text so Markdown shows it literally (titles are error messages full of ``_`` and ``<``)."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def fence(text: str, lang: str = "text") -> str:
    """A fenced code block whose fence is longer than any backtick run inside ``text``."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def front_matter(data: dict[str, Any]) -> str:
    # JSON is valid YAML; it quotes every string safely.
    lines = [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in data.items()]
    return "---\n" + "\n".join(lines) + "\n---\n"


def source_line(src: dict[str, str]) -> str:
    """A source as a list item: a web source as a link, an incident report or other path as text."""
    title, url = src.get("title", src.get("url", "")), src.get("url", "")
    if url.startswith(("http://", "https://")):
        return f"- [{md_escape(title)}]({url})"
    if url.startswith(INCIDENT_PREFIX):
        return f"- {md_escape(title)}: `shared/incidents/{url[len(INCIDENT_PREFIX):]}` (the incident report)"
    return f"- {md_escape(title)}" + (f": `{url}`" if url else "")

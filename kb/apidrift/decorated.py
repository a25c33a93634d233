"""Deprecations that huggingface_hub states with its `@_deprecate_method(version=..., message=...)` decorator.

deprecations.py reads the texts a release warns or raises with, `@deprecated(...)`, `@deprecate_kwarg(...)` and
`@_deprecate_arguments(...)`, but not huggingface_hub's `@_deprecate_method`: `cached_download` (0.26: "Use
`hf_hub_download` instead."), `filename_to_url` (`hf_hub_url`), `HfApi.list_files_info` (`list_repo_tree`),
`HfApi.update_repo_visibility` (`update_repo_settings`) went with no replacement recorded. Reading it in extract.py
would mean re-extracting every huggingface_hub release (the extractions are cached per extractor revision, and some
releases' files are no longer cached); this layer reads it at build time instead, from every cached file, and adds
the facts to each release's record as deprecations.py would state them (kind "name", the owner under its public path
when the top level exports it, the decorated name as old, the replacement from the message by parse_message).
Cached under ~/.cache/kb/apidrift/extract/<library>-<version>-decorated-v<N>.json. A release whose file is not
cached takes its minor's nearest later release's facts (the minor's last release is always read), as light.py does.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

from kb.apidrift.deprecations import parse_message
from kb.apidrift.releases import CACHE
from kb.apidrift.scancache import cached, scanned_records
from kb.apidrift.wheel import Wheel, decorated_functions, string_value

VERSION = 1
DECORATORS = {"huggingface_hub": "_deprecate_method"}


def _decorated(tree: ast.Module, decorator: str) -> list[tuple[list[str], str, str]]:
    """(enclosing class names + the function's name, the deprecated name, message) of each function the decorator,
    called with its arguments (`@_deprecate_method(version=..., message=...)`), wraps."""
    out: list[tuple[list[str], str, str]] = []
    for stack, node, deco in decorated_functions(tree, decorator):
        if not isinstance(deco, ast.Call):
            continue
        kw = {k.arg: k.value for k in deco.keywords if k.arg}
        message = string_value(kw["message"]) if "message" in kw else None
        version = string_value(kw["version"]) if "version" in kw else None
        # a deprecated __init__ deprecates its class (InferenceApi, Repository): the class's name goes
        path = [*stack, node.name] if node.name != "__init__" or not stack else list(stack)
        text = f"`{path[-1]}` is deprecated and will be removed in version {version}."
        if message:
            text += " " + " ".join(message.split())
        out.append((path, path[-1], text[:400]))
    return out


def scan(lib: str, wheel_path: Path) -> list[dict]:
    """The facts of one file: [{"module", "path" (names within the module), "old", "new", "message"}]."""
    decorator = DECORATORS.get(lib)
    if decorator is None:
        return []
    wheel = Wheel(wheel_path, lib)
    found: list[dict] = []
    for module in wheel.modules():
        if f"@{decorator}" not in (wheel.source(module) or ""):
            continue
        tree = wheel.tree(module)
        if tree is None:
            continue
        for path, name, message in _decorated(tree, decorator):
            _old, new = parse_message(message, old=name)
            found.append({"module": module, "path": path, "old": name, "new": new, "message": message})
    return found


def cache_path(lib: str, version: str, cache: Path = CACHE) -> Path:
    return cache / "extract" / f"{lib}-{version}-decorated-v{VERSION}.json"


def cached_scan(lib: str, version: str, wheel: Callable[[], Path | None], cache: Path = CACHE) -> list[dict] | None:
    return cached(cache_path(lib, version, cache), wheel, lambda p: scan(lib, p))


def owner(lib: str, fact: dict, exported: set[str]) -> str:
    """The fact's owner as deprecations.py writes it: the outermost definition under its public path (the top level's
    name when the top level exports it), then the inner names (`huggingface_hub.HfApi.list_files_info`)."""
    head, *rest = fact["path"]
    top = f"{lib}.{head}" if head in exported else f"{fact['module']}.{head}"
    return ".".join([top, *rest])


def add_facts(lib: str, records: list[dict], wheel: Callable[[str], Path | None]) -> int:
    """Add the decorator's facts to each record's facts (a new list: patch records share their minor's), skipping a
    fact the record already states (same kind, owner and old name). Returns the number of (release, fact) added."""
    if lib not in DECORATORS:
        return 0
    added = 0
    for record, found in scanned_records(records, lambda v: cached_scan(lib, v, lambda: wheel(v))):
        exported = set(record.get("exports", {}).get(lib, []))
        facts = list(record.get("facts", []))
        have = {(f["kind"], f["owner"], f["old"]) for f in facts}
        for fact in found:
            new = {"kind": "name", "owner": owner(lib, fact, exported), "old": fact["old"], "new": fact["new"],
                   "message": fact["message"]}
            if (new["kind"], new["owner"], new["old"]) not in have:
                facts.append(new)
                have.add((new["kind"], new["owner"], new["old"]))
                added += 1
        record["facts"] = facts
    return added

"""Keywords a decorator accepts on behalf of the functions it wraps: huggingface_hub's `@validate_hf_hub_args`.

From huggingface_hub 0.11.0 the public functions that take `token` dropped `use_auth_token` from their signatures,
but their decorator `@validate_hf_hub_args` kept accepting it: `smoothly_deprecate_use_auth_token` (in
`huggingface_hub/utils/_validators.py`) passes a `use_auth_token=` value on as `token`. huggingface_hub 1.0.0
removed that helper, and "hf_hub_download() got an unexpected keyword argument 'use_auth_token'" began there, not
in 0.11.0 as the signatures alone say. The parameter table read from the signatures (params.py) cannot see it, and
reading it in extract.py would mean re-extracting every huggingface_hub release; this layer reads it at build time
from every cached file, as decorated.py does: per release, whether the validator module defines the helper, and the
functions and methods the decorator wraps. For each wrapped callable the record tracks whose parameters include
`token` (the helper hands the value on only to a function that takes `token`), `use_auth_token` is added to its
parameters, and a param fact (old `use_auth_token`, new `token`) states the helper's rule. Cached under
~/.cache/kb/apidrift/extract/<library>-<version>-validated-v<N>.json; a release whose file is not cached takes its
minor's nearest later release's scan.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

from kb.apidrift.releases import CACHE
from kb.apidrift.scancache import cached, scanned_records
from kb.apidrift.wheel import Wheel, decorated_functions

VERSION = 1
# library: (decorator, the helper that accepts the keyword, where the helper lives, the keyword, the name it becomes)
DECORATED_KEYWORDS = {
    "huggingface_hub": ("validate_hf_hub_args", "smoothly_deprecate_use_auth_token", "huggingface_hub.utils._validators",
                        "use_auth_token", "token"),
}


def _wrapped(tree: ast.Module, decorator: str) -> list[str]:
    """Dotted names within the module (`hf_hub_download`, `HfApi.create_repo`) of the functions the decorator wraps."""
    return [".".join([*stack, node.name]) for stack, node, _deco in decorated_functions(tree, decorator)]


def scan(lib: str, wheel_path: Path) -> dict:
    """{"accepts": whether the helper is defined, "wrapped": [dotted names, module-less]} of one file."""
    spec = DECORATED_KEYWORDS.get(lib)
    if spec is None:
        return {"accepts": False, "wrapped": []}
    decorator, helper, home, _keyword, _becomes = spec
    wheel = Wheel(wheel_path, lib)
    accepts = wheel.has(home) and f"def {helper}(" in (wheel.source(home) or "")
    wrapped: set[str] = set()
    for module in wheel.modules():
        if f"@{decorator}" not in (wheel.source(module) or ""):
            continue
        tree = wheel.tree(module)
        if tree is not None:
            wrapped.update(_wrapped(tree, decorator))
    return {"accepts": accepts, "wrapped": sorted(wrapped)}


def cache_path(lib: str, version: str, cache: Path = CACHE) -> Path:
    return cache / "extract" / f"{lib}-{version}-validated-v{VERSION}.json"


def cached_scan(lib: str, version: str, wheel: Callable[[], Path | None], cache: Path = CACHE) -> dict | None:
    return cached(cache_path(lib, version, cache), wheel, lambda p: scan(lib, p))


def _local(lib: str, path: str) -> str:
    """`huggingface_hub.HfApi.create_repo` -> `HfApi.create_repo`; `huggingface_hub.hf_api.whoami` -> `whoami`."""
    parts = path.split(".")[1:]
    while len(parts) > 1 and parts[0][:1].islower():  # module parts of a non-exported path
        parts = parts[1:]
    return ".".join(parts)


def add_keywords(lib: str, records: list[dict], wheel: Callable[[str], Path | None]) -> int:
    """Add the decorator's keyword to the parameters of each tracked callable it wraps in each release whose helper
    accepts it (new dicts: patch records share their minor's), with a param fact naming the keyword it becomes.
    Returns the number of (release, callable) changed."""
    spec = DECORATED_KEYWORDS.get(lib)
    if spec is None:
        return 0
    decorator, helper, home, keyword, becomes = spec
    added = 0
    for record, found in scanned_records(records, lambda v: cached_scan(lib, v, lambda: wheel(v))):
        if not found["accepts"]:
            continue
        wrapped = set(found["wrapped"])
        params = dict(record.get("params", {}))
        facts = list(record.get("facts", []))
        have = {(f["kind"], f["owner"], f["old"]) for f in facts}
        for path, entry in record.get("params", {}).items():
            names = entry.get("params", [])
            if _local(lib, path.removesuffix(".__init__")) not in wrapped or becomes not in names or keyword in names:
                continue
            params[path] = {**entry, "params": [*names, keyword]}
            added += 1
            if ("param", path, keyword) not in have:
                facts.append({"kind": "param", "owner": path, "old": keyword, "new": becomes,
                              "message": f"the `{keyword}` value is passed as `{becomes}` instead ({home}.{helper}, "
                                         f"applied by @{decorator})"})
        record["params"] = params
        record["facts"] = facts
    return added

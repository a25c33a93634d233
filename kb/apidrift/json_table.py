"""A gzip'd JSON table of the API history's side tables (private names, aliases): written once by a build command,
read at most once per process by the answer."""

from __future__ import annotations


def write_table(name: str, data: dict, path: str | None = None) -> str:
    """Write ``data`` to the knowledge table ``name`` (or ``path``); the path written."""
    import gzip
    import json

    from kb.knowledge.tables import table_path

    path = path or table_path(name)
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as handle:
        json.dump(data, handle, separators=(",", ":"), sort_keys=True)
    return path


def read_table(name: str) -> dict | None:
    """The knowledge table ``name``; None when it is missing or unreadable. Read from its marshal copy in the cache
    folder where that is there and whole (kb/knowledge/history_pack.py marshal_copy: the same values, turn 46)."""
    from kb.knowledge.history_pack import marshal_copy
    from kb.knowledge.tables import table_path

    path = table_path(name)

    def parse() -> dict:
        import gzip
        import json

        with gzip.open(path, "rt", encoding="utf-8") as handle:
            return json.load(handle)

    try:
        return marshal_copy(path, parse)
    except (OSError, ValueError):
        return None

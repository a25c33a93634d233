"""Model ids as people write them -> the ids of tables/plan-models.toml (rules: tables/plan-names.toml).

``Qwen/Qwen2.5-14B-Instruct``, ``Qwen2.5-14B-Instruct``, ``Qwen/Qwen2.5-14B`` and ``qwen2.5-14b`` name the
same shapes: an instruction-tuned model has its base model's shapes. An id kb does not know gets the
nearest known ids (difflib), for the message that refuses it.
"""

from __future__ import annotations

from kb.knowledge.tables import read_table

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (kb diagnose plans an OOM log with this module)
if TYPE_CHECKING:
    from typing import Any

MAX_ID_CHARS = 200


def _suffixes() -> tuple[str, ...]:
    return tuple(str(s).lower() for s in read_table("plan-names").get("variant_suffixes", []))


def normalise(model_id: str, suffixes: tuple[str, ...] | None = None) -> str:
    """Lower case, without ``org/``, ``_`` and spaces read as ``-``, variant suffixes stripped (``suffixes``: the
    table's, when the caller read them already)."""
    text = model_id.strip().lower().replace("_", "-").replace(" ", "-").rstrip("/")
    text = text.rsplit("/", 1)[-1]
    if suffixes is None:
        suffixes = _suffixes()
    stripped = True
    while stripped:
        stripped = False
        for suffix in suffixes:
            if text.endswith(suffix) and len(text) > len(suffix):
                text, stripped = text[: -len(suffix)], True
    return text


def _squash(text: str) -> str:
    """Without separators: ``llama3.1-8b`` and ``llama-3.1-8b`` agree."""
    return text.replace("-", "")


_INDEX: list[tuple[dict[str, str], dict[str, str]]] = []  # _index's answer, built once (not functools.lru_cache:
# its import, ~2 ms, is not on kb diagnose's path for an OOM log it plans)


def _index() -> tuple[dict[str, str], dict[str, str]]:
    """(normalised spelling -> id, squashed spelling -> id) of every id, hub id and alias of plan-models."""
    if not _INDEX:
        _INDEX.append(_build_index())
    return _INDEX[0]


def _build_index() -> tuple[dict[str, str], dict[str, str]]:
    exact: dict[str, str] = {}
    suffixes = _suffixes()  # (read once for every spelling)
    for mid, cfg in read_table("plan-models").items():
        if not isinstance(cfg, dict):
            continue
        spellings: list[Any] = [mid, cfg.get("hub_id", ""), *cfg.get("aliases", [])]
        for spelling in spellings:
            if isinstance(spelling, str) and spelling:
                exact.setdefault(normalise(spelling, suffixes), mid)
    squashed = {_squash(k): v for k, v in exact.items()}
    return exact, squashed


def resolve(model_id: str) -> str | None:
    """The id of tables/plan-models.toml that ``model_id`` names, or None."""
    if not model_id or len(model_id) > MAX_ID_CHARS:
        return None
    exact, squashed = _index()
    key = normalise(model_id)
    return exact.get(key) or squashed.get(_squash(key))


def near(model_id: str, n: int = 4) -> list[str]:
    """Known ids close to ``model_id`` (for the message that refuses it), closest first."""
    import difflib

    exact, _ = _index()
    key = normalise(model_id[:MAX_ID_CHARS])
    out: list[str] = []
    for match in difflib.get_close_matches(key, list(exact), n=3 * n, cutoff=0.6):
        if exact[match] not in out:
            out.append(exact[match])
    return out[:n]

"""When a class's own body stopped defining a private member, read off the private-name scan (private.py).

The scan records a class's private member as ``A`` (certainly absent) only where no module of the wheel mentions the
name at all. A private method that many classes copied ("Copied from" model code: `_prepare_decoder_attention_mask`
on LlamaModel, OPTDecoder, BartDecoder...) stays mentioned by the few classes that keep it, so the release where most
of them dropped it reads ``U`` (unknown) for every one of them, and the answer could not date it.

A class's body stopped defining ``name`` in release R (``U`` right after its last ``P``) and lacks it there for
certain when nothing it can inherit from defines it in R: the class's module still exists in R, and every class whose
body defines ``name`` in R sits in another module of the library's per-model packages (``transformers.models.x``:
model files do not inherit from one another's classes) — none in the class's own module (a base beside it) and none
in the library's shared code (``modeling_utils``, ``generation``: a common base).

A report's own subclass ("'LlamaParallelModel' object has no attribute '_prepare_decoder_attention_mask'") names a
class no release has; the member's name then speaks for itself when the classes that defined it mostly dropped it in
one release (``common_drop``).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a `kb diagnose` API-history answer imports this)
if TYPE_CHECKING:
    from collections.abc import Callable

MODELS = ".models."


def definers(name: str) -> list[tuple[str, str, list[str], str]]:
    """(library, class path, scanned releases, states) of every scanned class whose body defines ``name`` in some
    release."""
    from kb.apidrift.private import _table, _unrle

    found = []
    for lib, entry in ((_table() or {}).get("libraries") or {}).items():
        for path, defined in entry.get("members", {}).items():
            if name in defined:
                found.append((lib, path, entry["versions"], _unrle(defined[name])))
    return found


def _module(path: str) -> str:
    return path.rsplit(".", 1)[0]


def _could_be_base(lib: str, path: str, other: str) -> bool:
    """Whether class ``other`` may be a base of class ``path`` (see the module's docstring)."""
    if _module(other) == _module(path):
        return True
    shared = f"{lib}{MODELS}"
    return not (other.startswith(shared) and path.startswith(shared))


def body_dropped(lib: str, path: str, name: str, index: int, scanned: list[str], states: str,
                 found: list[tuple[str, str, list[str], str]], modules_at: Callable[[str], set[str]]) -> bool:
    """Whether ``path`` lacks ``name`` for certain in ``scanned[index]``, the release after its body's last
    definition of it (state ``U``): its module is there and no class it may inherit from defines ``name`` there."""
    if not 0 < index < len(scanned) or states[index] != "U" or states[index - 1] != "P":
        return False
    release = scanned[index]
    if _module(path) not in modules_at(release):
        return False
    at: dict[int, int | None] = {}  # (turn 46) the release's place in each scanned list (the classes share a few)
    for other_lib, other, other_scanned, other_states in found:
        if other_lib != lib or other == path:
            continue
        where = at.get(id(other_scanned), -1)
        if where == -1:
            where = at[id(other_scanned)] = other_scanned.index(release) if release in other_scanned else None
        if where is None:
            continue
        if other_states[where] == "P" and _could_be_base(lib, path, other):
            return False
    return True


def drop_release(lib: str, path: str, name: str, scanned: list[str], states: str,
                 found: list[tuple[str, str, list[str], str]], modules_at: Callable[[str], set[str]]) -> str | None:
    """The release whose ``path`` no longer has ``name``: the one after its last ``P``, when ``A`` there (no module
    mentions it) or body_dropped says so; None otherwise (still defined in the last scanned release, or unknown)."""
    last = states.rfind("P")
    if last < 0 or last + 1 >= len(scanned):
        return None
    if states[last + 1] == "A" or body_dropped(lib, path, name, last + 1, scanned, states, found, modules_at):
        return scanned[last + 1]
    return None


def common_drop(name: str, modules_at: Callable[[str, str], set[str]],
                ) -> tuple[str, str, list[str], list[str], str] | None:
    """(library, release, the classes that dropped ``name`` in it, every class that defined it, their last release
    before it) when at least three scanned classes defined the private member ``name`` and half of them at least (and
    more than any other release) lost it in one release; None otherwise."""
    found = definers(name)
    libs = {lib for lib, *_ in found}
    if len(found) < 3 or len(libs) != 1:
        return None
    lib = libs.pop()
    drops: dict[str, list[str]] = {}
    at_release: dict[str, set[str]] = {}  # (turn 49) the few releases asked, each once: History.modules hands out a
    # copy of a release's thousands of module names (~100 copies, ~50 million instructions of a `kb diagnose` run)

    def modules_of(version: str) -> set[str]:
        if version not in at_release:
            at_release[version] = modules_at(lib, version)
        return at_release[version]

    for _lib, path, scanned, states in found:
        release = drop_release(lib, path, name, scanned, states, found, modules_of)
        if release is not None:
            drops.setdefault(release, []).append(path)
    if not drops:
        return None
    # by count, most first, a tie in the order found (Counter.most_common's order, without importing collections)
    (release, n), *rest = sorted(((r, len(p)) for r, p in drops.items()), key=lambda item: item[1], reverse=True)
    if 2 * n < len(found) or (rest and rest[0][1] == n):
        return None
    scanned = found[0][2]
    before = scanned[scanned.index(release) - 1]
    return lib, release, sorted(drops[release]), sorted(p for _l, p, _s, _st in found), before

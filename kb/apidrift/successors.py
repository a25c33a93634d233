"""Where a removed module or class went, read from the history's exports when no release's source names a
replacement (issue #25: every drift answer names the replacement or says none exists).

Three readings, each of the release that dropped the old form and the one before it:

- ``module_became_name``: a module that went while an enclosing package exports a name spelt like the module's
  last part (huggingface_hub 0.11.0 dropped the module ``huggingface_hub.snapshot_download``; the package's top
  level exports the function ``snapshot_download``): import that name from the package.
- ``module_successor``: the public module that exports, in the release that dropped a module, most of the names
  the module exported in the release before (huggingface_hub 0.25.0 dropped ``huggingface_hub.utils._errors``;
  ``huggingface_hub.errors`` exports its error classes). Names are weighed by how few modules export them, so a
  name every module imports (``List``, ``Optional``) counts for little; the module's enclosing packages, which
  re-export from anywhere, and private modules are not candidates.
- ``variant_base``: a class that went together with its siblings, each the name of one surviving class with one
  run of words inserted at the same place inside it (transformers 4.48.0 dropped ``Gemma2FlashAttention2`` and
  ``Gemma2SdpaAttention``; ``Gemma2Attention`` stayed): the variants were folded into the base class. Only in a
  module that defines its classes (not a package's top level that gathers thousands), and not for a prefix or a
  suffix (TF and Flax classes that went are no variants of the PyTorch ones).

Each returns None rather than guess between candidates; the answer says the replacement is read from the
exports, not stated by the library.
"""

from __future__ import annotations

import re

MIN_SCORE = 1.0  # the successor module's weighed share of the old module's names: one rare name at least
MARGIN = 1.5  # how far the best module must lead the second one (unless only it ends like the old module)
MAX_CLASSES = 100  # a module exporting more classes gathers them from elsewhere (a package's top level)
OWN_SHARE = 0.5  # the share of the old module's own names (weighed as in module_successor) the successor must hold


def _public(module: str) -> bool:
    return not any(part.startswith("_") for part in module.split(".")[1:])


def _gone(h, lib: str, accepted: list[str]) -> str | None:  # noqa: ANN001 - History
    """The release right after the last one that has the form; None when the latest release still has it."""
    return h.release_after(lib, accepted[-1]) if accepted else None


def _enclosing(module: str) -> list[str]:
    """The packages that enclose a dotted module, innermost first ("a.b.c" -> ["a.b", "a"])."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]


def module_became_name(h, lib: str, module: str, accepted: list[str]) -> tuple[str, str] | None:  # noqa: ANN001
    """(release, package) when the release that dropped ``module`` has an enclosing package exporting the name
    the module's last part spells (the innermost such package); None otherwise."""
    gone = _gone(h, lib, accepted)
    if gone is None:
        return None
    leaf = module.rsplit(".", 1)[-1]
    if leaf.startswith("_"):
        return None
    modules = h.modules(lib, gone)
    for package in _enclosing(module):
        if leaf in (h.exports(lib, package, gone) or set()) and f"{package}.{leaf}" not in modules:
            # a name, not the submodule of that name the package binds, and one a module of the release defines
            # or imports too (not a stale key of a lazy import table: trl 0.13.0's trl.trainer lists ppov2_config)
            if any(leaf in (h.exports(lib, m, gone) or set()) for m in modules if m != package):
                return gone, package
            return None
    return None


def module_successor(h, lib: str, module: str, accepted: list[str]) -> tuple[str, str, list[str]] | None:  # noqa: ANN001
    """(release, module, shared names: the rarest first) for the public module that took over most of ``module``'s
    names in the release that dropped it (see the module's docstring); None when none holds enough of them or two
    are close."""
    gone = _gone(h, lib, accepted)
    if gone is None:
        return None
    last = accepted[-1]
    names = {n for n in (h.exports(lib, module, last) or set()) if not n.startswith("_")}
    if not names:
        return None
    # how much of a name is the module's own: a name few modules of the last release export (a class it defines, a
    # package's re-export of it) is; one most modules import (`os`, `Path`, `torch`, `dataclass`) is not
    before: dict[str, int] = {}
    for m in h.modules(lib, last):
        for name in (h.exports(lib, m, last) or set()) & names:
            before[name] = before.get(name, 0) + 1
    own = {n: 1 / before.get(n, 1) for n in names}
    exports = {m: (h.exports(lib, m, gone) or set()) & names for m in h.modules(lib, gone)}
    holders: dict[str, int] = {}
    for held in exports.values():
        for name in held:
            holders[name] = holders.get(name, 0) + 1
    skip = {module, *_enclosing(module)}
    scored = sorted(((sum(1 / holders[n] for n in held), m) for m, held in exports.items()
                     if held and m not in skip and _public(m)), reverse=True)
    if not scored or scored[0][0] < MIN_SCORE:
        return None
    best = scored[0]
    leaf = module.rsplit(".", 1)[-1].lstrip("_")
    if len(scored) > 1 and best[0] < MARGIN * scored[1][0]:
        close = [m for s, m in scored if s * MARGIN > best[0]]
        alike = [m for m in close if m.rsplit(".", 1)[-1] == leaf]
        if len(alike) != 1:
            return None
        best = next(x for x in scored if x[1] == alike[0])
    if sum(own[n] for n in exports[best[1]]) < OWN_SHARE * sum(own.values()):
        return None  # it holds the module's imports, not what the module defined
    return gone, best[1], sorted(exports[best[1]], key=lambda n: (holders[n], n))  # the rarest names first


def _tokens(name: str) -> list[str]:
    """A CamelCase name's words and digit runs, version digits at its end dropped ("Gemma2FlashAttention2" ->
    Gemma, 2, Flash, Attention)."""
    return re.findall(r"[A-Z][a-z]+|[A-Z]+(?![a-z])|\d+", name.rstrip("0123456789"))


def _inserted(variant: list[str], base: list[str]) -> tuple[int, tuple[str, ...]] | None:
    """(position, words) when ``variant`` is ``base`` with one run of words inserted at one place; else None."""
    if len(variant) <= len(base):
        return None
    for i in range(len(base) + 1):
        n = len(variant) - len(base)
        if variant[:i] == base[:i] and variant[i + n:] == base[i:]:
            return i, tuple(variant[i:i + n])
    return None


def variant_base(h, lib: str, module: str, name: str, accepted: list[str]) -> tuple[str, str, list[str]] | None:  # noqa: ANN001
    """(release, base, sibling variants) for a class ``name`` that ``module`` dropped in the same release as
    another variant of the same surviving class (see the module's docstring); None otherwise."""
    gone = _gone(h, lib, accepted)
    if gone is None or not name[:1].isupper():
        return None
    before, after = h.exports(lib, module, accepted[-1]) or set(), h.exports(lib, module, gone) or set()
    if sum(n[:1].isupper() for n in before) > MAX_CLASSES:
        return None  # a package that gathers every model's classes: its mass removals (TF, Flax) are no variants
    dropped = sorted(n for n in before - after if n[:1].isupper() and n != name)
    kept = [n for n in before & after if n[:1].isupper()]
    mine = _tokens(name)
    found = []
    for base in kept:
        words = _tokens(base)
        at = _inserted(mine, words) if len(words) >= 2 else None
        if at is not None and 0 < at[0] < len(words):  # words inside the name (Gemma2|Flash|Attention), not a
            found.append((len(words), base, at))        # prefix (TF, Flax) or a suffix
    if not found:
        return None
    found.sort(reverse=True)  # the longest kept name it extends (IJepaSdpaSelfAttention: IJepaSelfAttention)
    if len(found) > 1 and found[0][0] == found[1][0]:
        return None
    _n, base, at = found[0]
    words = _tokens(base)
    # the evidence of a folding: another variant of the same base dropped with it, else one the same words made of
    # another kept class in that release (IJepaSdpaAttention beside IJepaSdpaSelfAttention)
    siblings = [n for n in dropped if (other := _inserted(_tokens(n), words)) and other[0] == at[0] and other[1] != at[1]]
    if not siblings:
        siblings = [n for n in dropped if any((other := _inserted(_tokens(n), _tokens(k))) and 0 < other[0]
                                              and other[1] == at[1] for k in kept if k != base)]
    return (gone, base, siblings) if siblings else None

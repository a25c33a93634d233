"""Version ranges for `kb env`: "is the installed transformers inside a case's affected range?".

Cases declare ranges as PEP 440 specifier strings (``">=4.51,<4.57"``). kb has no
core dependencies, so this module carries a small PEP 440 subset: release
numbers, pre/post/dev suffixes, local labels (ignored when comparing, as PEP 440
says for specifiers without one) and the operators ``== != < <= > >= ~=`` plus
``==X.*``/``!=X.*``. Epochs and ``===`` are refused.

:func:`contains` uses ``packaging`` when it is importable and this subset
otherwise; :func:`validate_spec` always uses the subset, so a case whose range
loads on a machine with ``packaging`` also works on one without it. The tests
check that both agree. Pre-releases are always considered (an installed
``4.57.0.dev0`` is compared, not skipped), like ``contains(v, prereleases=True)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_VERSION = re.compile(
    r"""^\s*v?
    (?P<release>\d+(?:\.\d+)*)
    (?:[-_.]?(?P<pre_l>alpha|beta|preview|pre|rc|a|b|c)[-_.]?(?P<pre_n>\d+)?)?
    (?:-(?P<post_n1>\d+)|[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>\d+)?)?
    (?:[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>\d+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    \s*$""",
    re.VERBOSE | re.IGNORECASE,
)
_PRE_NAMES = {"a": "a", "alpha": "a", "b": "b", "beta": "b", "c": "rc", "rc": "rc", "pre": "rc", "preview": "rc"}
_PRE_ORDER = {"a": 0, "b": 1, "rc": 2}
_OPERATORS = ("~=", "==", "!=", "<=", ">=", "<", ">")


class InvalidVersion(ValueError):
    pass


class InvalidSpecifier(ValueError):
    pass


@dataclass(frozen=True)
class Version:
    """A parsed PEP 440 version (no epoch)."""

    text: str
    release: tuple[int, ...]
    pre: tuple[str, int] | None = None
    post: int | None = None
    dev: int | None = None
    local: str | None = None

    @property
    def is_prerelease(self) -> bool:
        return self.pre is not None or self.dev is not None

    @property
    def is_postrelease(self) -> bool:
        return self.post is not None

    @property
    def base(self) -> tuple[int, ...]:
        """The release with trailing zeros removed (4.51 == 4.51.0)."""
        release = list(self.release)
        while len(release) > 1 and release[-1] == 0:
            release.pop()
        return tuple(release)

    def key(self) -> tuple[object, ...]:
        """Sort key for the public version (local label ignored).

        A dev release sorts before the pre-releases of the same release, a
        final release after them, and post-releases after the final one.
        """
        if self.pre is None and self.post is None and self.dev is not None:
            pre: tuple[int, ...] = (-1,)
        elif self.pre is None:
            pre = (1,)
        else:
            pre = (0, _PRE_ORDER[self.pre[0]], self.pre[1])
        post = (-1,) if self.post is None else (0, self.post)
        dev = (1,) if self.dev is None else (0, self.dev)
        return (self.base, pre, post, dev)


def parse_version(text: str) -> Version:
    m = _VERSION.match(text)
    if m is None:
        raise InvalidVersion(f"not a version kb can compare: {text!r}")
    pre = None
    if m["pre_l"]:
        pre = (_PRE_NAMES[m["pre_l"].lower()], int(m["pre_n"] or 0))
    post = None
    if m["post_n1"] is not None:
        post = int(m["post_n1"])
    elif m["post_l"]:
        post = int(m["post_n2"] or 0)
    dev = int(m["dev_n"] or 0) if m["dev_l"] else None
    return Version(
        text=text.strip(),
        release=tuple(int(p) for p in m["release"].split(".")),
        pre=pre,
        post=post,
        dev=dev,
        local=m["local"].lower() if m["local"] else None,
    )


@dataclass(frozen=True)
class Clause:
    """One ``<op><version>`` of a specifier; ``prefix`` for ``==X.*``/``!=X.*``."""

    op: str
    version: Version
    prefix: bool = False

    def contains(self, v: Version) -> bool:
        if self.prefix:
            n = len(self.version.release)
            padded = v.release + (0,) * max(0, n - len(v.release))
            hit = padded[:n] == self.version.release
            return hit if self.op == "==" else not hit
        spec = self.version
        if self.op == "==":
            return v.key() == spec.key()
        if self.op == "!=":
            return v.key() != spec.key()
        if self.op == "<=":
            return v.key() <= spec.key()
        if self.op == ">=":
            return v.key() >= spec.key()
        if self.op == "<":
            # "<4.57" must not admit 4.57.0rc1 or 4.57.0.dev0 (PEP 440).
            if not spec.is_prerelease and v.is_prerelease and v.base == spec.base:
                return False
            return v.key() < spec.key()
        if self.op == ">":
            # ">4.51" must not admit 4.51.post1 (PEP 440).
            if not spec.is_postrelease and v.is_postrelease and v.base == spec.base:
                return False
            return v.key() > spec.key()
        if self.op == "~=":
            upper = Clause("==", Version(text="", release=spec.release[:-1]), prefix=True)
            return v.key() >= spec.key() and upper.contains(v)
        raise AssertionError(self.op)  # parse_spec only builds the operators above


def parse_spec(text: str) -> tuple[Clause, ...]:
    """Parse ``">=4.51,<4.57"``; raises :class:`InvalidSpecifier` naming the bad part."""
    clauses = []
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or any(not p for p in parts):
        raise InvalidSpecifier(f"empty version range in {text!r}")
    for part in parts:
        op = next((o for o in _OPERATORS if part.startswith(o)), None)
        if op is None:
            raise InvalidSpecifier(f"{part!r} in {text!r}: start each part with one of {' '.join(_OPERATORS)}")
        rest = part[len(op) :].strip()
        prefix = rest.endswith(".*")
        if prefix:
            if op not in ("==", "!="):
                raise InvalidSpecifier(f"{part!r} in {text!r}: '.*' only goes with == or !=")
            rest = rest[:-2]
        if "!" in rest:
            raise InvalidSpecifier(f"{part!r} in {text!r}: epochs are not supported")
        try:
            version = parse_version(rest)
        except InvalidVersion:
            raise InvalidSpecifier(f"{part!r} in {text!r}: {rest!r} is not a version") from None
        if version.local is not None:
            raise InvalidSpecifier(f"{part!r} in {text!r}: local labels (+...) are not supported in ranges")
        if prefix and (version.pre or version.post is not None or version.dev is not None):
            raise InvalidSpecifier(f"{part!r} in {text!r}: '.*' goes after a plain release number")
        if op == "~=" and len(version.release) < 2:
            raise InvalidSpecifier(f"{part!r} in {text!r}: ~= needs at least two release numbers (~=4.51)")
        clauses.append(Clause(op, version, prefix))
    return tuple(clauses)


def validate_spec(text: str) -> None:
    """Raise :class:`InvalidSpecifier` if ``text`` is outside the subset kb supports."""
    parse_spec(text)


def contains_subset(spec: str, version: str) -> bool:
    """Whether ``version`` is inside ``spec``, with this module's PEP 440 subset."""
    v = parse_version(version)
    return all(c.contains(v) for c in parse_spec(spec))


def contains(spec: str, version: str) -> bool:
    """Whether ``version`` is inside ``spec``: ``packaging`` if importable, else the subset.

    Raises :class:`InvalidVersion` when the installed version cannot be compared.
    """
    validate_spec(spec)
    try:
        from packaging.specifiers import SpecifierSet
        from packaging.version import InvalidVersion as _PkgInvalid
        from packaging.version import Version as _PkgVersion
    except ImportError:
        return contains_subset(spec, version)
    try:
        return SpecifierSet(spec).contains(_PkgVersion(version), prereleases=True)
    except _PkgInvalid:
        raise InvalidVersion(f"not a version kb can compare: {version!r}") from None

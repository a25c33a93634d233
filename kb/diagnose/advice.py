"""Advice for the user's versions: keywords whose spelling changed across releases, filled from the API history.

A fix template may name a keyword as ``{kw:LIB.CALLABLE.KEYWORD|OLD}``, for example
``{kw:transformers.PreTrainedModel.from_pretrained.dtype|torch_dtype}``: KEYWORD where the user's
release of LIB accepts it (the API history, kb/apidrift: the releases whose callable takes the
keyword), else OLD. The release is the one the log shows (``transformers==4.46.3``, a pip list; see
kb/diagnose/drift.py VersionScanner), else this machine's (``kb diagnose --env``). Without either the
fix keeps KEYWORD and ``advice_for`` says so: "written for transformers >= 4.56; on older releases
use torch_dtype=". With a version: "for transformers 4.46.3 (from the log)".

The history (a data file, ~70 ms to read) is read only when an answer's fix holds such a placeholder
whose facts are not cached yet: the facts each placeholder needs (the library's covered releases,
those where the callable exists, those where it accepts the keyword) are kept in a small marshal file
beside the knowledge index (kb/knowledge/index.py's cache folder), keyed by the history file's size and
modification time, so the common answers (cuda-oom, dtype-mismatch) start as fast as before.
"""

from __future__ import annotations

from kb.knowledge.precompiled import pattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable

    from kb.diagnose.answers import Answer
    from kb.knowledge.model import Knowledge

KEYWORD = r"\{kw:([A-Za-z_][\w]*)((?:\.[A-Za-z_]\w*)+)\.([A-Za-z_]\w*)\|([A-Za-z_]\w*)\}"  # compiled on first use


class Keyword:
    """One ``{kw:...}`` placeholder: the library, the callable as the history names it, the new and the old keyword."""

    __slots__ = ("placeholder", "library", "callable", "new", "old")

    def __init__(self, m: re.Match[str]) -> None:
        self.placeholder = m.group(0)
        self.library = m.group(1)
        self.callable = m.group(1) + m.group(2)
        self.new, self.old = m.group(3), m.group(4)


def keywords(text: str) -> list[Keyword]:
    return [Keyword(m) for m in pattern(KEYWORD).finditer(text)] if "{kw:" in text else []


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in pattern(r"\d+").findall(version)[:3])


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


Facts = tuple  # (the library's covered releases, those where the callable exists, those where it accepts the keyword)
CACHE_FORMAT = 1


CACHE_MAX_BYTES = 16 << 20  # the API keyword cache file is read only when smaller than this


def _cache_path() -> tuple[str, str] | None:
    """(the cache file, its key: the history file's path, size and mtime), or None without a history file."""
    import os

    from kb import __version__
    from kb.knowledge.index import _cache_dir
    from kb.knowledge.paths import folder

    path = os.path.join(folder("tables"), "api-history.json.gz")  # kb.knowledge.tables' API_HISTORY (it imports tomllib)
    try:
        st = os.stat(path)
    except OSError:
        return None
    from kb.knowledge.precompiled import checksum  # (not zlib: a shared library to load)

    where = _cache_dir()
    if where is None:  # an empty or relative HOME: no cache (os.path.join(None, ...) raised TypeError)
        return None
    key = f"{CACHE_FORMAT}|{__version__}|{path}|{st.st_size}|{st.st_mtime_ns}"
    return os.path.join(where, f"api-keywords-{checksum(key.encode()) & 0xFFFFFFFF:08x}.marshal"), key


class KeywordFacts:
    """What the API history says of each placeholder's keyword, cached across runs (see the module's docstring)."""

    def __init__(self, every: list[Keyword] | Callable[[], list[Keyword]] | None = None) -> None:
        self._facts: dict[str, Facts | None] | None = None
        self._where: tuple[str, str] | None = None
        # all the knowledge's placeholders: one read of the history caches them all. A callable is called only
        # then (listing them reads every fix text, which the index decodes only when asked: kb/knowledge/index.py)
        self._every = every or []

    @property
    def every(self) -> list[Keyword]:
        if callable(self._every):
            self._every = self._every()
        return self._every

    def _load(self) -> dict[str, Facts | None]:
        if self._facts is None:
            import marshal
            import os

            from kb.knowledge.index import open_private

            self._facts = {}
            self._where = _cache_path()
            # read under the index's rules (this user's, not a link, writable by no one else); marshal.loads of
            # the bytes, not marshal.load of the file, which reads it through the file object piece by piece
            # (~0.25 ms against ~0.02 for this 4 KB file: a tenth of diagnose's start-up budget)
            fd = open_private(self._where[0]) if self._where is not None else None
            if fd is not None:
                try:
                    with open(fd, "rb") as handle:
                        # (a file far larger than kb writes, ~5 KB, is not kb's: a planted sparse 2 GiB one was read whole)
                        stored = marshal.loads(handle.read()) if os.fstat(fd).st_size <= CACHE_MAX_BYTES else None
                    if isinstance(stored, dict) and stored.get("key") == self._where[1]:
                        self._facts = dict(stored["facts"])
                except (OSError, ValueError, EOFError, TypeError, KeyError):
                    pass
        return self._facts

    def get(self, kw: Keyword) -> Facts | None:
        facts = self._load()
        name = f"{kw.callable}.{kw.new}"
        if name not in facts:
            from kb.diagnose.drift import _history

            history = _history()
            for each in [kw, *self.every]:
                facts.setdefault(f"{each.callable}.{each.new}", self._from_history(history, each))
            self._save()
        return facts[name]

    @staticmethod
    def _from_history(history, kw: Keyword) -> Facts | None:  # noqa: ANN001 - kb.apidrift History, imported lazily
        if history is None:
            return None
        present, accepted = history.param_versions(kw.library, kw.callable, kw.new)
        return (tuple(history.versions(kw.library)), tuple(present), tuple(accepted)) if present else None

    def _save(self) -> None:
        import marshal
        import os

        if self._where is None:
            return
        path, key = self._where
        from kb.knowledge.index import _safe_dir
        from kb.knowledge.index_build import write_private

        # (the index's rules: a private folder; mkstemp, never a planted link at a guessable name; renamed into place)
        if _safe_dir(os.path.dirname(path)):  # else the facts are recomputed next time
            try:
                write_private(path, marshal.dumps({"key": key, "facts": self._facts}))
            except ValueError:
                pass


def _release(versions: tuple[str, ...], version: str) -> str | None:
    """The covered release for an installed version: itself, or the covered patch of its minor."""
    if version in versions:
        return version
    minor = _key(version)[:2]
    return next((v for v in versions if _key(v)[:2] == minor), None)


class Resolver:
    """Chooses each keyword's spelling for the versions known (from the log, else this machine)."""

    def __init__(self, log_versions: dict[str, str], machine_versions: dict[str, str] | None = None,
                 facts: KeywordFacts | None = None) -> None:
        self.log_versions = log_versions
        self.machine_versions = machine_versions or {}
        self.facts = facts if facts is not None else KeywordFacts()

    def version(self, library: str) -> tuple[str, str] | None:
        """(version, where it was read) for ``library``, or None."""
        if library in self.log_versions:
            return self.log_versions[library], "from the log"
        if library in self.machine_versions:
            return self.machine_versions[library], "this machine, kb env"
        return None

    def first_accepted(self, kw: Keyword) -> str | None:
        """The first covered release whose callable accepts the new keyword; None when the history does not know it."""
        facts = self.facts.get(kw)
        return facts[2][0] if facts is not None and facts[2] else None

    def accepts(self, kw: Keyword, version: str) -> bool | None:
        """Whether ``version`` of the library accepts the new keyword (None: the history cannot say)."""
        facts = self.facts.get(kw)
        if facts is None:
            return None
        versions, present, accepted = facts
        covered = _release(versions, version)
        if covered is not None and covered in present:
            return covered in accepted
        return bool(accepted) and _key(version) >= _key(accepted[0])


def resolve(text: str, resolver: Resolver) -> tuple[dict[str, str], str | None]:
    """({placeholder: the keyword to print}, the advice_for line) for a fix text; ({}, None) without placeholders."""
    found = keywords(text)
    if not found:
        return {}, None
    chosen: dict[str, str] = {}
    known: dict[str, str] = {}  # library -> "transformers 4.46.3 (from the log)"
    unknown: list[tuple[Keyword, str]] = []
    for kw in found:
        seen = resolver.version(kw.library)
        accepts = resolver.accepts(kw, seen[0]) if seen else None
        if seen is not None and accepts is not None:
            chosen[kw.placeholder] = kw.new if accepts else kw.old
            known[kw.library] = f"{kw.library} {seen[0]} ({seen[1]})"
            continue
        chosen[kw.placeholder] = kw.new
        first = resolver.first_accepted(kw)
        if first is not None:
            unknown.append((kw, first))
    parts = []
    if known:
        parts.append("for " + " and ".join(known.values()))
    if unknown:
        since = dict.fromkeys(f"{kw.library} >= {_minor(first)}" for kw, first in unknown)
        older = dict.fromkeys(f"{kw.old}=" for kw, _ in unknown)
        parts.append(f"written for {' and '.join(since)}; on older releases use {', '.join(older)}")
    return chosen, "; ".join(parts) or None


def fill_keywords(text: str, chosen: dict[str, str]) -> str:
    """``text`` with each ``{kw:...}`` placeholder replaced by its chosen keyword (the new one when not chosen)."""
    if "{kw:" not in text:
        return text
    return pattern(KEYWORD).sub(lambda m: chosen.get(m.group(0), m.group(3)), text)


def with_fallbacks(template: str) -> str:
    """A fix template as printed when neither the output nor the versions say anything: each ``{name|text}``
    at its fallback, each ``{kw:...}`` keyword at its newest spelling (`kb show`, the docs pages, `kb check`)."""
    from kb.diagnose.match import fill_template

    return fill_keywords(fill_template(template, {}), {})


def knowledge_keywords(knowledge: Knowledge) -> list[Keyword]:
    """Every ``{kw:...}`` placeholder of the knowledge's fix templates."""
    return [kw for e in (*knowledge.cases, *knowledge.families) if "{kw:" in e.fix_template for kw in keywords(e.fix_template)]


def attach_advice(answers: list[Answer], knowledge: Knowledge, environment: dict[str, str],
                  machine_versions: dict[str, str] | None = None) -> None:
    """The versions stage: each answer whose fix names a version-dependent keyword gets the spelling for the
    user's versions (``answer.keywords``) and ``answer.advice_for``."""
    if not any("{kw:" in a.match.entry.fix_template for a in answers):
        return
    log_versions = {k[: -len("_version")]: v for k, v in environment.items() if k.endswith("_version")}
    resolver = Resolver(log_versions, machine_versions, KeywordFacts(lambda: knowledge_keywords(knowledge)))
    for answer in answers:
        template = answer.match.entry.fix_template
        if "{kw:" not in template:
            continue
        answer.keywords, answer.advice_for = resolve(template, resolver)

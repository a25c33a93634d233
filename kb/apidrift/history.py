"""The shipped API history: which names, modules, parameters and model types each release has.

    from kb.apidrift.history import load_history
    h = load_history()
    h.params("trl", "trl.SFTTrainer", "0.20.0")

Reads tables/api-history.json.gz through kb/knowledge/tables.py (built by `python -m kb.apidrift build`); imports none of the
libraries it describes.

Format 2 (issue #25; layout in kb/apidrift/merge.py): nine libraries (+ torch, huggingface_hub, deepspeed)
from January 2020 (torch from 1.0); ``versions(lib)`` lists every final patch release, the latest patch of each minor read
in full and the others probed for the facts that changed across their minor (``probed``), so version lists
give the exact release of a change. New tables, each with its own functions below: class members
(``members``, ``member_versions``, ``find_classes``), enum values (``enum_values``, ``value_versions``),
parameter defaults (``defaults``, ``default_history``), ``Literal`` values (``literal_values``), and the
transitions of any fact (``changes``). Yanked releases are covered and listed (``yanked``,
``first_regular``). A rename's ``since`` is the first release whose source states it (patch-exact: the
patches of its minor are bisected) and ``since_last_without`` the release before it (None when the first
covered release already states it). Loading is lazy per table: the JSON is parsed once (one
``json.load`` of the small outer document), each library's table is inflated and parsed on its first
lookup, section by section (see ``pack``), range strings are decoded on first use.
"""

from __future__ import annotations

from kb.apidrift.ranges import decode

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


def _key(version: str) -> tuple[int, ...]:
    import re  # (turn 46) on first use: a `kb diagnose` whose drift stage asks no release order imports no re

    return tuple(int(p) for p in re.findall(r"\d+", version))


def version_order(version: str) -> tuple[int, ...]:
    """An installed version's place among releases: its release numbers (at least three: `4.3` is 4.3.0), then its
    phase: -1 for a pre-release or dev build (`2.0.0a0+git5a54537`, `4.36.0rc1`, `4.35.0.dev0` come before X.Y.Z), 0
    for the release itself, N for a post release (`0.41.3.post2`). The local part is dropped: torch's `2.1.2+cu121`
    is 2.1.2, not a 2.1.2121."""
    numbers: list[int] = []
    phase = 0
    for part in version.split("+")[0].replace("-", ".").split("."):
        digits = ""
        while len(digits) < len(part) and part[len(digits)].isdigit():
            digits += part[len(digits)]
        if digits:
            numbers.append(int(digits))
        rest = part[len(digits):]
        if rest:
            number = "".join(ch for ch in rest if ch.isdigit())
            phase = int(number or 0) if rest.startswith("post") else -1
            break
    return (*numbers, *[0] * (3 - len(numbers)), phase)


def _inflate(value):
    """A packed text (see pack()) as the JSON value it holds; any other value as it is."""
    if not (isinstance(value, str) and value.startswith(_PACKED)):
        return value
    import base64
    import json
    import zlib

    return json.loads(zlib.decompress(base64.b64decode(value[len(_PACKED):])).decode("utf-8"))


class _Unpacked(dict):
    """A dict whose values a subclass's __getitem__ unpacks on first use: get, items and values go through it too (a
    plain dict's would hand out the packed values)."""

    def get(self, key: str, default=None):  # type: ignore[override]
        return self[key] if key in self else default

    def items(self):  # type: ignore[override]
        return [(key, self[key]) for key in self]

    def values(self):  # type: ignore[override]
        return [self[key] for key in self]


class _Sections(_Unpacked):
    """One library's table, each big section (exports, members, params...) a packed text inflated and parsed
    on its first lookup: `h.defaults("torch", ...)` parses torch's defaults (13 kB of JSON), not its exports
    (660 kB) too. From the cache folder's packed copy (kb/knowledge/history_pack.py), a big section is a Piece,
    read, checked and loaded on its first lookup; one that fails its check is read from the JSON (``fallback``)."""

    def __init__(self, value: dict, lib: str = "", fallback: Callable[[str, str], object] | None = None) -> None:
        super().__init__(value)
        self._lib, self._fallback = lib, fallback

    def __getitem__(self, section: str):
        value = super().__getitem__(section)
        if isinstance(value, str) and value.startswith(_PACKED):
            value = _inflate(value)
            super().__setitem__(section, value)
        elif isinstance(value, _piece_type()):
            from kb.knowledge.history_pack import DamagedPiece

            try:
                value = value.load()
            except DamagedPiece:
                if self._fallback is None:
                    raise OSError(f"the packed API history's {self._lib} {section} is damaged") from None
                value = self._fallback(self._lib, section)
            super().__setitem__(section, value)
        return value


def _piece_type() -> type:
    """kb/knowledge/history_pack.py's Piece where that module is loaded (only a packed history holds Pieces)."""
    import sys

    module = sys.modules.get("kb.knowledge.history_pack")
    return module.Piece if module is not None else _NoPiece


class _NoPiece:
    pass


class _Libraries(_Unpacked):
    """The per-library tables, each inflated on first use, so that a lookup in one library does not pay for
    the eight others (the whole file is ~10x its gzip size). A library stored as one packed text (format of
    the first v2 builds) is inflated whole; one stored as a dict of sections, section by section."""

    def __init__(self, value: dict, fallback: Callable[[str, str], object] | None = None) -> None:
        super().__init__(value)
        self._fallback = fallback

    def __getitem__(self, lib: str) -> dict:
        value = super().__getitem__(lib)
        if isinstance(value, str):
            value = _inflate(value) if value.startswith(_PACKED) else __import__("json").loads(value)
            super().__setitem__(lib, value)
        elif isinstance(value, dict) and not isinstance(value, _Sections):
            value = _Sections(value, lib, self._fallback)
            super().__setitem__(lib, value)
        return value


_PACKED = "zlib+base64:"
_SMALL = 2000  # a section whose JSON is shorter is stored as it is: inflating it would cost more than parsing it


def pack(history: dict) -> dict:
    """The shipped form of a merged history: each library's table a dict of its sections, each section over
    _SMALL characters of JSON compressed on its own (zlib, then base64, prefixed "zlib+base64:") and
    inflated by History on its first lookup; the version lists kept outside (`index`). A lookup then
    inflates and parses only the sections it reads (~0.5 MB for one export, one member and one default
    lookup), not the 6 MB the nine tables are as JSON."""
    import base64
    import json
    import zlib

    def packed(value) -> object:
        text = json.dumps(value, separators=(",", ":"), sort_keys=True)
        if len(text) < _SMALL:
            return value
        return _PACKED + base64.b64encode(zlib.compress(text.encode(), 9)).decode()

    out = {k: v for k, v in history.items() if k != "libraries"}
    out["index"] = {lib: entry["versions"] for lib, entry in history["libraries"].items()}
    out["libraries"] = {lib: {section: packed(value) for section, value in entry.items()}
                        for lib, entry in history["libraries"].items()}
    return out


def unpack(entry) -> dict:
    """A library's table as merge() made it, from any shipped form (a packed text, a dict of packed sections)."""
    import json

    if isinstance(entry, str):
        return _inflate(entry) if entry.startswith(_PACKED) else json.loads(entry)
    return {section: _inflate(value) for section, value in entry.items()}


class History:
    def __init__(self, data: dict, forwards: dict[str, str] | Callable[[], dict[str, str]] | None = None,
                 fallback: Callable[[str, str], object] | None = None) -> None:
        self._data = data
        self._names = getattr(data, "names", None)  # the packed copy's name index (kb/knowledge/history_pack.py)
        self._libs: dict = _Libraries(data["libraries"], fallback)  # fallback: (lib, section) -> the JSON's value
        versions = data.get("index") or {lib: entry["versions"] for lib, entry in self._libs.items()}
        self._decoded: dict[str, set[int]] = {}
        self._modules: dict[str, dict[str, list[str]]] = {}  # per library, module -> its range texts (_module_ranges)
        self._modules_at: dict[tuple[str, int], set[str]] = {}  # (library, release index) -> its modules (modules)
        self._exporting: dict[tuple[str, str, str | None], list[str]] = {}  # exporting_modules' answers
        self._forwards_table = forwards  # a dict, or a function giving it on first use (load_history)
        self._before: dict[tuple[str, str, str], dict] | None = None  # tables/api-history-before.toml, on first use
        self._compiled: dict[tuple[str, str, str], dict] = {}  # its [[compiled]] rows, read with the [[added]] ones
        self._stubs: list[tuple[str, str]] = []  # its [[stub]] rows: (library, package of compiled stub modules)
        self._noted: dict[tuple[str, str, str], dict] = {}  # its [[param]] rows: keywords of callables not tracked
        self._noted_defaults: list[dict] = []  # its [[default]] rows: defaults kept outside the signature
        self._noted_checks: list[dict] = []  # its [[check]] rows: value checks a release added
        self._noted_hooks: list[dict] = []  # its [[hook]] rows: untracked methods a library calls, whose parameters changed
        self._model_type_first: dict[str, str] | None = None  # built on first use (model_type_first)
        self._drifted_params: dict[str, tuple[str, str]] | None = None  # built on first use (drifted_param)
        self._versions: dict[str, list[str]] = versions
        self._index: dict[str, dict[str, int]] = {lib: {v: i for i, v in enumerate(vs)} for lib, vs in versions.items()}

    # --- the shared contract -------------------------------------------------------------
    def libraries(self) -> list[str]:
        return sorted(self._libs)

    def versions(self, lib: str) -> list[str]:
        return list(self._versions.get(lib, []))

    def release_after(self, lib: str, version: str) -> str | None:
        """The covered release of ``lib`` right after ``version`` (the first without what ``version`` last had);
        None when ``version`` is the latest covered one or not a covered release."""
        versions = self._versions.get(lib, [])
        if version not in versions or version == versions[-1]:
            return None
        return versions[versions.index(version) + 1]

    def exports(self, lib: str, module: str, version: str) -> set[str] | None:
        i = self._at(lib, version)
        if i is None or not self._module_at(lib, module, i):
            return None
        table = self._libs[lib]["exports"].get(module, {})
        return {n for r, names in table.items() if i in self._range(r) for n in names.split()}

    def params(self, lib: str, callable_path: str, version: str) -> list[str] | None:
        i = self._at(lib, version)
        entry = self._libs.get(lib, {}).get("params", {}).get(callable_path)
        if i is None or entry is None or i not in self._range(entry["present"]):
            return None
        names = [name for name, r in entry["params"] if i in self._range(r)]
        target = self._forwards().get(callable_path)  # **kwargs passed on (targets.toml "forwards")
        if target:
            names += [n for n in self.params(lib, target, version) or [] if n not in names]
        return names

    def model_types(self, version: str) -> set[str]:
        i = self._at("transformers", version)
        if i is None:
            return set()
        return {t for r, names in self._data.get("model_types", {}).items() if i in self._range(r) for t in names.split()}

    def renames(self, lib: str) -> list[dict]:
        return [dict(e) for e in self._libs.get(lib, {}).get("renames", [])]

    # --- helpers for kb diagnose -----------------------------------------------------------
    def model_type_first(self, name: str) -> str | None:
        """The first covered transformers release whose config registry knows ``name``, or None."""
        if self._model_type_first is None:
            # Each model type's earliest release, from each range's earliest release (turn 46): the same table as
            # asking model_types(version) of every release in order (one pass over every range per release: ~0.25 s
            # of the start-up of a `kb diagnose` whose drift stage asks, an unknown KeyError's say), in one pass.
            versions = self.versions("transformers")
            position: dict[int, int] = {}  # a release's index -> its first position in the list
            for pos, version in enumerate(versions):
                i = self._at("transformers", version)
                if i is not None:
                    position.setdefault(i, pos)
            first: dict[str, int] = {}
            for r, names in self._data.get("model_types", {}).items():
                least = min((position[i] for i in self._range(r) if i in position), default=None)
                if least is not None:
                    for model_type in names.split():
                        if least < first.get(model_type, len(versions)):
                            first[model_type] = least
            self._model_type_first = {t: versions[pos] for t, pos in first.items()}
        return self._model_type_first.get(name)

    def drifted_param(self, name: str) -> tuple[str, str] | None:
        """(library, callable) for a keyword whose acceptance changed: a deprecation in the source names it as
        the old parameter, or three or more tracked callables accepted it in some covered releases and not in
        others (one restructured class alone, trl's PPOConfig say, is not enough). None otherwise."""
        if self._drifted_params is None:
            table: dict[str, tuple[str, str]] = {}
            drifted: dict[str, list[tuple[str, str]]] = {}
            for lib, entry in self._libs.items():
                for path, spec in entry.get("params", {}).items():
                    present = self._range(spec["present"])
                    for param, r in spec["params"]:
                        if present - self._range(r):
                            drifted.setdefault(param, []).append((lib, path))
            for lib in self.libraries():
                for rename in self.renames(lib):
                    if rename.get("kind") == "param" and rename.get("old"):
                        table.setdefault(rename["old"], (lib, rename["owner"]))
            for param, where in drifted.items():
                if len(where) >= 3:
                    table.setdefault(param, where[0])
            self._drifted_params = table
        return self._drifted_params.get(name)

    def release(self, lib: str, version: str) -> str | None:
        """The covered release for an installed `version`: itself (its local part dropped: `2.1.2+cu121` is 2.1.2), or
        the latest covered patch of its minor not after it (a dev or pre-release of X.Y.Z is taken as X.Y.Z itself),
        or, when every covered patch of the minor is after it, the minor's first. Not simply the minor's first patch:
        where a patch undid a change (transformers 4.35.0 dropped `is_flash_attn_available` and 4.35.1 put it back),
        4.35.2's answer is 4.35.2's, not 4.35.0's."""
        if version in self._index.get(lib, {}):
            return version
        order = version_order(version)
        release = (*order[:-1], 0) if order[-1] < 0 else order  # a dev/pre build of X.Y.Z: X.Y.Z
        same_minor = [v for v in self.versions(lib) if _key(v)[:2] == order[:2]]
        for v in reversed(same_minor):
            if version_order(v) <= release:
                return v
        return same_minor[0] if same_minor else None

    def modules(self, lib: str, version: str) -> set[str]:
        i = self._at(lib, version)
        if i is None:
            return set()
        found = self._modules_at.get((lib, i))
        if found is None:
            # (turn 46) kept per release: the private-member readings ask the same few releases a hundred times over
            # (common_drop: ~0.15 s of a `kb diagnose` that reaches it); a copy is handed out
            found = self._modules_at[(lib, i)] = set()
            for r, names in self._libs[lib]["modules"].items():
                if i in self._range(r):
                    found.update(names.split())
        return set(found)

    def module_versions(self, lib: str, module: str) -> list[str]:
        return [v for i, v in enumerate(self.versions(lib)) if self._module_at(lib, module, i)]

    def export_versions(self, lib: str, module: str, name: str) -> list[str]:
        """Versions whose `module` exports `name`."""
        found: set[int] = set()
        for r, names in self._libs.get(lib, {}).get("exports", {}).get(module, {}).items():
            if name in names.split():
                found |= self._range(r)
        return [self.versions(lib)[i] for i in sorted(found)]

    def _indexed(self, kind: str, name: str) -> list | None:
        """The packed copy's name index for ``name`` (history_pack.NameIndex.get); None without one, or where its
        bucket fails its check (the caller scans the sections then, as without an index)."""
        if self._names is None:
            return None
        from kb.knowledge.history_pack import DamagedPiece

        try:
            return self._names.get(kind, name)
        except DamagedPiece:
            self._names = None
            return None

    def classes_with_member(self, lib: str, member: str) -> list[str] | None:
        """The class paths of `lib` whose members hold `member` in some covered release (in the members table's
        order), from the name index; None without one (the caller asks member_versions of every class)."""
        found = self._indexed("members", member)
        if found is None:
            return None
        return [path for library, path in found if library == lib] if lib in self._versions else []  # (member_classes')

    def exporting_modules(self, lib: str, name: str, version: str | None = None) -> list[str]:
        """Modules of `lib` exporting `name` (at `version`, or at any covered version), shortest first."""
        asked = (lib, name, version)
        found = self._exporting.get(asked)
        if found is None:  # a library no module of which ever exports it (the name index): no scan of its exports
            libraries = self._indexed("exports", name)
            if libraries is not None and lib not in libraries:
                found = self._exporting[asked] = []
        if found is None:  # (turn 46: kept; the object-attribute readings ask the same class of every library again)
            i = self._at(lib, version) if version else None
            out = []
            for module, table in self._libs.get(lib, {}).get("exports", {}).items():
                for r, names in table.items():
                    # (the substring test first: a split of every module's names was most of this scan's time)
                    if name in names and name in names.split() and (i is None or i in self._range(r)):
                        out.append(module)
                        break
            found = self._exporting[asked] = sorted(out, key=lambda m: (m.count("."), m))
        return list(found)

    def param_versions(self, lib: str, callable_path: str, param: str) -> tuple[list[str], list[str]]:
        """(versions where the callable exists, versions where it accepts `param`)."""
        entry = self._libs.get(lib, {}).get("params", {}).get(callable_path)
        if entry is None:
            return self._noted_versions(lib, callable_path, param)
        versions = self.versions(lib)
        present = self._range(entry["present"])
        accepted: set[int] = set()
        for name, r in entry["params"]:
            if name == param:
                accepted = self._range(r)
        return [versions[i] for i in sorted(present)], [versions[i] for i in sorted(accepted)]

    def callables(self, lib: str) -> list[str]:
        """The tracked callables of `lib`, then the untracked ones a [[param]] row of api-history-before.toml dates."""
        tracked = self._libs.get(lib, {}).get("params", {})
        self.before(lib, "", "")  # reads the table once
        return [*tracked, *dict.fromkeys(c for (li, c, _p) in self._noted if li == lib and c not in tracked)]

    def noted_param(self, lib: str, callable_path: str, param: str) -> dict | None:
        """The [[param]] row of tables/api-history-before.toml for a keyword of a callable the history does not track
        (torch.nn.GELU's `approximate`, torch 1.12.0), from the library's release notes; None otherwise."""
        self.before(lib, "", "")
        if callable_path in self._libs.get(lib, {}).get("params", {}):
            return None  # a tracked callable: the wheels' record decides
        return self._noted.get((lib, callable_path, param))

    def _noted_versions(self, lib: str, callable_path: str, param: str) -> tuple[list[str], list[str]]:
        """param_versions for an untracked callable: every covered release (up to the row's removed_in, when the
        callable itself went then), and those from the row's added_in on (up to its param_removed_in, when the keyword
        went and the callable stayed: transformers 5.0.0's push_to_hub without safe_serialization)."""
        row = self.noted_param(lib, callable_path, param)
        if row is None:
            return [], []
        gone = _key(row["removed_in"]) if row.get("removed_in") else None
        present = [v for v in self.versions(lib) if gone is None or _key(v) < gone]
        dropped = _key(row["param_removed_in"]) if row.get("param_removed_in") else None
        return present, [v for v in present if _key(v) >= _key(row["added_in"]) and (dropped is None or _key(v) < dropped)]

    def model_type_versions(self, model_type: str) -> list[str]:
        found: set[int] = set()
        for r, names in self._data.get("model_types", {}).items():
            if model_type in names.split():
                found |= self._range(r)
        return [self.versions("transformers")[i] for i in sorted(found)]

    def rope_messages(self) -> list[tuple[str, list[str]]]:
        versions = self.versions("transformers")
        return [(text, [versions[i] for i in sorted(self._range(r))]) for text, r in self._data.get("rope", {}).get("messages", [])]

    def rope_type_versions(self, rope_type: str) -> list[str]:
        found: set[int] = set()
        for r, names in self._data.get("rope", {}).get("rope_types", {}).items():
            if rope_type in names.split():
                found |= self._range(r)
        return [self.versions("transformers")[i] for i in sorted(found)]

    def built(self, lib: str, version: str) -> str | None:
        i = self._at(lib, version)
        return None if i is None else self._libs[lib]["built"][i]

    def _forwards(self) -> dict[str, str]:
        if callable(self._forwards_table):
            self._forwards_table = self._forwards_table()
        return self._forwards_table or {}

    # --- format 2: members, enum values, defaults, Literal values, transitions -----------------
    def probed(self, lib: str) -> list[str]:
        """Versions probed for the facts that changed across their minor, not read in full."""
        r = self._libs.get(lib, {}).get("probed", "")
        return [self.versions(lib)[i] for i in sorted(self._range(r))] if r else []

    def members(self, lib: str, class_path: str, version: str) -> set[str] | None:
        """Members (methods, attributes, inherited ones included) of a tracked class at `version`."""
        i = self._at(lib, version)
        entry = self._libs.get(lib, {}).get("members", {}).get(class_path)
        if i is None or entry is None or i not in self._range(entry["present"]):
            return None
        return {n for r, names in entry["names"].items() if i in self._range(r) for n in names.split()}

    def member_versions(self, lib: str, class_path: str, member: str) -> tuple[list[str], list[str]]:
        """(versions where the class is tracked, versions where it has `member`)."""
        entry = self._libs.get(lib, {}).get("members", {}).get(class_path)
        if entry is None:
            return [], []
        versions = self.versions(lib)
        having: set[int] = set()
        for r, names in entry["names"].items():
            if member in names and member in names.split():  # (the cheap substring test first)
                having |= self._range(r)
        return [versions[i] for i in sorted(self._range(entry["present"]))], [versions[i] for i in sorted(having)]

    def before(self, lib: str, module: str, name: str) -> dict | None:
        """The entry of tables/api-history-before.toml for `name` of `module`: a name added before the first covered
        release of `lib` ({"added_in", "last_without", "source"}), or None. The table is read on first use."""
        if self._before is None:
            from kb.knowledge.history_pack import marshal_copy
            from kb.knowledge.tables import read_table_file, table_path

            try:  # (turn 46: from its marshal copy in the cache folder where unchanged; tomllib's import and parse else)
                path = table_path("api-history-before.toml")
                table = marshal_copy(path, lambda: read_table_file(path))
            except Exception:  # noqa: BLE001 - a checkout without the table: no pre-coverage facts
                table = {}
            self._before = {(r["library"], r["module"], r["name"]): r for r in table.get("added", [])}
            self._compiled = {(r["library"], r["module"], r["name"]): r for r in table.get("compiled", [])}
            self._stubs = [(r["library"], r["package"]) for r in table.get("stub", [])]
            self._noted = {(r["library"], r["callable"], r["param"]): r for r in table.get("param", [])}
            self._noted_defaults = [r for r in table.get("default", []) if {"library", "callable", "param", "changed_in"} <= set(r)]
            self._noted_checks = [r for r in table.get("check", []) if {"library", "callable", "message", "added_in"} <= set(r)]
            self._noted_hooks = list(table.get("hook", []))
        return self._before.get((lib, module, name))

    def noted_defaults(self, lib: str, param: str) -> list[dict]:
        """The [[default]] rows of tables/api-history-before.toml for keyword `param` of `lib`'s callables: an effective
        default kept outside the signature (a config constant read when the keyword is None) that a release changed
        (datasets' trust_remote_code, 2.20.0), which the signature defaults the history reads cannot show."""
        self.before(lib, "", "")  # reads the table once
        return [r for r in self._noted_defaults if r["library"] == lib and r["param"] == param]

    def noted_hooks(self) -> list[dict]:
        """The [[hook]] rows of tables/api-history-before.toml: an untracked method a library calls on its own object
        (Trainer._get_train_sampler) whose positional parameters a release changed (kb/apidrift/positional.py)."""
        self.before("", "", "")  # reads the table once
        return self._noted_hooks

    def noted_checks(self, message: str) -> list[dict]:
        """The [[check]] rows of tables/api-history-before.toml whose message begins ``message``: a value check a
        release added to a call that earlier releases let through (peft 0.14.0's "Invalid task type: "), which the
        history's signatures cannot show."""
        self.before("", "", "")  # reads the table once
        return [r for r in self._noted_checks if message.startswith(r["message"])]

    def compiled(self, lib: str, module: str, name: str) -> dict | None:
        """The [[compiled]] entry of tables/api-history-before.toml for `name` of `module`: a name defined in compiled
        code that the wheels of some covered releases that had it do not declare (torch 2.1's float8 dtypes, read
        from 2.2.0's files on), so the history dates it too late ({"added_in", "last_without", "source"}); else None."""
        self.before(lib, module, name)  # reads the table once
        return self._compiled.get((lib, module, name))

    def stub_packages(self, lib: str) -> list[str]:
        """The [[stub]] packages of tables/api-history-before.toml for `lib`: compiled modules its wheels know only
        from .pyi stubs (torch._C). A name first read where such a stub first came may be older than that release."""
        self.before(lib, "", "")  # reads the table once
        return [package for library, package in self._stubs if library == lib]

    def member_classes(self, lib: str) -> list[str]:
        """The class paths whose members `lib`'s history records."""
        if lib not in self._versions:
            return []
        if self._names is not None:  # (the packed copy's list of them: the members table is loaded only when read)
            from kb.knowledge.history_pack import DamagedPiece

            try:
                paths = self._names.member_paths()
            except DamagedPiece:
                self._names = None
            else:
                if lib in paths:
                    return list(paths[lib])
        return list(self._libs.get(lib, {}).get("members", {}))

    def enum_classes(self, lib: str) -> list[str]:
        """The Enum class paths whose values `lib`'s history records."""
        return list(self._libs.get(lib, {}).get("enums", {})) if lib in self._versions else []

    def enum_values_ever(self, lib: str, enum_path: str) -> set[str]:
        """Every value the Enum `enum_path` has in some covered release of `lib`."""
        entry = self._libs.get(lib, {}).get("enums", {}).get(enum_path)
        return {v for v, _r in entry["values"]} if entry else set()

    def find_classes(self, name: str, lib: str | None = None) -> list[tuple[str, str]]:
        """(library, class path) of tracked classes (members or enums) whose last name is `name`, shortest first."""
        indexed = self._indexed("classes", name)
        if indexed is not None:  # (the name index: no scan of every library's tables)
            return sorted({(library, path) for library, path in indexed if not lib or library == lib},
                          key=lambda x: (x[1].count("."), x))
        out = set()
        for library in ([lib] if lib else self.libraries()):
            entry = self._libs.get(library, {})
            for table in ("members", "enums"):
                for path in entry.get(table, {}):
                    if path.rsplit(".", 1)[-1] == name:
                        out.add((library, path))
        return sorted(out, key=lambda x: (x[1].count("."), x))

    def enum_values(self, lib: str, enum_path: str, version: str) -> set[str] | None:
        i = self._at(lib, version)
        entry = self._libs.get(lib, {}).get("enums", {}).get(enum_path)
        if i is None or entry is None or i not in self._range(entry["present"]):
            return None
        return {v for v, r in entry["values"] if i in self._range(r)}

    def value_versions(self, lib: str, enum_path: str, value: str) -> tuple[list[str], list[str]]:
        """(versions where the enum is tracked, versions accepting `value`)."""
        entry = self._libs.get(lib, {}).get("enums", {}).get(enum_path)
        if entry is None:
            return [], []
        versions = self.versions(lib)
        having: set[int] = set()
        for v, r in entry["values"]:
            if v == value:
                having |= self._range(r)
        return [versions[i] for i in sorted(self._range(entry["present"]))], [versions[i] for i in sorted(having)]

    def defaults(self, lib: str, callable_path: str, version: str) -> dict[str, str] | None:
        """{param: default as source text} of a tracked callable at `version` ("None -> X" when the body
        replaces a None default with X)."""
        i = self._at(lib, version)
        if self.params(lib, callable_path, version) is None or i is None:
            return None
        table = self._libs[lib].get("defaults", {}).get(callable_path, {})
        return {p: text for p, values in table.items() for text, r in values if i in self._range(r)}

    def default_history(self, lib: str, callable_path: str, param: str) -> list[tuple[str, list[str]]]:
        """[(default text, versions having it)], ordered by the first version of each."""
        versions = self.versions(lib)
        values = self._libs.get(lib, {}).get("defaults", {}).get(callable_path, {}).get(param, [])
        out = [(text, [versions[i] for i in sorted(self._range(r))]) for text, r in values]
        return sorted(out, key=lambda x: self._index[lib][x[1][0]] if x[1] else 0)

    def literal_values(self, lib: str, callable_path: str, param: str, version: str) -> list[str] | None:
        i = self._at(lib, version)
        values = self._libs.get(lib, {}).get("literals", {}).get(callable_path, {}).get(param)
        if i is None or values is None:
            return None
        found = [v for v, r in values if i in self._range(r)]
        return found or None

    def changes(self, lib: str, present: list[str], having: list[str]) -> list[dict]:
        """Transitions of a fact over the covered releases where its owner is `present`: each
        {"change": "added", "last_without", "first_with"} or {"change": "removed", "last_with", "first_without"}.
        `present`/`having` as the *_versions functions return them; versions the owner lacks are skipped."""
        order = sorted(set(present) | set(having), key=lambda v: self._index.get(lib, {}).get(v, -1))
        having_set = set(having)
        out: list[dict] = []
        for before, after in zip(order, order[1:]):
            if (before in having_set) == (after in having_set):
                continue
            if after in having_set:
                out.append({"change": "added", "last_without": before, "first_with": after})
            else:
                out.append({"change": "removed", "last_with": before, "first_without": after})
        return out

    def yanked(self, lib: str) -> list[str]:
        """Covered releases that are yanked on PyPI. They stay in ``versions``: a user may have installed one
        before it was yanked, and a change one shipped is dated to it (transformers 4.46.0)."""
        return list(self._libs.get(lib, {}).get("yanked", []))

    def first_regular(self, lib: str, version: str) -> str | None:
        """`version` unless it is yanked, else the first covered release after it that is not (4.46.0 -> 4.46.1)."""
        yanked = set(self.yanked(lib))
        i = self._at(lib, version)
        if i is None:
            return None
        return next((v for v in self.versions(lib)[i:] if v not in yanked), None)

    # --- internals -----------------------------------------------------------------------
    def _at(self, lib: str, version: str) -> int | None:
        return self._index.get(lib, {}).get(version)

    def _range(self, text: str) -> set[int]:
        found = self._decoded.get(text)
        if found is None:
            found = self._decoded[text] = decode(text)
        return found

    def _module_at(self, lib: str, module: str, i: int) -> bool:
        return any(i in self._range(r) for r in self._module_ranges(lib).get(module, ()))

    def _module_ranges(self, lib: str) -> dict[str, list[str]]:
        """``lib``'s modules table turned around: module -> the range texts that list it, built on first use. Each
        lookup was a scan of the whole table (transformers: 328 ranges, 4,028 modules), and module_versions and the
        successor search make thousands (half the dev set's diagnose time)."""
        table = self._modules.get(lib)
        if table is None:
            table = self._modules[lib] = {}
            for r, names in self._libs[lib]["modules"].items():
                for module in names.split():
                    table.setdefault(module, []).append(r)
        return table


_LOADED: dict[str | None, History] = {}  # this process's histories, by the path asked for (None: the shipped one)


def load_history(path: str | Path | None = None) -> History:
    """The history at ``path``, or the shipped one (its packed copy in the cache folder, when there is one: see
    kb/knowledge/history_pack.py; a section that fails its check there is read from the JSON). Kept per path."""
    asked = str(path) if path else None
    found = _LOADED.get(asked)
    if found is None:
        data = _packed() if asked is None else None
        if data is None:
            from kb.knowledge.tables import read_api_history

            found = History(read_api_history(asked), _forwards)  # the targets are read on first use
        else:
            found = History(data, _forwards, _from_json)
        if len(_LOADED) >= 4:
            _LOADED.clear()
        _LOADED[asked] = found
    return found


def _packed() -> dict | None:
    """The shipped history from the cache folder's packed copy (kb/knowledge/history_pack.py), else None."""
    from kb.knowledge.history_pack import cached_history, shipped_path

    try:
        return cached_history(shipped_path(), _stored)
    except (OSError, ValueError, EOFError, TypeError, KeyError):  # any failure: the JSON, as before
        return None


def _stored(value: object) -> tuple[object, bool]:
    """A section as the JSON stores it -> (its value, whether it is a packed text: a big section)."""
    return _inflate(value), isinstance(value, str) and value.startswith(_PACKED)


def _from_json(lib: str, section: str) -> object:
    """A section of the shipped JSON: for a piece of the packed copy that failed its check."""
    from kb.knowledge.tables import read_api_history

    return _inflate(read_api_history()["libraries"][lib][section])


def targets() -> dict:
    """tables/api-history-targets.toml: what the builder extracts per library, and the `forwards` tables."""
    from kb.knowledge.tables import read_api_history_targets

    return read_api_history_targets()


def _forwards() -> dict[str, str]:
    """targets.toml's `forwards` tables, all libraries merged (callable -> the callable its **kwargs reach)."""
    return {k: v for table in targets().values() if isinstance(table, dict) for k, v in table.get("forwards", {}).items()}

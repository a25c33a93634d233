"""Knowledge kept as tables: ``tables/*.toml`` (and the API history) in the knowledge root.

- ``libraries.toml``: the one list of the libraries kb knows, each with its roles;
- ``noise.toml``: which errors are follow-on noise, not causes (kb diagnose);
- ``gpus.toml``: the cards, by the capacity torch reports (kb diagnose, the hardware profiles);
- ``priors.toml``: family answers for errors no signature matched: frames, exception classes, process
  evidence and the words of title-only reports (kb/diagnose/priors.py);
- ``plan-models.toml``, ``plan-constants.toml``, ``plan-cases.toml``: the planner's model shapes,
  constants and the cases a plan names;
- ``secrets.toml``: the secrets kb redacts from what it prints (token shapes, secret-like names);
- ``api-history.json.gz`` and ``api-history-targets.toml``: the API history (kb/apidrift builds it);
- ``frequency.toml``: what goes wrong most in the corpus of real reports, by family and cause, with kb's
  answers on them (``python scripts/corpus.py table`` writes it from ``frequency-aliases.toml`` and
  ``frequency-triage.toml``, which are kept by hand; kb/site's "What goes wrong most" page shows it).
- ``fallback-model.json.gz``: the learned fallback's linear model (scripts/fallback_train.py
  builds it; kb/diagnose/fallback.py reads it only when nothing else answered).

The small tables are validated against the schema (kb/knowledge/schema.py) when read, and cached
with the cases in the index (kb/knowledge/index.py), which hands them back through
``kb.knowledge.model.LOADED_TABLES``: a warm `kb diagnose` reads no TOML. The planner's and the API history's are read as they are and
checked by the engines that own them; the planner's are cached in the index too (as read, not validated).
"""

from __future__ import annotations

import os

from kb.knowledge.model import LOADED_TABLES, KnowledgeError, library_names
from kb.knowledge.paths import folder

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the index imports this module on
if TYPE_CHECKING:      # diagnose's start-up, so its imports stay light (the schema is imported when a file is read)
    from collections.abc import Callable
    from typing import Any

VALIDATED = {"libraries": "libraries", "noise": "noise", "gpus": "gpus", "secrets": "secrets",
             "priors": "priors"}  # table file -> schema table
API_HISTORY = "api-history.json.gz"
API_HISTORY_TARGETS = "api-history-targets.toml"


def tables_root() -> str:
    return folder("tables")


def table_path(name: str) -> str:
    """The path of ``tables/<name>`` (``.toml`` added when ``name`` has no suffix)."""
    return os.path.join(tables_root(), name if "." in name else f"{name}.toml")


def read_table_file(path: str, schema: str | None = None) -> dict[str, Any]:
    """One table file, parsed, and validated when ``schema`` names its schema table."""
    import tomllib  # here, not at import: a warm `kb diagnose` reads its tables from the index

    from kb.knowledge.schema import LIBRARY_ROLES, SchemaError, validate

    try:
        with open(path, "rb") as handle:
            raw = tomllib.load(handle)
    except OSError as exc:
        raise KnowledgeError(f"{path}: cannot read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise KnowledgeError(f"{path}: not valid TOML: {exc}") from None
    if schema is None:
        return raw
    try:
        data = validate(raw, schema, path)
    except SchemaError as exc:
        raise KnowledgeError(str(exc)) from None
    if schema == "libraries":
        for i, lib in enumerate(data["library"]):
            unknown = sorted(set(lib["roles"]) - set(LIBRARY_ROLES))
            if unknown:
                raise KnowledgeError(f"{path}: library[{i}].roles: unknown role {unknown[0]!r} "
                                     f"(roles: {', '.join(LIBRARY_ROLES)})")
    if schema == "secrets":
        check_secrets(data, path)
    if schema == "priors":
        check_prior_regexes(data, path)
    return data


def check_secrets(data: dict[str, Any], path: str) -> None:
    """What the schema cannot say of tables/secrets.toml: ids are unique, regexes compile, keywords are
    lower case (they are looked for in the lower-cased text)."""
    import re

    seen: set[str] = set()
    for i, rule in enumerate(data["rule"]):
        where = f"{path}: rule[{i}] ({rule['id']})"
        if rule["id"] in seen:
            raise KnowledgeError(f"{where}: the id is used twice")
        seen.add(rule["id"])
        try:
            re.compile(rule["regex"])
        except re.error as exc:
            raise KnowledgeError(f"{where}: regex does not compile: {exc}") from None
        for keyword in rule["keywords"]:
            if not keyword or keyword != keyword.lower():
                raise KnowledgeError(f"{where}: keyword {keyword!r} must be non-empty lower case")


_REMEMBERED = LOADED_TABLES  # the validated tables the index holds (kb/knowledge/index.py fills it when it loads)


# The regex keys of tables/priors.toml, per section; keyword regexes are matched case-insensitively.
PRIOR_REGEX_KEYS = {"frame": ("file", "function", "code"), "wrapper": ("file", "function"), "error": ("message", "excludes", "near"),
                    "process": ("line", "excludes", "excludes_before", "after_types", "went_on"), "keyword": ("all", "excludes"),
                    "program_line": ("line", "excludes", "excludes_before")}


NEEDED_WORDS = ("stack", "failure", "run")  # tables/priors.toml's shared word tables, each read by keyword rules' needs_<name>
# ... and every shared word table: [other] (other software's words) is read by every keyword rule, the title check and
# the learned fallback (kb/diagnose/priors.py names_other_software), whatever a rule asks
SHARED_WORDS = (*NEEDED_WORDS, "other", "routine")
OTHER_CODE_KEYS = ("paths", "shared", "record", "message", "logger", "named_record")  # tables/priors.toml [other_code]: regexes on
# frames' files (and on a log record naming the source file that printed it, a message in a form only another program
# prints, another program's log record)


def check_prior_regexes(data: dict[str, Any], path: str) -> None:
    """Every regex of tables/priors.toml compiles (the shared [stack], [failure] and [other] words and [other_code]'s
    paths too), a process rule has a literal to find its lines by, and a keyword rule that ``needs_stack``
    (``needs_failure``, ``needs_run``) has the [stack] ([failure], [run]) words to read."""
    import re

    for section, keys in PRIOR_REGEX_KEYS.items():
        for i, rule in enumerate(data[section]):
            for key in keys:
                value = rule[key]
                for pattern in value if isinstance(value, list) else [value] if value else []:
                    try:
                        re.compile(pattern, re.IGNORECASE if section == "keyword" else 0)
                    except re.error as exc:
                        raise KnowledgeError(f"{path}: {section}[{i}].{key}: {pattern!r} is not a regex: {exc}") from None
            if section in ("process", "program_line") and not (rule["literals"] and all(rule["literals"])):
                raise KnowledgeError(f"{path}: {section}[{i}].literals: an empty literal finds every line")
            if section == "process" and rule.get("needs_stack") and not rule["needs_context"]:
                raise KnowledgeError(f"{path}: process[{i}].needs_stack: only narrows needs_context (which this rule "
                                     "does not set): it would do nothing")
            if section == "frame" and rule["cut_key"] and not (rule["types"] and rule["lookup"]):
                raise KnowledgeError(f"{path}: frame[{i}].cut_key: needs the classes it reads (types) and the words "
                                     "for what looks the key up (lookup)")
            if section == "frame" and rule.get("cut") and rule["types"]:
                raise KnowledgeError(f"{path}: frame[{i}].cut: holds only for a traceback whose class is not shown, so "
                                     "it names no classes (types): with them it would hold nowhere")
            if section == "error" and not (rule["types"] or rule["message"]):
                raise KnowledgeError(f"{path}: error[{i}]: names neither types nor a message (it would hold for any error)")
            for need in NEEDED_WORDS:
                if section == "keyword" and rule[f"needs_{need}"] and not data[need]["words"]:
                    raise KnowledgeError(f"{path}: keyword[{i}].needs_{need}: the [{need}] table defines no words")
    for shared in SHARED_WORDS:
        words = data[shared]["words"]
        try:
            re.compile(words, re.IGNORECASE)
        except re.error as exc:
            raise KnowledgeError(f"{path}: {shared}.words: {words!r} is not a regex: {exc}") from None
    template = data["template"]["lines"]  # [template]: an issue template's lines, which the keyword rules read past
    try:
        re.compile(template, re.IGNORECASE)
    except re.error as exc:
        raise KnowledgeError(f"{path}: template.lines: {template!r} is not a regex: {exc}") from None
    reraise = data["reraise"]["message"]  # [reraise]: a worker's wrapper of the error it caught
    try:
        compiled = re.compile(reraise)
    except re.error as exc:
        raise KnowledgeError(f"{path}: reraise.message: {reraise!r} is not a regex: {exc}") from None
    if reraise and compiled.groups < 1:
        raise KnowledgeError(f"{path}: reraise.message: {reraise!r} captures no group (the original error's class)")
    for key in OTHER_CODE_KEYS:  # [other_code]: other software's code paths, and the code every program runs on
        value = data["other_code"][key]
        try:
            re.compile(value)
        except re.error as exc:
            raise KnowledgeError(f"{path}: other_code.{key}: {value!r} is not a regex: {exc}") from None
    record = data["other_code"]["record"]
    if record and "source" not in re.compile(record).groupindex:
        raise KnowledgeError(f"{path}: other_code.record: {record!r} names no group `source` (the file that printed it)")
    named = data["other_code"]["named_record"]
    if named and "name" not in re.compile(named).groupindex:
        raise KnowledgeError(f"{path}: other_code.named_record: {named!r} names no group `name` (the logger's name)")


def _memoised(function: Callable[[str], dict[str, Any]]) -> Callable[[str], dict[str, Any]]:
    """``function`` with its result kept per name for the process (functools.lru_cache(maxsize=None) without
    importing functools and collections: ~3 ms of `kb diagnose`'s start-up, which reads its tables from here)."""
    memo: dict[str, dict[str, Any]] = {}

    def read(name: str) -> dict[str, Any]:
        found = memo.get(name)
        if found is None:
            found = memo[name] = function(name)
        return found

    read.__doc__, read.__name__, read.__qualname__ = function.__doc__, function.__name__, function.__qualname__
    read.__wrapped__ = function  # type: ignore[attr-defined]
    return read


@_memoised
def read_table(name: str) -> dict[str, Any]:
    """``tables/<name>.toml``, validated when it has a schema: the index's copy when it has been loaded,
    else the file (cached for the process)."""
    remembered = _REMEMBERED.get(name)
    return remembered if remembered is not None else _read_table(name)


@_memoised
def _read_table(name: str) -> dict[str, Any]:
    return read_table_file(table_path(name), VALIDATED.get(name))


def small_tables() -> dict[str, dict[str, Any]]:
    """The tables diagnose needs, by name (kb/knowledge/index.py caches them with the cases): the validated ones, and
    the planner's (kb/knowledge/indexed.py PLAN_TABLES) as they are read. A planner's table that is missing or does not
    parse is left out: read_table reads it, and says why, only where the planner needs it, as before (turn 45)."""
    from kb.knowledge.indexed import PLAN_TABLES

    tables = {name: _read_table(name) for name in VALIDATED}
    for name in PLAN_TABLES:
        if os.path.isfile(table_path(name)):
            try:
                tables[name] = _read_table(name)
            except KnowledgeError:
                continue
    return tables


def libraries(role: str, tables: dict[str, dict[str, Any]] | None = None) -> tuple[str, ...]:
    """The names of the libraries with ``role`` (tables/libraries.toml), in the table's order."""
    from kb.knowledge.schema import LIBRARY_ROLES

    if role not in LIBRARY_ROLES:
        raise ValueError(f"no library role {role!r} (roles: {', '.join(LIBRARY_ROLES)})")
    return library_names(tables["libraries"] if tables is not None else read_table("libraries"), role)


def history_since(tables: dict[str, dict[str, Any]] | None = None) -> dict[str, tuple[int, int]]:
    """``{library: (major, minor)}``: the first minor release the API history reads, per library."""
    data = tables["libraries"] if tables is not None else read_table("libraries")
    out = {}
    for lib in data["library"]:
        if "api_history" in lib["roles"]:
            major, minor = lib["history_since"].split(".")[:2]
            out[lib["name"]] = (int(major), int(minor))
    return out


def card(card_id: str) -> dict[str, Any]:
    """A card of tables/gpus.toml by its ``id``."""
    for entry in read_table("gpus")["card"]:
        if entry["id"] == card_id:
            return entry
    raise KnowledgeError(f"{table_path('gpus')}: no card with id {card_id!r}")


def api_history_path() -> str:
    return table_path(API_HISTORY)


def read_api_history(path: str | None = None) -> dict[str, Any]:
    """The API history (gzip'd JSON), as kb/apidrift/merge.py wrote it; OSError when it is missing."""
    import gzip
    import json

    with gzip.open(path or api_history_path(), "rt", encoding="utf-8") as handle:
        return json.load(handle)


def read_frequency(name: str = "frequency") -> dict[str, Any] | None:
    """``tables/frequency.toml`` or one of the files it is built from (``frequency-aliases``,
    ``frequency-triage``), parsed; None when the knowledge root has no such file (a knowledge base of
    one's own without a corpus)."""
    if name != "frequency" and not name.startswith("frequency-"):
        raise ValueError(f"{name!r} is not a frequency table")
    path = table_path(name)
    return read_table_file(path) if os.path.exists(path) else None


def read_api_history_targets() -> dict[str, Any]:
    """What the API history's builder extracts per library, and the `forwards` tables."""
    return read_table_file(table_path(API_HISTORY_TARGETS))


FALLBACK_MODEL = "fallback-model.json.gz"


def read_fallback_model(path: str | None = None) -> dict[str, Any]:
    """The learned fallback's model (gzip'd JSON, scripts/fallback_train.py writes it): per-family term weights,
    and the URLs, families and heaviest terms of the reports it names as evidence, never report text. OSError
    when it is missing; KnowledgeError when it is not one."""
    import gzip
    import json

    path = path or table_path(FALLBACK_MODEL)
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
    except (EOFError, ValueError, gzip.BadGzipFile) as exc:
        raise KnowledgeError(f"{path}: not a gzip'd JSON model: {exc}") from None
    keys = ("classes", "intercepts", "vocabulary", "idf", "weights", "scale", "threshold", "min_similarity",
            "calibration", "held_out", "labels", "urls", "vectors")
    missing = [k for k in keys if not isinstance(data, dict) or k not in data]
    if missing:
        raise KnowledgeError(f"{path}: the fallback model lacks {', '.join(missing)}")
    if (len(data["classes"]) != len(data["intercepts"]) or not len(data["labels"]) == len(data["urls"]) == len(data["vectors"])
            or not len(data["idf"]) == len(data["weights"]) == len(data["vocabulary"])):
        raise KnowledgeError(f"{path}: the fallback model's lists differ in length")
    return data

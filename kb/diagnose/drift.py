"""API-drift facts for `kb diagnose`: which releases accept a name, when it went, where it went.

An answer of a family whose file says ``api_history = true`` (api-drift, model-unsupported), or of one
of its cases, gets a ``drift`` section when its error has one of the forms below, recognised by cheap string checks:

- ImportError: cannot import name 'X' from 'Y'            -> exports of Y across releases
- AttributeError: module 'Y' has no attribute 'X'          -> the same
- ModuleNotFoundError: No module named 'a.b'               -> modules across releases
- TypeError: C.m() got an unexpected keyword argument 'k'  -> parameters of C.m across releases
- AttributeError: 'C' object has no attribute 'a'          -> fields of C (configs, arguments)
- ValueError: Some keys are not used by the HfArgumentParser: [...]  -> TrainingArguments / trl configs
- KeyError: 'qwen2' / model type `x` ... does not recognize -> transformers' config registry
- `rope_scaling` must be a dictionary with two fields      -> the rope_scaling checks

Only then is the history (kb/apidrift, a data file) loaded. The installed versions come from the log
(`pip list`, `pip show`, `transformers==4.44.2`, `- transformers version: 4.44.2`, a wheel or
dist-info name) through VersionScanner, or from `kb diagnose --env`. Nothing here imports the
libraries it talks about.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from kb.diagnose.parser import TYPELESS_SEARCH_LINES
from kb.diagnose.stream import trigger_lines

VERSION_SEARCH_LINES = TYPELESS_SEARCH_LINES  # versions are read from the first lines, as known messages are

_PATTERNS: dict = {}  # by library list: compiled on the first line that may hold a version (start-up stays unchanged)


def _patterns(libraries: tuple[str, ...]):
    if libraries not in _PATTERNS:
        from kb.knowledge.precompiled import pattern as compile_

        libs = "|".join(libraries)
        v = r"(\d+\.\d+(?:\.\d+)?(?:\.post\d+|\.dev\d+|rc\d+)?)"
        _PATTERNS[libraries] = (
            compile_(rf"(?<![\w-])({libs})\s*==\s*{v}"),                               # trl==0.12.2
            compile_(rf"(?<![\w-])`?({libs})`?\s+version\s*:?\s*{v}", 2),  # (2: re.IGNORECASE) - `transformers` version: 4.44.2
            compile_(rf"(?<![\w.-])({libs})-{v}(?:\.dist-info|-py3|\.egg)"),           # trl-0.12.2.dist-info, wheels
            compile_(rf"^\s*(?:[-*|]\s*)?({libs})\s{{2,}}{v}\s*(?:\||$)"),               # pip list
            compile_(rf"^\s*({libs})\s*[:=]\s*{v}\s*$"),                                # transformers: 4.44.2
            compile_(r"^\s*Name:\s*(" + libs + r")\s*$"),                               # pip show: Name: trl
            compile_(r"^\s*Version:\s*" + v + r"\s*$"),                                  # pip show: Version: 0.12.2
        )
    return _PATTERNS[libraries]


class VersionScanner:
    """Installed versions of the libraries tables/libraries.toml marks ``log_versions``, read from the log
    as it streams past."""

    def __init__(self, libraries: tuple[str, ...] | None = None) -> None:
        if libraries is None:
            from kb.knowledge.tables import libraries as known

            libraries = known("log_versions")
        self.libraries = tuple(sorted(libraries))
        self._tokens = ("==", "ersion", "dist-info", ".whl", "Name: ") + tuple(f"{lib} " for lib in self.libraries)
        self.facts: dict[str, str] = {}
        self._pip_show: str | None = None

    def scan(self, chunks: Iterable[tuple[str, list[str]]]) -> Iterator[tuple[str, list[str]]]:
        """Pass the chunks on; read versions from the first VERSION_SEARCH_LINES lines only (a pasted
        report is short; in a long training log eleven substring scans per chunk cost ~1 s per 200 MB)."""
        seen = 0
        for text, lines in chunks:
            if seen < VERSION_SEARCH_LINES:
                for i in trigger_lines(text, self._tokens):
                    if seen + i < VERSION_SEARCH_LINES:
                        self._look(lines[i][:500])
                seen += len(lines)
            yield text, lines

    def _look(self, line: str) -> None:
        *forms, name, version = _patterns(self.libraries)
        for form in forms:
            m = form.search(line)
            if m:
                self.facts.setdefault(f"{m.group(1)}_version", m.group(2))
                return
        m = name.match(line)
        if m:
            self._pip_show = m.group(1)
            return
        m = version.match(line)
        if m and self._pip_show:
            self.facts.setdefault(f"{self._pip_show}_version", m.group(1))
            self._pip_show = None


# ----------------------------------------------------------------------------- recognising the forms

def _between(text: str, start: str, end: str) -> str | None:
    i = text.find(start)
    if i < 0:
        return None
    i += len(start)
    j = text.find(end, i)
    return text[i:j] if j > i else None


def recognise(error_type: str, message: str) -> tuple[str, dict[str, str]] | None:
    """(form, fields) for the error forms the history can answer, by string checks only."""
    first = message.split("\n", 1)[0]
    short = error_type.rsplit(".", 1)[-1]
    if "cannot import name '" in first:
        name, module = _between(first, "cannot import name '", "'"), _between(first, "' from '", "'")
        if name and module:
            return "import-name", {"name": name, "module": module}
    if "No module named '" in first:
        module = _between(first, "No module named '", "'")
        if module:
            return "no-module", {"module": module}
    if "got an unexpected keyword argument '" in first:
        head = first.split("() got an unexpected keyword argument '")[0]
        kwarg = _between(first, "got an unexpected keyword argument '", "'")
        callable_ = head.split()[-1] if head.split() else ""
        if kwarg and callable_:
            return "unexpected-kwarg", {"callable": callable_, "name": kwarg}
    if "has no attribute '" in first:
        attr = _between(first, "has no attribute '", "'")
        module = _between(first, "module '", "'")
        if attr and module and first.lstrip().startswith(("module '", "partially initialized module '")):
            return "module-attribute", {"name": attr, "module": module}
        cls = _between(first, "'", "' object has no attribute")
        if attr and cls:
            return "object-attribute", {"cls": cls, "name": attr}
    if "not used by the HfArgumentParser" in first:
        return "hfargparser-unused", {"keys": first.split("HfArgumentParser:", 1)[-1].strip()}
    if "does not recognize this architecture" in first and "model type `" in first:
        model_type = _between(first, "model type `", "`")
        if model_type:
            return "model-type", {"model_type": model_type}
    if short == "KeyError":
        key = first.strip().strip("'\"")
        if key and key.replace("_", "").replace("-", "").isalnum() and key[:1].islower() and " " not in key:
            return "model-type", {"model_type": key}
    if "rope_scaling" in first and "two fields" in first:
        return "rope-scaling", {"got": first.split("got", 1)[-1] if "got" in first else ""}
    return None


def drift_section(error_type: str, message: str, facts: dict[str, str] | None = None,
                  env_versions: dict[str, str] | None = None) -> dict | None:
    """The `drift` section for one error, or None when the form is not one the history answers."""
    recognised = recognise(error_type, message)
    if recognised is None:
        return None
    form, fields = recognised
    # only now: the history's data file is read for these errors
    from kb.apidrift.answer import answer

    try:
        section = answer(form, fields, facts or {}, env_versions)
    except OSError:  # the data file is missing (a source checkout without it)
        return None
    from kb.diagnose.redact import redact_tree

    return redact_tree(section)  # the name it talks about is the user's: a token passed as a keyword, say


def attach_drift(answers: list, knowledge, versions: dict[str, str] | None = None) -> None:
    """The API-drift stage of the pipeline: each answer of a family whose file asks for the API history
    (``api_history = true``) gets the facts for its error. ``versions``: this machine's (`kb diagnose
    --env`), used where the log named none."""
    for answer in answers:
        m = answer.match
        if m.entry.family in knowledge.api_history_families:
            answer.drift = drift_section(m.error.type or "", m.error.message, m.environment, versions)


def _history():
    """The API history, or None when its data file is missing (a source checkout without it)."""
    from kb.apidrift.history import load_history

    try:
        return load_history()
    except OSError:
        return None


def known_model_type(name: str) -> str | None:
    """The first covered transformers release whose config registry knows ``name``; None when none does
    (or no data file). Loads the history: called only for a signature that names a ``model_type_capture``
    and matched no frame or hint."""
    history = _history()
    return None if history is None else history.model_type_first(name)


def drifted_param(name: str) -> tuple[str, str] | None:
    """(library, callable) for a keyword whose acceptance changed across the covered releases (see
    History.drifted_param); None otherwise (or no data file)."""
    history = _history()
    return None if history is None else history.drifted_param(name)

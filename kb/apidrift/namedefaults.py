"""Parameter defaults written as a module-level name: `optim: ... = field(default=default_optim)`.

params.py records a default as its source text, so from transformers 4.27.0 `TrainingArguments.optim`'s default
reads `default_optim`, a name its module assigns (`default_optim = "adamw_torch"`, then an `if` that may make it
`"adamw_torch_fused"`). The value it stood for is what tells a removed enum value's successor: `optim="adamw_hf"`
was the default up to 4.31.0 and `"adamw_torch"` from 4.32.0, and 4.50.0 removed `adamw_hf` from `OptimizerNames`
with no message naming a replacement. This layer reads, at build time, the modules listed in MODULES of every cached
release: the first constant each name is assigned at module level or in a module-level class's body (an assignment
inside an `if`/`try` there counts; the first in source order wins, the unconditional one coming first in these
modules). A recorded default
that is exactly such a name of the callable's module becomes `name -> 'value'` (as a body's replacement of a `None`
default is written `None -> X`). Cached under ~/.cache/kb/apidrift/extract/<library>-<version>-namedefaults-v<N>.json;
a release whose file is not cached takes its minor's nearest later release's scan.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

from kb.apidrift.releases import CACHE
from kb.apidrift.scancache import cached, scanned_records
from kb.apidrift.wheel import Wheel

VERSION = 2  # 2: class-level names too (TrainingArguments' default_optim is assigned in its body)
# library: {module: the classes whose defaults it defines}
MODULES = {"transformers": {"transformers.training_args": ("TrainingArguments",),
                            "transformers.training_args_seq2seq": ("Seq2SeqTrainingArguments",)}}


def _constants(tree: ast.Module) -> dict[str, str]:
    """{name: repr of the constant} of the assignments of one constant to one name at module level or at the top of
    a module-level class's body (where `default_optim` is assigned before the field that uses it), first one kept."""
    out: dict[str, str] = {}

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, (str, int, float, bool)):
                out.setdefault(node.targets[0].id, repr(node.value.value))
            elif isinstance(node, ast.ClassDef):
                visit(node.body)
            elif isinstance(node, (ast.If, ast.Try)):
                visit(node.body)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)
                visit(node.orelse)

    visit(tree.body)
    return out


def scan(lib: str, wheel_path: Path) -> dict[str, dict[str, str]]:
    """{module: {name: constant}} of the library's listed modules in one file."""
    wheel = Wheel(wheel_path, lib)
    out: dict[str, dict[str, str]] = {}
    for module in MODULES.get(lib, {}):
        if wheel.has(module):
            tree = wheel.tree(module)
            if tree is not None:
                out[module] = _constants(tree)
    return out


def cache_path(lib: str, version: str, cache: Path = CACHE) -> Path:
    return cache / "extract" / f"{lib}-{version}-namedefaults-v{VERSION}.json"


def cached_scan(lib: str, version: str, wheel: Callable[[], Path | None], cache: Path = CACHE) -> dict | None:
    return cached(cache_path(lib, version, cache), wheel, lambda p: scan(lib, p))


def resolve_defaults(lib: str, records: list[dict], wheel: Callable[[str], Path | None]) -> int:
    """Write each listed class's name defaults as `name -> 'value'` (new dicts: patch records share their minor's).
    Returns the number of (release, parameter) resolved."""
    if lib not in MODULES:
        return 0
    resolved = 0
    for record, found in scanned_records(records, lambda v: cached_scan(lib, v, lambda: wheel(v))):
        defaults = dict(record.get("defaults", {}))
        for module, classes in MODULES[lib].items():
            names = found.get(module, {})
            for cls in classes:
                path = f"{lib}.{cls}"
                if path not in defaults:
                    continue
                table = dict(defaults[path])
                for param, text in table.items():
                    if text in names:
                        table[param] = f"{text} -> {names[text]}"
                        resolved += 1
                defaults[path] = table
        record["defaults"] = defaults
    return resolved

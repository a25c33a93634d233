"""The child of the agreement check (kb/apidrift/agreement.py): inspects the real objects of one release.

It runs inside the environment built for that release, which may be an older Python (3.8+) than the
project's, so this file uses the standard library only, imports nothing from kb and keeps to syntax
Python 3.8 reads. The parent runs it as ``python -c <this file's text> <specs JSON>`` (no directory of
kb on sys.path, so kb/apidrift's modules never shadow a package of the same name) and reads the
``KB-AGREEMENT`` line it prints.

An import that fails is reported with what the parent needs to tell an environment's fault from the
library's: the exception's type, ``name`` (ModuleNotFoundError, ImportError), message, and the file of
the frame that raised it.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import json
import re
import sys
import traceback
from typing import Any, Dict, List, Optional, Set, Tuple


class ImportFailure(Exception):
    """A module of the target path exists but raised on import (``cause`` is what it raised)."""

    def __init__(self, module: str, cause: BaseException) -> None:
        super().__init__(f"importing {module} raised {type(cause).__name__}: {cause}")
        self.module = module
        self.cause = cause


def resolve_object(path: str) -> Any:
    """Import the longest module prefix of ``path`` and walk the rest as attributes.

    A prefix that is not a module (ModuleNotFoundError naming that very prefix) is skipped; a module
    that exists but fails to import (it needs a package that is absent, an old torch's ``torch._six``)
    raises :class:`ImportFailure` instead of being mistaken for "no such name".
    """
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(prefix)
        except ModuleNotFoundError as exc:
            if exc.name is not None and (exc.name == prefix or prefix.startswith(exc.name + ".")):
                continue  # the prefix is not a module: an attribute of a shorter one
            raise ImportFailure(prefix, exc) from exc
        except Exception as exc:  # noqa: BLE001 - any failure of an existing module's import
            raise ImportFailure(prefix, exc) from exc
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(f"cannot import any prefix of {path}")


def accepted_parameters(obj: Any) -> Tuple[Set[str], bool]:
    """Names a caller may pass to ``obj`` and whether an unresolved ``**kwargs`` remains.

    A class's ``__init__`` that takes ``**kwargs`` is followed to the next ``__init__`` up the
    MRO, as the call would forward them (Trainer subclasses, configs).
    """
    names: Set[str] = set()
    if inspect.isclass(obj):
        for cls in obj.__mro__:
            if cls is object or "__init__" not in vars(cls) and cls is not obj:
                continue
            try:
                signature = inspect.signature(cls) if cls is obj else inspect.signature(cls.__init__)
            except (TypeError, ValueError):
                continue
            parameters = [p for p in signature.parameters.values() if p.name != "self"]
            names |= {p.name for p in parameters if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
            if not any(p.kind == p.VAR_KEYWORD for p in parameters):
                return names, False
        return names, True
    signature = inspect.signature(obj)
    names = {p.name for p in signature.parameters.values() if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name != "self"}
    return names, any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values())


def forwarded_to(obj: Any, attribute: str) -> Any:
    """The function a bare decorator wrapper forwards to, or ``obj`` itself.

    A decorator that does not use functools.wraps (deepspeed's ``instrument_w_nvtx`` on
    ``DeepSpeedEngine.backward``) leaves ``wrapped_fn(*args, **kwargs)`` in the class: every keyword
    reaches the decorated function, whose own signature is the real one. Followed when the wrapper takes
    only ``*args, **kwargs`` and its closure holds one function named ``attribute``."""
    if not inspect.isfunction(obj) or obj.__name__ == attribute:
        return obj
    try:
        kinds = {p.kind for p in inspect.signature(obj).parameters.values()}
    except (TypeError, ValueError):
        return obj
    if not kinds <= {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}:
        return obj
    inner = []
    for cell in obj.__closure__ or ():
        try:
            content = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if inspect.isfunction(content) and content.__name__ == attribute:
            inner.append(content)
    return inner[0] if len(inner) == 1 else obj


def read_from_kwargs(obj: Any, name: str) -> bool:
    """Whether the real source pops or reads ``name`` from its ``**kwargs`` (from_pretrained and kin)."""
    try:
        source = inspect.getsource(obj)
    except (OSError, TypeError):
        return False
    return re.search(r"kwargs\.(pop|get)\(\s*[\"']" + re.escape(name) + r"[\"']", source) is not None


def failure(exc: BaseException) -> Dict[str, Any]:
    """What the parent classifies: the exception that made the import fail, and where it was raised."""
    cause = exc.cause if isinstance(exc, ImportFailure) else exc
    frames = traceback.extract_tb(cause.__traceback__)
    return {
        "real": None,
        "error": {
            "type": type(cause).__name__,
            "name": getattr(cause, "name", None) if isinstance(cause, ImportError) else None,
            "message": str(cause)[:400],
            "module": exc.module if isinstance(exc, ImportFailure) else None,
            "file": frames[-1].filename if frames else None,
        },
        "note": "could not inspect: %s: %s" % (type(cause).__name__, str(cause)[:200]),
    }


def import_target(target: str) -> Any:
    """``importlib.import_module(target)``, an existing module's failure wrapped in :class:`ImportFailure`."""
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (exc.name == target or target.startswith(exc.name + ".")):
            raise  # no such module at this release: an answer, not a failure
        raise ImportFailure(target, exc) from exc
    except Exception as exc:  # noqa: BLE001
        raise ImportFailure(target, exc) from exc


def inspect_export(target: str, name: str) -> Dict[str, Any]:
    try:
        module = import_target(target)
    except ModuleNotFoundError:
        return {"real": False, "note": "the module `%s` does not exist at this release" % target}
    try:
        getattr(module, name)
        return {"real": True}
    except AttributeError:
        pass
    except Exception as exc:  # noqa: BLE001 - exported, but its lazy import needs something absent
        return {"real": True, "note": "exported; importing it raised %s: %s" % (type(exc).__name__, str(exc)[:160])}
    try:  # `from pkg import sub` also imports a submodule that is not yet an attribute
        importlib.import_module("%s.%s" % (target, name))
        return {"real": True, "note": "a submodule"}
    except ModuleNotFoundError as exc:
        if exc.name != "%s.%s" % (target, name):
            return {"real": True, "note": "a submodule; importing it raised %s" % exc}
        if optional_dependency(module, name):
            return {"real": None, "undecidable": True,
                    "note": "optional dependency: the module binds `%s` only where the package `%s` "
                            "is installed, and it is not installed here" % (name, name)}
        branch = conditional_import(source_of(module), name)
        if branch:
            return {"real": None, "undecidable": True,
                    "note": "bound only in a branch not taken here: `%s` (under an if/try); "
                            "the history records every branch's bindings" % branch}
        return {"real": False}
    except Exception as exc:  # noqa: BLE001
        return {"real": True, "note": "a submodule; importing it raised %s: %s" % (type(exc).__name__, str(exc)[:160])}


def _package(thing: Any) -> str:
    return (getattr(thing, "__module__", None) or "").split(".")[0]


def _own_annotations(cls: Any) -> Dict[str, Any]:
    get = getattr(inspect, "get_annotations", None)  # Python 3.10+; before it, the class's own __dict__ entry
    try:
        return dict(get(cls)) if get is not None else dict(vars(cls).get("__annotations__") or {})
    except Exception:  # noqa: BLE001 - an annotation that does not evaluate: none read
        return {}


def parameter_packages(obj: Any, name: str, real: bool) -> List[str]:
    """The top-level packages whose code decides whether ``obj`` takes ``name`` here: for a name it takes, the
    package of the class whose own body declares it (a dataclass field) or whose own ``__init__`` names it, the
    most derived first, else ``obj``'s own; for a name it does not take, the packages of every class ``obj``'s
    parameters come from (its dataclass bases, the ``__init__``s ``**kwargs`` is followed to). A package other than
    the release's says the answer is that package's, as installed in this environment (trl's RewardConfig takes
    the fields of the transformers TrainingArguments installed beside it)."""
    if not inspect.isclass(obj):
        return [_package(obj)]
    if real:
        for cls in obj.__mro__:
            if name in _own_annotations(cls):
                return [_package(cls)]
        for cls in obj.__mro__:
            init = vars(cls).get("__init__")
            try:
                if init is not None and name in inspect.signature(init).parameters:
                    return [_package(cls)]
            except (TypeError, ValueError):
                continue
        return [_package(obj)]
    found: Set[str] = set()
    for cls in obj.__mro__:  # the walk of accepted_parameters: on up the MRO while **kwargs stays open
        if cls is object or "__init__" not in vars(cls) and cls is not obj:
            continue
        owner = next((c for c in cls.__mro__ if "__init__" in vars(c)), cls)  # whose __init__ signature(cls) reads
        found |= {_package(owner)} | {_package(c) for c in owner.__mro__ if "__dataclass_fields__" in vars(c)}
        try:
            parameters = inspect.signature(cls if cls is obj else cls.__init__).parameters.values()
        except (TypeError, ValueError):
            continue
        if not any(p.kind == p.VAR_KEYWORD for p in parameters):
            break
    return sorted(found - {"builtins", "typing", "abc", "enum", ""})


def overload_names(obj: Any) -> Set[str]:
    """The parameter names the ``@typing.overload`` declarations of ``obj`` name (Python 3.11+ keeps them:
    torch's ``Module.to(*args, **kwargs)`` declares ``non_blocking`` in each overload, parsed by its C code)."""
    get = getattr(__import__("typing"), "get_overloads", None)
    names: Set[str] = set()
    for declared in get(obj) if get is not None and inspect.isfunction(obj) else ():
        try:
            names |= set(inspect.signature(declared).parameters) - {"self"}
        except (TypeError, ValueError):
            continue
    return names


def inspect_param(target: str, name: str) -> Dict[str, Any]:
    found = _inspect_param(target, name)
    if isinstance(found.get("real"), bool):
        try:
            found["packages"] = parameter_packages(forwarded_to(resolve_object(target), target.rsplit(".", 1)[-1]),
                                                   name, found["real"])
        except Exception:  # noqa: BLE001 - not told: the parent judges the answer as it is
            pass
    return found


def _inspect_param(target: str, name: str) -> Dict[str, Any]:
    try:
        obj = resolve_object(target)
    except AttributeError as exc:
        branch = branch_binding(target)
        if branch:
            return {"real": None, "undecidable": True,
                    "note": "`%s` is bound only in a branch not taken here: `%s` (under an if/try); "
                            "the history records every branch's bindings" % (target, branch)}
        return {"real": None, "missing": True,
                "note": "the callable `%s` does not exist at this release (%s)" % (target, str(exc)[:160])}
    obj = forwarded_to(obj, target.rsplit(".", 1)[-1])
    names, open_kwargs = accepted_parameters(obj)
    if name not in names and decorator_passes_on(obj, name, names):
        return {"real": True, "note": "its decorator hands `%s=` on as `token=` (the release's own helper, run)" % name}
    if name in names or not open_kwargs:
        return {"real": name in names}
    if read_from_kwargs(obj, name):
        return {"real": True, "note": "read from **kwargs in the source"}
    if name in overload_names(obj):
        return {"real": True, "note": "named by an @overload of the callable (its C code parses **kwargs)"}
    return {"real": False, "note": "the callable also takes **kwargs"}


def decorator_passes_on(obj: Any, name: str, names: Set[str]) -> bool:
    """huggingface_hub's ``@validate_hf_hub_args`` (0.11.0-0.36.2): the wrapper's code calls
    ``smoothly_deprecate_use_auth_token``, which hands a ``use_auth_token=`` value on as ``token=`` to a function that
    takes ``token``. The signature cannot show it; the release's own helper is run on a sentinel to see it."""
    if name != "use_auth_token" or "token" not in names:
        return False
    helper = "smoothly_deprecate_use_auth_token"
    fn, seen = getattr(obj, "__func__", obj), 0
    while fn is not None and seen < 10:  # the validator may sit under another decorator (@_deprecate_arguments)
        code = getattr(fn, "__code__", None)
        if code is not None and helper in code.co_names:
            break
        fn, seen = getattr(fn, "__wrapped__", None), seen + 1
    else:
        return False
    if fn is None:
        return False
    try:
        validators = importlib.import_module("huggingface_hub.utils._validators")
        out = getattr(validators, helper)(fn_name="f", has_token=False, kwargs={"use_auth_token": "sentinel"})
    except Exception:  # noqa: BLE001 - an old helper's other signature: not shown to pass it on
        return False
    return isinstance(out, dict) and out.get("token") == "sentinel" and "use_auth_token" not in out


def branch_binding(path: str) -> Optional[str]:
    """Where the walk from the longest importable module of ``path`` stops at a name that module binds
    only inside an if/try (``if is_diffusers_available(): from .trainer import DDPOTrainer``): that
    import statement, else None."""
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = sys.modules.get(".".join(parts[:cut]))
        if module is not None:
            return conditional_import(source_of(module), parts[cut])
    return None


def inspect_pair(kind: str, target: str, name: str) -> Dict[str, Any]:
    """The real answer for one pair, in this interpreter."""
    try:
        if kind == "export":
            return inspect_export(target, name)
        if kind == "param":
            return inspect_param(target, name)
        try:
            from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
        except Exception as exc:  # noqa: BLE001
            raise ImportFailure("transformers.models.auto.configuration_auto", exc) from exc
        return {"real": name in CONFIG_MAPPING_NAMES}
    except Exception as exc:  # noqa: BLE001 - reported as "could not inspect", never as agreement
        return failure(exc)


def source_of(module: Any) -> str:
    try:
        return inspect.getsource(module)
    except (OSError, TypeError):
        return ""


def conditional_import(source: str, name: str) -> Optional[str]:
    """The import statement that binds ``name`` only inside an ``if``/``try`` at module level
    (``if is_triton_available(): from triton.ops... import early_config_prune``), or None where
    ``name`` is bound unconditionally or not by an import at all."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    found: List[str] = []

    def visit(nodes: List[ast.stmt], nested: bool) -> bool:
        for node in nodes:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                bound = {(a.asname or a.name.split(".")[0]) for a in node.names}
                if name in bound:
                    if not nested:
                        return True
                    if not found:
                        found.append(ast.get_source_segment(source, node) or name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                targets = [node.name] if hasattr(node, "name") else [
                    t.id for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)]
                if name in targets and not nested:
                    return True
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                bodies = [node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])]
                bodies += [h.body for h in getattr(node, "handlers", [])]
                if any(visit(body, True) for body in bodies):
                    return True
        return False

    return None if visit(tree.body, False) else (found[0] if found else None)


def optional_dependency(module: Any, name: str) -> bool:
    """Whether ``module``'s source imports the top-level package ``name`` (``import boto3`` under
    ``if is_boto3_available():``) and that package is absent from this interpreter."""
    import importlib.util

    try:
        if importlib.util.find_spec(name) is not None:
            return False
        source = inspect.getsource(module)
    except (ImportError, OSError, TypeError, ValueError):
        return False
    return re.search(r"^\s*import %s\b|^\s*from %s\b" % (re.escape(name), re.escape(name)), source, re.MULTILINE) is not None


def installed_version(name: str) -> Optional[str]:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def main(specs_json: str) -> int:
    specs = json.loads(specs_json)
    answers = [inspect_pair(s["kind"], s["target"], s["name"]) for s in specs]
    libraries = {s["library"] for s in specs} | {"torch"}
    libraries |= {p for a in answers for p in a.get("packages", []) if p.replace("_", "").isalnum()}
    versions = {lib: installed_version(lib) for lib in libraries}
    python = "%d.%d.%d" % sys.version_info[:3]
    print("KB-AGREEMENT " + json.dumps({"answers": answers, "versions": versions, "python": python}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))

"""Renames, moves and removals that a release states in its own source.

Also a message saying a default changed or will change (kind "default": torch 2.6's "we changed the
default value of the `weights_only` argument in `torch.load` from `False` to `True`"), old = the parameter.

Read from: `@deprecate_kwarg("old", new_name="new", version=...)` decorators; warnings and log
messages (`warnings.warn`, `logger.warning(_once)`) and raised errors whose text says something is
deprecated, removed, renamed or moved ("`evaluation_strategy` is deprecated ... Use `eval_strategy`
instead"). Each fact names its owner (the public class or function whose code states it), the old
name, the new one when the text gives it, and the message as written.
"""

from __future__ import annotations

import ast
import re

from kb.apidrift.deprecation_text import _QUOTED, _STOP, parse_message
from kb.apidrift.params import (
    _field_names,
    deprecated_kwargs,
    function_params,
    kwargs_read,
)
from kb.apidrift.wheel import string_value
from kb.knowledge.tables import libraries

_SIGNAL = re.compile(r"deprecat|will be removed|has been removed|was removed|no longer (?:supported|accepted|used)|renamed|has moved|been moved"
                     r"|default value|changed the default|default (?:will|has|is now)", re.IGNORECASE)
# a default that changed or will change: "we changed the default value of the `weights_only` argument in
# `torch.load` from `False` to `True`", "the default of `use_reentrant` will change to False"
_DEFAULT = re.compile(r"(?:chang\w* (?:the |its )?default|default (?:value )?(?:of|for) .{0,80}?(?:chang|will be|will become|is now|from .{1,40} to)"
                      r"|default (?:will|has) (?:change|become|been changed))", re.IGNORECASE)
# a deprecated name a message opens with, unquoted, followed by "is deprecated": only a dotted name, one with an
# underscore, or a call ("sdp_kernel()"), never a plain word ("This is deprecated")
_UNQUOTED_OPENING = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Za-z]\w*_\w*|[A-Za-z_]\w*(?=\(\)))(?:\(\))?,?"
                               r" (?:is|was|has been) deprecated\b")
_WARN_FUNCS = {"warn", "warning", "warning_once", "warning_advice", "warn_once", "info_once"}


def _message_of(call: ast.Call) -> str | None:
    for arg in call.args[:1]:
        text = string_value(arg)
        if text:
            return " ".join(text.split())
    for kw in call.keywords:
        if kw.arg in ("msg", "message"):
            text = string_value(kw.value)
            if text:
                return " ".join(text.split())
    return None


class _Scope(ast.NodeVisitor):
    def __init__(self, module: str, public: dict[str, str]) -> None:
        self.module = module
        self.public = public  # defining "module.Name" -> public path
        self.stack: list[ast.AST] = []
        self.facts: list[dict] = []

    def owner(self) -> str:
        names = [n.name for n in self.stack if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))]
        if not names:
            return self.module
        head = f"{self.module}.{names[0]}"
        head = self.public.get(head, head)
        rest = [n for n in names[1:] if n not in ("__init__", "__post_init__")]
        return ".".join([head] + rest)

    def accepted(self) -> list[str]:
        """Parameter names of the innermost function (fields for a dataclass's __post_init__)."""
        func = next((n for n in reversed(self.stack) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
        cls = next((n for n in reversed(self.stack) if isinstance(n, ast.ClassDef)), None)
        names: list[str] = []
        if func is not None:
            names, _ = function_params(func, method=True)
            if func.args.kwarg:
                names += kwargs_read(func, func.args.kwarg.arg)
            if func.name in ("__post_init__", "__init__") and cls is not None:
                names += _field_names(cls)
        return names

    def _deprecated_decorator(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        """`@deprecated("...")` (typing_extensions / warnings): the decorated function or class itself."""
        for deco in node.decorator_list:
            if isinstance(deco, ast.Call) and ast.unparse(deco.func).split(".")[-1] == "deprecated" and deco.args:
                message = string_value(deco.args[0])
                if message:
                    message = " ".join(message.split())
                    _old, new = parse_message(message, old=node.name)
                    self.facts.append({"kind": "name", "owner": self.owner(), "old": node.name,
                                       "new": new, "message": message[:400]})

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.stack.append(node)
        self._deprecated_decorator(node)
        for old, new, version, _call in deprecated_kwargs(node):
            self.facts.append({"kind": "param", "owner": self.owner(), "old": old, "new": new,
                               "message": f"deprecate_kwarg({old!r}, new_name={new!r}, version={version!r})"})
        for deco in node.decorator_list:
            # huggingface_hub's @_deprecate_arguments(version=..., deprecated_args=[...], custom_message=...)
            if isinstance(deco, ast.Call) and ast.unparse(deco.func).split(".")[-1] == "_deprecate_arguments":
                kw = {k.arg: k.value for k in deco.keywords if k.arg}
                args = kw.get("deprecated_args")
                names = [string_value(e) for e in getattr(args, "elts", [])]
                text = string_value(kw["custom_message"]) if "custom_message" in kw else None
                version = string_value(kw["version"]) if "version" in kw else None
                for old in filter(None, names):
                    message = f"{old!r} is deprecated and will be removed in version {version}. {text or ''}".strip()
                    self.facts.append({"kind": "param", "owner": self.owner(), "old": old, "new": None,
                                       "message": message})
        self.generic_visit(node)
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.stack.append(node)
        self._deprecated_decorator(node)
        self.generic_visit(node)
        self.stack.pop()

    def visit_Call(self, node: ast.Call) -> None:
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name in _WARN_FUNCS or name.endswith(("Error", "Warning", "Exception")):
            self._fact(node)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        """A message kept in a variable before it is raised (torch 2.6's weights_only text)."""
        text = string_value(node.value)
        if text and _DEFAULT.search(text):
            self._default_fact(" ".join(text.split()))
        self.generic_visit(node)

    def _default_fact(self, message: str) -> None:
        quoted = [q for q in _QUOTED.findall(message) if q.lower() not in _STOP and q not in ("True", "False", "None")]
        package = self.module.split(".")[0]
        owner = next((q for q in quoted if q.startswith(package + ".")), self.owner())
        old = next((q for q in quoted if "." not in q), None)
        if old:
            self.facts.append({"kind": "default", "owner": owner, "old": old, "new": None, "message": message[:400]})

    def _fact(self, call: ast.Call) -> None:
        message = _message_of(call)
        if not message or not _SIGNAL.search(message):
            return
        old, new = parse_message(message)
        called = None
        if not old:
            # a message that opens with the name it deprecates, unquoted: torch 2.3's "torch.backends.cuda.sdp_kernel()
            # is deprecated. ..." (2.4 quotes it), peft's "prepare_model_for_int8_training is deprecated ..."
            called = _UNQUOTED_OPENING.match(message)
            if called is None:
                return
            old = called.group(1).rsplit(".", 1)[-1]
            new = parse_message(message, old)[1]
        accepted = self.accepted()
        if _DEFAULT.search(message):
            self._default_fact(message)
            return
        if not re.search(r"deprecat|remov|no longer|renamed|moved", message, re.IGNORECASE):
            return  # "default value" alone: not a rename
        if called is not None:
            kind = "name"  # a callable or a name the message opens with, not a keyword
        elif old in accepted or re.search(r"\b(argument|parameter|kwarg|keyword)", message, re.IGNORECASE):
            kind = "param"
        elif "." in old and old.split(".")[0] in libraries("api_history"):
            kind = "module" if old.count(".") >= 1 and old.split(".")[-1].islower() else "name"
        else:
            kind = "name"
        self.facts.append({"kind": kind, "owner": self.owner(), "old": old, "new": new, "message": message[:400]})


def facts(tree: ast.Module, module: str, public: dict[str, str]) -> list[dict]:
    scope = _Scope(module, public)
    scope.visit(tree)
    return scope.facts

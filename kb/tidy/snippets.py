"""The fix code kb shows runs as pasted into a user's script.

A user copies three kinds of fix code: a case's ``[fix] snippet`` (the case page and `kb show` print it
first), the ```` ```python ```` blocks of a case's or family's ``## Fix`` section, and the code lines of a
fix template (what `kb diagnose` prints, here with every placeholder at its fallback). Each must:

- compile;
- use only names it defines or imports, Python's builtins, or :data:`USER_OBJECTS` (the few objects
  every training script has: a snippet that uses one says so by using that name);
- import nothing from ``kb`` (the case programs' helpers exist only in this repository);
- be a statement, not a keyword-argument fragment (``fsdp="full_shard",`` compiles as a tuple).

A ``[fix] snippet`` also stays tied to the run its evidence records: every library word it uses (an
attribute, a keyword argument, an imported name) appears in one of the case's fixed programs or in
the kb.fixtures helpers they import. The snippet may write out what a helper stands for
(``four_bit_config()`` becomes the ``BitsAndBytesConfig(...)`` the helper builds) and put real sizes
where the program builds a smaller model (``range(48)`` for a program's ``range(BUILT)``), and load from the
Hub what the program builds offline (:data:`STANDS_FOR`), but it cannot bring in an API the verified program
never called.
"""

from __future__ import annotations

import ast
import builtins
import re
import symtable
import textwrap
from dataclasses import dataclass
from pathlib import Path

from kb.diagnose.advice import with_fallbacks
from kb.knowledge.model import Case, Family

# The objects a fix may use without defining them: every fine-tuning script has them, under these
# names in the libraries' own documentation. Keep it short: anything else a snippet defines or imports.
USER_OBJECTS: dict[str, str] = {
    "model": "the model being trained or loaded (a transformers PreTrainedModel, or the PeftModel around one)",
    "tokenizer": "the model's tokenizer (AutoTokenizer.from_pretrained)",
    "dataset": "the training dataset (a datasets.Dataset)",
    "args": "the training arguments (TrainingArguments, or trl's SFTConfig)",
    "trainer": "the Trainer (or trl's SFTTrainer) built from them",
}

# A library word a snippet may use where the fixed program uses another: reproductions download nothing, so they
# build from a config what a user loads from the Hub.
STANDS_FOR = {"from_pretrained": "from_config"}

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"  # kb/fixtures: the case programs' helpers


@dataclass(frozen=True)
class Code:
    """One piece of fix code: where it is shown (``[fix] snippet``, ``## Fix block 2``, ``[fix] template``)
    and its source, dedented."""

    where: str
    source: str


_FENCE = re.compile(r"^```[ \t]*(\w*)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
_ITEM = re.compile(r"^(\s*)(?:[-*]|\d+[.)])\s+")
# A shell line in a fix text: `pip install ...`, `VAR=value python train.py`, `export VAR=value`.
_SHELL = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:pip3?|python3?|accelerate|torchrun|export|nvidia-smi|cat|dmesg|"
                    r"free|hf|huggingface-cli|deepspeed|git|conda|apt-get|kill|ps|ls|df|du)(?:\s|$)")
_CONTINUES = re.compile(r"^(?:else|elif|except|finally)\b")


def fenced_python(markdown: str) -> list[str]:
    """The ```python blocks of a markdown text, dedented."""
    return [textwrap.dedent(body) for lang, body in _FENCE.findall(markdown) if lang == "python"]


def _compiles(source: str) -> bool:
    try:
        compile(source, "<fix>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def template_code(text: str) -> list[str]:
    """The Python in a fix text: each run of lines indented as code (4+ spaces, and deeper than the text of the
    list item they follow), split into pieces that compile and shell lines (left out). A run that does not
    compile is returned whole, so that the name check reports it."""
    runs: list[list[str]] = []
    item_column, previous_code = 0, False
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip())
        if not line.strip():
            previous_code = False
            continue
        item = _ITEM.match(line)
        is_code = indent >= 4 and indent >= item_column + 2 and item is None
        if is_code:
            if not previous_code:
                runs.append([])
            runs[-1].append(line)
        else:
            item_column = len(item.group(0)) if item else indent
        previous_code = is_code
    out: list[str] = []
    for run in runs:
        whole = textwrap.dedent("\n".join(run))
        if _compiles(whole):
            out.append(whole)
            continue
        piece: list[str] = []
        for line in textwrap.dedent("\n".join(run)).splitlines():
            if not piece and _SHELL.match(line.strip()):
                continue
            if piece and _compiles(textwrap.dedent("\n".join(piece))) and not (
                    line[:1].isspace() or _CONTINUES.match(line)):
                out.append(textwrap.dedent("\n".join(piece)))
                piece = []
                if _SHELL.match(line.strip()):
                    continue
            piece.append(line)
        if piece:
            out.append(textwrap.dedent("\n".join(piece)))
    return out


def fix_code(entry: Case | Family) -> list[Code]:
    """Every piece of fix code the entry shows a user."""
    out: list[Code] = []
    if isinstance(entry, Case) and entry.fix_snippet.strip():
        out.append(Code("[fix] snippet", textwrap.dedent(entry.fix_snippet).strip("\n") + "\n"))
    for i, block in enumerate(fenced_python(entry.sections.get("Fix", "")), start=1):
        out.append(Code(f"## Fix, python block {i}", block))
    for i, piece in enumerate(template_code(with_fallbacks(entry.fix_template)), start=1):
        out.append(Code(f"[fix] template, code {i}", piece))
    return out


def _undefined(table: symtable.SymbolTable, bound: set[str], known: set[str]) -> list[str]:
    found = []
    top = table.get_type() == "module"
    for symbol in table.get_symbols():
        name = symbol.get_name()
        if not symbol.is_referenced() or name in bound or name in known:
            continue
        if top or symbol.is_global():
            found.append(name)
    for child in table.get_children():
        found += _undefined(child, bound, known)
    return found


_KNOWN = set(dir(builtins)) | set(USER_OBJECTS)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_COMPOUND = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith, ast.Try)


def _module_level(node: ast.AST) -> list[ast.AST]:
    """The nodes of a statement that run when it runs: not the bodies of the functions it defines."""
    out, todo = [], [node]
    while todo:
        current = todo.pop()
        out.append(current)
        if isinstance(current, _NESTED):  # its decorators and defaults run now, its body later
            todo.extend(getattr(current, "decorator_list", []))
            arguments = current.args if not isinstance(current, ast.ClassDef) else None
            if arguments is not None:
                todo.extend([*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)])
            continue
        if isinstance(current, _COMPREHENSIONS):  # only its first iterable runs in the enclosing scope
            todo.append(current.generators[0].iter)
            continue
        todo.extend(ast.iter_child_nodes(current))
    return out


def _binds(statement: ast.stmt) -> set[str]:
    out: set[str] = set()
    for node in _module_level(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node is statement:
            out.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
    return out


def _used_before_defined(tree: ast.Module, names: set[str]) -> list[str]:
    """Module-level names of ``names`` a statement reads before any earlier statement binds them
    (``dataset = dataset.map(...)`` in a snippet that never made ``dataset``)."""
    defined, out = set(_KNOWN), []
    for statement in tree.body:
        binds = _binds(statement)
        for node in _module_level(statement):
            loads = isinstance(node, ast.Name) and (isinstance(node.ctx, ast.Load) or any(
                isinstance(parent, ast.AugAssign) and parent.target is node for parent in [statement]))
            if not loads or node.id not in names or node.id in defined:
                continue
            if node.id in binds and isinstance(statement, _COMPOUND):
                continue  # a loop or a with that binds it before its body reads it
            out.append(node.id)
        defined |= binds
    return out


def code_problems(source: str) -> list[str]:
    """Why ``source`` would not run as pasted into a user's script (see the module's docstring); [] when it would."""
    try:
        tree = ast.parse(source)
        compile(source, "<fix>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return [f"does not compile: {exc.msg} (line {exc.lineno}: {(exc.text or '').strip()!r})"]
    out = []
    top = symtable.symtable(source, "<fix>", "exec")
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    names = list(dict.fromkeys(_undefined(top, bound, _KNOWN) + _used_before_defined(tree, bound)))
    if names:
        out.append(f"uses {', '.join(names)}, which it neither defines nor imports before (a user's script has "
                   f"only what it imports, builtins and {', '.join(USER_OBJECTS)})")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom | ast.Import):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            for module in modules:
                if module == "kb" or module.startswith("kb."):
                    out.append(f"imports {module}, the case programs' helpers (write out what they do)")
    for statement in tree.body:
        if (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)
                and isinstance(statement.value, ast.Tuple) and len(statement.value.elts) == 1):
            out.append(f"line {statement.lineno} is a keyword-argument fragment ({statement.targets[0].id}=...,): "
                       "write the call it belongs to")
    return out


def words(tree: ast.AST) -> set[str]:
    """The library words of code: attributes, keyword arguments, imported names and modules."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.keyword) and node.arg:
            out.add(node.arg)
        elif isinstance(node, ast.ImportFrom):
            out.update((node.module or "").split("."))
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(part for a in node.names for part in a.name.split("."))
    return out - {""}


def program_words(source: str) -> set[str]:
    """Every identifier of a program (names, attributes, keywords, definitions, imports) and of the kb.fixtures
    modules it imports; comments and strings do not count."""
    tree = ast.parse(source)
    out = words(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kb.fixtures"):
            modules = [node.module.split(".")[2]] if node.module.count(".") >= 2 else [a.name for a in node.names]
            for module in modules:
                helper = FIXTURES / f"{module}.py"
                if helper.is_file():
                    out |= program_words(helper.read_text(encoding="utf-8"))
    return out


def snippet_problem(case: Case) -> str | None:
    """Why the case's [fix] snippet is not tied to its fixed programs (see the module's docstring), or None."""
    if not case.reproductions:  # nothing verified to copy from (unreproduced): no snippet may claim a fix
        if case.fix_snippet.strip():
            return "[fix] snippet given, but the case has no fixed program to copy it from (no reproduction)"
        return None
    snippet = textwrap.dedent(case.fix_snippet).strip("\n")
    if not snippet.strip():
        return "[fix] snippet is missing (the few lines of the fixed program that are the fix)"
    try:
        tree = ast.parse(snippet)
    except SyntaxError:
        return None  # code_problems reports it
    names = dict.fromkeys(rep.fixed for rep in case.reproductions)
    known: set[str] = set()
    try:
        for name in names:
            known |= program_words(case.program_source(name))
    except (OSError, UnicodeDecodeError, SyntaxError) as exc:
        return f"[fix] snippet cannot be checked: a fixed program cannot be read ({exc})"
    absent = sorted(w for w in words(tree) - known if STANDS_FOR.get(w) not in known)
    if absent:
        return (f"[fix] snippet uses {', '.join(absent)}, which {' and '.join(names)} never use"
                f"{'s' if len(names) == 1 else ''}: the snippet must be the fix the recorded run verified")
    return None


def fix_code_problems(entry: Case | Family) -> list[str]:
    """Every problem of every piece of the entry's fix code, each starting with where it is."""
    return [f"{code.where}: {message}" for code in fix_code(entry) for message in code_problems(code.source)]

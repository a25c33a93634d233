"""Turn 50 (drift50, issue #25): names a compiled module's .pyi stub declares that the compiled module does not bind.

torch 2.12.0's `torch/_C/__init__.pyi` declares `class Def(TreeView)` in its "Defined in
torch/csrc/jit/python/python_tree_views.cpp" section, a repeat of `torch/_C/_jit_tree_views.pyi`; the compiled torch._C
has no `Def` (torch._C._jit_tree_views has), so `torch.Def` (star-imported by torch/__init__.py) does not exist. The
same stub's `T = TypeVar("T")` and `Stack: TypeAlias = list[IValue]` exist for a type checker only. The history records
neither kind: they are not exports of torch._C nor of what star-imports it.
"""

from __future__ import annotations

import ast
import zipfile
from pathlib import Path

from kb.apidrift.exports import ModuleIndex, defined_in_sections, section_at, stub_typing_assignment
from kb.apidrift.wheel import Wheel

PACKAGE_STUB = '''
from typing import Any, List, TypeVar, ParamSpec
from typing_extensions import TypeAlias
import typing

K = TypeVar("K")
T = TypeVar("T")
P = ParamSpec("P")
NT = typing.NewType("NT", int)
ResolutionCallback: TypeAlias = Any
Alias = Any  # a bare name: the stub cannot tell an alias from a constant, so it stays
OldStack = List[Any]  # a subscripted type: an old-style alias

# Defined in torch/csrc/Device.cpp
class device: ...

# Defined in torch/csrc/Event.cpp
class Event: ...

# Defined in torch/csrc/jit/python/python_ir.cpp
class IValue: ...
Stack: TypeAlias = list[IValue]

# Defined in torch/csrc/jit/python/python_tree_views.cpp
class SourceRange: ...
class TreeView: ...
class Def(TreeView):
    def name(self) -> Any: ...
def parse_tree() -> TreeView: ...
class OnlyHere: ...

# Defined in torch/csrc/profiler/init.cpp
class CapturedTraceback: ...

def get_default_dtype() -> Any: ...
'''

FILES = {
    "torch/__init__.py": "from torch._C import *\nfrom typing import TypeVar\nT = TypeVar('T')\n",
    "torch/_C/__init__.pyi": PACKAGE_STUB,
    # the submodule that binds the tree views: the same "Defined in" file
    "torch/_C/_jit_tree_views.pyi": ('# Defined in torch/csrc/jit/python/python_tree_views.cpp\n'
                                     'class SourceRange: ...\nclass TreeView: ...\nclass Def(TreeView): ...\n'
                                     'def parse_tree() -> TreeView: ...\n'),
    # another file binds the submodule's Event: the package's own Event stays
    "torch/_C/_monitor.pyi": "# Defined in torch/csrc/monitor/python_init.cpp\nclass Event: ...\n",
    # a submodule stub naming no file (the profiler's comment names python/init.cpp, not init.cpp): nothing moves
    "torch/_C/_profiler.pyi": "# defined in torch/csrc/profiler/python/init.cpp\nclass CapturedTraceback: ...\n",
    # not a module at run time, and no "Defined in" comment: its repeats stay the package's
    "torch/_C/_VariableFunctions.pyi": "from typing import Any\ndef get_default_dtype() -> Any: ...\n",
}


def _index(tmp_path: Path, files: dict[str, str], runtime: bool = True) -> ModuleIndex:
    path = tmp_path / "torch-2.12.0-cp312-none-macosx_11_0_arm64.whl"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return ModuleIndex(Wheel(path, "torch"), runtime=runtime)


def test_a_stubs_typevars_and_type_aliases_are_no_exports(tmp_path: Path) -> None:
    index = _index(tmp_path, FILES)
    exports = index.exports("torch._C")
    for name in ("K", "T", "P", "NT", "ResolutionCallback", "Stack", "OldStack"):
        assert name not in exports, name
    assert {"Alias", "device", "IValue", "get_default_dtype"} <= exports


def test_a_package_stubs_repeat_of_a_submodule_section_is_no_export_of_the_package(tmp_path: Path) -> None:
    index = _index(tmp_path, FILES)
    exports = index.exports("torch._C")
    assert not {"SourceRange", "TreeView", "Def", "parse_tree"} & exports
    # a name of the same section that the submodule stub does not declare stays: only repeats move
    assert "OnlyHere" in exports
    # the submodule keeps them
    assert {"SourceRange", "TreeView", "Def", "parse_tree"} <= index.exports("torch._C._jit_tree_views")


def test_another_file_or_no_file_keeps_the_package_stubs_name(tmp_path: Path) -> None:
    exports = _index(tmp_path, FILES).exports("torch._C")
    assert "Event" in exports  # _monitor's Event is bound by another C++ file
    assert "CapturedTraceback" in exports  # the profiler stub names python/init.cpp: the rule does not fire
    assert "get_default_dtype" in exports  # _VariableFunctions.pyi names no file


def test_the_star_import_of_the_stub_brings_none_of_them_but_the_top_levels_own_typevar_stays(tmp_path: Path) -> None:
    exports = _index(tmp_path, FILES).exports("torch")
    assert not {"Def", "TreeView", "SourceRange", "parse_tree", "K", "P", "Stack", "ResolutionCallback"} & exports
    assert {"device", "Event", "IValue", "OnlyHere", "get_default_dtype"} <= exports
    assert "T" in exports  # torch/__init__.py's own `T = TypeVar('T')` is a real attribute of a .py module


def test_without_runtime_exports_the_rule_is_off(tmp_path: Path) -> None:
    # libraries read without `runtime_exports` keep every binding, as before
    assert {"Def", "T", "Stack"} <= _index(tmp_path, FILES, runtime=False).exports("torch._C")


def test_the_helpers() -> None:
    tree = ast.parse("T = TypeVar('T')\nX: TypeAlias = int\nY: 'int' = 3\nZ = make()\nW = typing.ParamSpec('W')\n"
                     "V = List[int]\nU = int\n")
    assert [stub_typing_assignment(n) for n in tree.body] == [True, True, False, False, True, True, False]
    sections = defined_in_sections("a = 1\n# Defined in x.cpp\nb = 2\n# defined in y.cpp\nc = 3\n")
    assert sections == [(2, "x.cpp"), (4, "y.cpp")]
    assert [section_at(sections, line) for line in (1, 3, 5)] == [None, "x.cpp", "y.cpp"]


# --- the shipped history, corrected by scripts/apidrift_stub_names.py (the same rule, read from each release's stubs) ---

def _script():
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "scripts" / "apidrift_stub_names.py"
    spec = importlib.util.spec_from_file_location("apidrift_stub_names", path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def test_the_script_finds_the_names_the_rule_hides_in_the_stub_and_the_top_level() -> None:
    members = {name: text.encode() for name, text in FILES.items()
               if name == "torch/__init__.py" or name.startswith("torch/_C/")}
    hidden = _script().hidden_names(members)
    # read with the targets' stub_sections: the whole python_tree_views.cpp section is _jit_tree_views', OnlyHere too
    stub_only = {"K", "T", "P", "NT", "ResolutionCallback", "Stack", "OldStack", "SourceRange", "TreeView", "Def",
                 "parse_tree", "OnlyHere"}
    assert hidden["torch._C"] == stub_only
    # torch/__init__.py binds its own T: only the stub's names leave the top level
    assert hidden["torch"] == stub_only - {"T"}


def test_the_rewrite_removes_only_the_given_release_and_keeps_the_rest() -> None:
    import base64
    import json
    import zlib

    from kb.apidrift.history import unpack

    exports = {"torch": {"0-2": "Def Generator T"}, "torch._C": {"0-2": "Def Generator T"}, "torch.nn": {"0-2": "Linear"}}
    data = {"index": {"torch": ["2.11.0", "2.12.0", "2.13.0"]},
            "libraries": {"torch": {"exports": "zlib+base64:" + base64.b64encode(zlib.compress(json.dumps(exports).encode())).decode()}}}
    removed = _script().rewrite(data, {"2.12.0": {"torch": {"Def", "T"}, "torch._C": {"Def"}}})
    assert removed == {"torch._C": 1, "torch": 2}
    table = unpack(data["libraries"]["torch"])["exports"]
    assert table["torch"] == {"0-2": "Generator", "0,2": "Def T"}
    assert table["torch._C"] == {"0-2": "Generator T", "0,2": "Def"}
    assert table["torch.nn"] == {"0-2": "Linear"}


def test_the_shipped_history_records_no_stub_only_name_of_torch() -> None:
    from kb.apidrift.history import load_history

    h = load_history()
    # the agreement check's seed-49 disagreement: torch 2.12.0 `torch.Def` (checked against the real 2.12.0: absent)
    assert "Def" not in h.exports("torch", "torch", "2.12.0")
    assert "Def" not in h.exports("torch", "torch._C", "2.12.0")
    assert "Def" in h.exports("torch", "torch._C._jit_tree_views", "2.12.0")
    for name in ("T", "K", "R", "S", "P", "Stack", "TreeView", "ResolutionCallback", "JitTypeT", "ReturnVal"):
        assert h.export_versions("torch", "torch", name) == [], name
    # what the compiled module does bind stays
    assert "2.12.0" in h.export_versions("torch", "torch", "Generator")
    assert "Event" in h.exports("torch", "torch", "2.12.0")


def test_a_release_without_the_submodule_stub_is_read_with_the_targets_stub_sections(tmp_path: Path) -> None:
    # torch 1.7.0-2.8.0: the tree views only in __init__.pyi, no _jit_tree_views.pyi; the targets name the file's submodule
    files = {n: t for n, t in FILES.items() if n != "torch/_C/_jit_tree_views.pyi"}
    path = tmp_path / "torch-1.12.0-cp310-none-macosx_11_0_arm64.whl"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    plain = ModuleIndex(Wheel(path, "torch"), runtime=True)
    assert {"Def", "TreeView", "OnlyHere"} <= plain.exports("torch._C")  # without the data: no evidence, no change
    from kb.apidrift.history import targets

    ruled = ModuleIndex.for_spec(Wheel(path, "torch"), targets()["torch"])
    assert not {"SourceRange", "TreeView", "Def", "parse_tree", "OnlyHere"} & ruled.exports("torch._C")
    assert not {"Def", "OnlyHere"} & ruled.exports("torch")
    assert {"device", "Event", "CapturedTraceback"} <= ruled.exports("torch")


# --- untracked callables dated from the wheels ([[param]] rows of tables/api-history-before.toml), item 4 ---

def _answer(text: str) -> str:
    """The top answer's document as JSON text (as benchmarks/drift_answers.py grades it)."""
    import json

    from kb.diagnose.diagnosis import diagnose_lines
    from kb.diagnose.document import answer_document
    from kb.knowledge.registry import load_knowledge

    knowledge = load_knowledge()
    answers = diagnose_lines(text.splitlines(), knowledge).answers
    assert answers, text
    m = answers[0].match
    doc = answer_document(answers[0], frozenset(knowledge.api_history_families))
    return json.dumps({**doc, "family": m.entry.family}, ensure_ascii=False)


def test_a_keyword_dropped_while_the_method_stays_names_the_release_and_no_replacement() -> None:
    from kb.apidrift.history import load_history

    h = load_history()
    present, accepted = h.param_versions("transformers", "transformers.PushToHubMixin.push_to_hub", "safe_serialization")
    assert "5.0.0" in present and "5.24.0" in present  # the method stays
    assert accepted[0] == "4.30.0" and accepted[-1] == "4.57.6"
    doc = _answer("TypeError: PushToHubMixin.push_to_hub() got an unexpected keyword argument 'safe_serialization'")
    assert "api-drift" in doc and "<5.0" in doc and "no replacement recorded" in doc


def test_a_rows_rename_is_the_answers_replacement() -> None:
    doc = _answer("TypeError: add_code_sample_docstrings() got an unexpected keyword argument 'tokenizer_class'")
    assert "processor_class" in doc and "4.12.0" in doc
    assert "PT_SPEECH_SEQ_CLASS_SAMPLE" not in doc  # the newcomer guess gives way to the recorded rename

"""Turn 44 (drift44): a module that only imports a name is not the name's home (kb/apidrift/aliases.py).

drift-63's CompletionFormer#28 ("cannot import name 'container_abcs' from 'torch._six'") was answered "port: from
torch.nn.modules.container import container_abcs": the history records every name a module binds, imports included,
and torch 2.x's container module binds `container_abcs` by `from collections import abc as container_abcs`."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from kb.apidrift import aliases
from kb.apidrift.answer import _homes, _outside_home
from kb.apidrift.history import load_history
from kb.diagnose.drift import drift_section


def _wheel(tmp_path: Path, files: dict[str, str]) -> Path:
    path = tmp_path / "peft-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


def test_the_scan_tells_imports_from_outside_and_inside_the_library_from_definitions(tmp_path: Path) -> None:
    path = _wheel(tmp_path, {
        "peft/__init__.py": "",
        "peft/a.py": ("from collections import OrderedDict, abc as container_abcs\n"
                      "import collections.abc as cabc\n"
                      "from peft.b import Thing\n"
                      "def own():\n    pass\n"),
        "peft/b.py": "class Thing:\n    pass\n",
    })
    found = aliases.scan("peft", path)
    assert found["external"]["peft.a"] == {"OrderedDict": "collections.OrderedDict",
                                           "cabc": "collections.abc", "container_abcs": "collections.abc"}
    assert found["imported"]["peft.a"] == ["Thing"]
    assert "peft.b" not in found["imported"] and "peft.b" not in found["external"]  # Thing is b's own


class _History:
    """The exports of one made-up release: `Thing` defined in lib.b, re-exported by lib.a (listed first); `Other`
    defined in lib.d.e, re-exported by the top level and by lib.a."""

    def exporting_modules(self, lib: str, name: str, version: str) -> list[str]:
        return {"Thing": ["lib.a", "lib.b"], "cabc": ["lib.c"], "Other": ["lib", "lib.a", "lib.d.e"]}.get(name, [])


def test_homes_put_the_defining_module_first_and_leave_out_aliases_of_other_packages(monkeypatch) -> None:
    table = {"libraries": {"lib": {"version": "1.0", "external": {"lib.c": {"cabc": "collections.abc"}},
                                   "imported": {"lib.a": ["Thing", "Other"], "lib": ["Other"]}}}}
    monkeypatch.setattr(aliases, "_table", lambda: table)
    assert _homes(_History(), "lib", "Thing", "1.0", None) == (["lib.b", "lib.a"], {})
    # a package that re-exports what one of its own modules defines keeps its place: that is the public spelling
    assert _homes(_History(), "lib", "Other", "1.0", None) == (["lib", "lib.d.e", "lib.a"], {})
    assert _homes(_History(), "lib", "cabc", "1.0", None) == ([], {"lib.c": "collections.abc"})
    assert _outside_home({"lib.c": "collections.abc"}) == ("collections", "abc")
    assert _outside_home({"lib.c": "collections.abc", "lib.d": "typing.Any"}) is None
    # a table read from another release says nothing about this one
    assert _homes(_History(), "lib", "cabc", "2.0", None) == (["lib.c"], {})


def test_container_abcs_is_told_to_be_collections_abc_not_a_torch_internal() -> None:
    section = drift_section("ImportError", "cannot import name 'container_abcs' from 'torch._six'")
    assert section is not None and section["removed_in"] == "1.9.0"
    assert any(fix.endswith("from collections import abc as container_abcs") for fix in section["fixes"])
    assert not any("torch.nn.modules.container" in fix for fix in section["fixes"])


@pytest.mark.parametrize("lib", load_history().libraries())
def test_the_alias_table_was_read_from_the_latest_release_the_history_covers(lib: str) -> None:
    # a rebuilt history with a newer release needs `python -m kb.apidrift.aliases build` again: the answers read the
    # table only for the release it was read from
    assert aliases.scanned_version(lib) == load_history().versions(lib)[-1]


def test_a_torch_function_kept_as_a_raising_stub_is_api_drift_with_its_cause_first() -> None:
    # drift-66 pytorch_geometric#7670 and anfis-pytorch#6 were silent: torch/_linalg_utils.py's stubs (solve from 1.12.0,
    # lstsq, eig and matrix_rank from 1.13.0) raise a RuntimeError that names the replacement
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.diagnose.document import diagnosis_document
    from kb.knowledge.registry import load_knowledge

    text = ('  File "/usr/lib/python3.10/site-packages/torch/_linalg_utils.py", line 104, in solve\n'
            "    raise RuntimeError(\n"
            "RuntimeError: This function was deprecated since version 1.9 and is now removed. "
            "Please use the `torch.linalg.solve` function instead.\n")
    doc = diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_knowledge()))
    top = doc["matches"][0]
    assert top.get("family", top.get("slug")) == "api-drift"
    assert "stub that raises" in str(doc)
    other = "RuntimeError: This function was deprecated since version 1.9 and will be removed in 2.0\n"
    claimed = diagnosis_document(diagnose_lines([other], load_knowledge()))["matches"]
    assert not claimed or claimed[0].get("family", claimed[0].get("slug")) != "api-drift"

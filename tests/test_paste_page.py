"""The paste/ page's build side (kb/site/paste_page.py): the pinned Pyodide, kb's wheel with its knowledge,
and the runtime in both site builds. The page in a browser: tests/test_paste_page_browser.py."""

from __future__ import annotations

import json
import os
import shutil
import time
import zipfile
from pathlib import Path

import pytest

from kb.knowledge.registry import all_cases, all_families
from kb.site import paste_page
from kb.site.paste_page import MANIFEST, PYODIDE_FILES, RUNTIME_DIR

REPO = Path(__file__).resolve().parents[1]


def _runtime_or_skip() -> dict[str, Path]:
    """The runtime files, or a skip where npm is missing (a failure where KB_REQUIRE_BROWSER is set: CI)."""
    try:
        return paste_page.runtime_files(REPO)
    except paste_page.RuntimeUnavailable as exc:
        if os.environ.get("KB_REQUIRE_BROWSER"):
            pytest.fail(f"KB_REQUIRE_BROWSER is set but {exc}")
        pytest.skip(str(exc))


def test_pyodide_is_pinned_to_one_314_release() -> None:
    """package.json names one exact 314.x release and package-lock.json locks that one, with its hash."""
    wanted = json.loads((REPO / "package.json").read_text(encoding="utf-8"))["dependencies"]["pyodide"]
    lock = json.loads((REPO / "package-lock.json").read_text(encoding="utf-8"))
    entry = lock["packages"]["node_modules/pyodide"]
    assert wanted.split(".")[0] == "314" and wanted.replace(".", "").isdigit(), wanted  # exact, no range
    assert entry["version"] == wanted == paste_page.locked_pyodide(REPO)
    assert entry["integrity"].startswith("sha512-")
    assert lock["packages"][""]["dependencies"]["pyodide"] == wanted


def test_runtime_is_the_locked_pyodide_and_a_wheel_that_carries_the_knowledge() -> None:
    files = _runtime_or_skip()
    assert set(files) == {f"{RUNTIME_DIR}/{n}" for n in PYODIDE_FILES} | {f"{RUNTIME_DIR}/{MANIFEST}"} | {
        p for p in files if p.endswith(".whl")}
    manifest = json.loads(files[f"{RUNTIME_DIR}/{MANIFEST}"].read_text(encoding="utf-8"))
    assert manifest["pyodide"] == paste_page.locked_pyodide(REPO)
    installed = json.loads((REPO / "node_modules" / "pyodide" / "package.json").read_text(encoding="utf-8"))
    assert installed["version"] == manifest["pyodide"]
    wheel = files[f"{RUNTIME_DIR}/{manifest['wheel']}"]
    assert manifest["files"][wheel.name] == wheel.stat().st_size
    names = set(zipfile.ZipFile(wheel).namelist())
    for case in all_cases():
        assert f"kb/_knowledge/cases/{case.folder_name}/case.md" in names
    for family in all_families():
        assert any(n.startswith("kb/_knowledge/families/") and family.name in n for n in names), family.name
    assert {"kb/cli/__init__.py", "kb/diagnose/diagnosis.py", "kb/render/diagnosis.py"} <= names
    assert any(n.startswith("kb/_knowledge/tables/") for n in names)


def test_the_wheel_is_rebuilt_when_an_input_changes(tmp_path: Path) -> None:
    """The cache key follows every file the wheel is built from, and only those."""
    for name in ("kb", "cases", "families"):
        (tmp_path / name).mkdir()
    (tmp_path / "kb" / "x.py").write_text("a = 1\n", encoding="utf-8")
    (tmp_path / "cases" / "case.md").write_text("one\n", encoding="utf-8")
    before = paste_page.wheel_key(tmp_path)
    (tmp_path / "kb" / "__pycache__").mkdir()
    (tmp_path / "kb" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("not in the wheel\n", encoding="utf-8")
    assert paste_page.wheel_key(tmp_path) == before
    time.sleep(0.01)
    (tmp_path / "cases" / "case.md").write_text("two\n", encoding="utf-8")
    assert paste_page.wheel_key(tmp_path) != before


def test_without_npm_the_site_is_built_without_the_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """No npm and no node_modules: the build goes on without the runtime and says why on one line."""
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(REPO / "package-lock.json", repo)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert paste_page.copy_runtime(repo, tmp_path / "docs") == []
    assert not (tmp_path / "docs").exists()
    err = capsys.readouterr().err
    assert "npm is not installed" in err and paste_page.locked_pyodide(REPO) in err


def test_both_builds_carry_the_page_and_its_runtime(real_site_dir: Path, zensical_site_dir: Path) -> None:
    files = _runtime_or_skip()
    for site in (real_site_dir, zensical_site_dir):
        html = (site / "paste" / "index.html").read_text(encoding="utf-8")
        assert 'id="kb-paste-input"' in html and 'src="paste.js"' in html, site
        assert (site / "paste" / "paste.js").read_bytes() == (REPO / "docs" / "paste" / "paste.js").read_bytes()
        for rel, path in files.items():
            assert (site / rel).read_bytes() == path.read_bytes(), f"{site}: {rel}"
        home = (site / "index.html").read_text(encoding="utf-8")
        assert "paste/" in home  # the nav and the home page link it

"""`kb new` (kb/knowledge/scaffold.py): checks before it writes, writes only in the cases folder, undoes a
failure, and says where it wrote and what comes next."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest

from kb.cli import main
from kb.knowledge.load import ID_PATTERN, load_case
from kb.knowledge.paths import CHECKOUT_ROOT
from kb.knowledge.scaffold import DEV_MANIFEST, ScaffoldError, checkout_dev_manifest, new_case, next_id

REPO = Path(CHECKOUT_ROOT)
SOURCE = REPO / "cases" / "KB0001-dtype-double-vs-float"


def _tree(path: Path) -> dict[str, bytes]:
    """Every file under ``path`` with its bytes (what a failed `kb new` must leave as it was)."""
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A cases folder holding KB0001 only."""
    cases = tmp_path / "cases"
    shutil.copytree(SOURCE, cases / SOURCE.name)
    return cases


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    path = tmp_path / "manifest.toml"
    path.write_text("# dev set\n", encoding="utf-8")
    return path


def test_kb_new_scaffolds_a_case_that_loads(root: Path, manifest: Path) -> None:
    folder = new_case("my-new-failure", "dtype-mismatch", root, manifest)
    assert folder.name == "KB0002-my-new-failure"
    case = load_case(folder)
    assert (case.id, case.slug, case.family) == ("KB0002", "my-new-failure", "dtype-mismatch")
    assert case.reproductions[0].hardware == ("cpu",)  # inherited from the case
    assert 'expect = "my-new-failure"' in manifest.read_text(encoding="utf-8")


def test_ids_are_kb_and_four_ascii_digits() -> None:
    assert ID_PATTERN.match("KB0099")
    for bad in ("KB٠٠٩٩", "KB００９９", "KB0099\n", "KB099", "KB00999", "kb0099"):
        assert not ID_PATTERN.match(bad), bad


@pytest.mark.parametrize("case_id", ["KB٠٠٩٩", "KB0099\n", "KB99", "KB0001"])
def test_an_unusable_or_taken_id_writes_nothing(root: Path, manifest: Path, case_id: str) -> None:
    before = _tree(root.parent)
    with pytest.raises(ScaffoldError, match="is not KB followed by four ASCII digits|is taken"):
        new_case("my-new-failure", "dtype-mismatch", root, manifest, case_id)
    assert _tree(root.parent) == before


def test_a_slug_with_a_trailing_newline_is_refused(root: Path, manifest: Path) -> None:
    before = _tree(root.parent)
    with pytest.raises(ScaffoldError, match="is not kebab-case"):
        new_case("my-failure\n", "dtype-mismatch", root, manifest)
    assert _tree(root.parent) == before


def test_a_slug_too_long_for_a_folder_name_is_refused_in_one_line(root: Path, manifest: Path, capsys) -> None:
    """audit49: a 6,000-character slug gave the OS's "File name too long" with an absolute path."""
    before = _tree(root.parent)
    with pytest.raises(ScaffoldError, match=r"the slug is 6,000 characters: at most 80"):
        new_case("a-" * 2999 + "aa", "dtype-mismatch", root, manifest)
    assert _tree(root.parent) == before
    assert new_case("a" * 80, "dtype-mismatch", root, manifest).name == "KB0002-" + "a" * 80
    assert main(["new", "b-" * 100, "--family", "dtype-mismatch"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kb new: the slug is 200 characters") and err.count("\n") == 1


def test_the_next_id_ignores_folders_numbered_in_other_digits(root: Path) -> None:
    odd = root / "KB٠٩٩٩-odd"  # int() reads Arabic-Indic digits: 999
    odd.mkdir()
    (odd / "case.md").write_text("+++\n+++\n", encoding="utf-8")
    assert next_id(root) == "KB0002"


def test_after_kb9999_it_says_the_ids_are_used_up(root: Path, manifest: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    last = root / "KB9999-last"
    last.mkdir()
    (last / "case.md").write_text("+++\n+++\n", encoding="utf-8")
    before = _tree(root.parent)
    with pytest.raises(ScaffoldError, match=r"^no id left: KB9999 is taken and ids are never reused"):
        new_case("my-new-failure", "dtype-mismatch", root, manifest)
    monkeypatch.setenv("KB_CASES_DIR", str(root))
    assert main(["new", "my-new-failure", "--family", "dtype-mismatch"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == ("kb new: no id left: KB9999 is taken and ids are never reused "
                                 "(KB followed by four digits)\n")
    assert _tree(root.parent) == before
    assert not (root / "KB10000-my-new-failure").exists()


def test_a_failure_part_way_removes_what_it_wrote(root: Path, manifest: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.knowledge import scaffold
    from kb.knowledge.model import KnowledgeError

    before = _tree(root.parent)

    def broken(folder: Path) -> None:
        raise KnowledgeError(f"{folder}/case.md: the template and the schema disagree")

    monkeypatch.setattr(scaffold, "load_case", broken)
    with pytest.raises(ScaffoldError, match="the new case does not load: .*; nothing was left behind$"):
        new_case("my-new-failure", "dtype-mismatch", root, manifest)
    assert _tree(root.parent) == before


def test_a_full_disk_while_appending_to_the_manifest_undoes_the_folder_and_the_manifest(
        root: Path, manifest: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _tree(root.parent)
    real_open = Path.open

    class FullDisk:
        def __init__(self, handle) -> None:  # type: ignore[no-untyped-def]
            self.handle = handle

        def __enter__(self) -> FullDisk:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()

        def write(self, text: str) -> int:
            self.handle.write(text[:20])  # part of the entry reaches the file, then the disk is full
            self.handle.flush()
            raise OSError(errno.ENOSPC, "No space left on device", str(manifest))

    def fake_open(self: Path, mode: str = "r", *args, **kwargs):  # type: ignore[no-untyped-def]
        handle = real_open(self, mode, *args, **kwargs)
        return FullDisk(handle) if self == manifest and mode == "a" else handle

    monkeypatch.setattr(Path, "open", fake_open)
    with pytest.raises(ScaffoldError, match=f"^cannot write {manifest}: No space left on device; nothing was left behind$"):
        new_case("my-new-failure", "dtype-mismatch", root, manifest)
    assert _tree(root.parent) == before


def test_a_cases_folder_it_had_to_create_is_removed_on_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.knowledge import scaffold
    from kb.knowledge.model import KnowledgeError

    def broken(folder: Path) -> None:
        raise KnowledgeError("no")

    monkeypatch.setattr(scaffold, "load_case", broken)
    with pytest.raises(ScaffoldError):
        new_case("my-new-failure", "dtype-mismatch", tmp_path / "new" / "cases")
    assert list(tmp_path.iterdir()) == []


def test_only_the_checkouts_own_cases_folder_gets_a_dev_set_entry(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "cases").mkdir(parents=True)
    dev = checkout / DEV_MANIFEST
    dev.parent.mkdir(parents=True)
    dev.write_text("# dev set\n", encoding="utf-8")
    assert checkout_dev_manifest(checkout / "cases", str(checkout)) == dev
    assert checkout_dev_manifest(tmp_path / "elsewhere", str(checkout)) is None
    dev.unlink()
    assert checkout_dev_manifest(checkout / "cases", str(checkout)) is None


def test_kb_new_elsewhere_writes_only_there_and_says_what_next(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    dev = REPO / DEV_MANIFEST
    dev_before = (dev.read_bytes(), os.stat(dev).st_mtime_ns) if dev.is_file() else None
    others = _tree(root.parent / "elsewhere") if (root.parent / "elsewhere").exists() else {}
    monkeypatch.setenv("KB_CASES_DIR", str(root))
    assert main(["new", "my-new-failure", "--family", "cuda-oom"]) == 0
    out, err = capsys.readouterr()
    folder = root / "KB0002-my-new-failure"
    assert err == ""
    assert sorted(p.name for p in folder.iterdir()) == ["case.md", "failing.py", "fixed.py"]
    assert sorted(p.name for p in root.parent.iterdir()) == ["cases"] and not others
    if dev_before is not None:
        assert (dev.read_bytes(), os.stat(dev).st_mtime_ns) == dev_before  # the checkout's dev set is untouched
    assert out.startswith(f"created {folder}/ (case.md, failing.py, fixed.py)\n")
    assert f"no dev-set entry written ({root} is not the cases/ of a checkout with tests/fixtures/diagnose/)" in out
    assert "# expect = \"my-new-failure\"" in out  # the entry to add, printed instead
    for step in ("kb reproduce KB0002 --record", "kb reproduce KB0002 --fixed --record", "  4. kb check"):
        assert step in out, step


def test_kb_new_refuses_a_non_ascii_id_in_one_line(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    before = _tree(root.parent)
    monkeypatch.setenv("KB_CASES_DIR", str(root))
    assert main(["new", "my-new-failure", "--family", "cuda-oom", "--id", "KB٠٠٩٩"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == ("kb new: id 'KB٠٠٩٩' is not KB followed by four ASCII digits "
                                 "(like KB0042)\n")
    assert _tree(root.parent) == before

"""kb in notebooks, in-process: the ``%load_ext kb`` handler on an IPython InteractiveShell, ``kb.diagnose_text``
and ``kb.diagnose_exception``, and the HTML rendering (kb/render/html.py). The real-kernel run is
tests/test_notebook_kernel.py."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import kb
from kb.render.diagnosis import format_diagnosis
from kb.render.html import format_diagnosis_html

REPO = Path(__file__).resolve().parents[1]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# KB0001's message, raised in plain Python: the test needs no torch
KNOWN = "expected mat1 and mat2 to have the same dtype, but got: double != float"
KNOWN_TRACEBACK = f"""Traceback (most recent call last):
  File "train.py", line 9, in <module>
    out = model(batch)
RuntimeError: {KNOWN}
"""


@pytest.fixture(scope="module")
def shell(tmp_path_factory: pytest.TempPathFactory) -> Any:
    pytest.importorskip("IPython", reason="IPython is not installed (pip install -e .[test])")
    mp = pytest.MonkeyPatch()
    mp.setenv("IPYTHONDIR", str(tmp_path_factory.mktemp("ipython")))
    import builtins

    from IPython.core.interactiveshell import InteractiveShell

    names = set(vars(builtins))
    sh = InteractiveShell.instance()
    sh.colors = "nocolor"
    yield sh
    # leave the process as it was for the tests after these: no shell, no __IPYTHON__ in builtins
    InteractiveShell.clear_instance()
    for name in set(vars(builtins)) - names:
        delattr(builtins, name)
    mp.undo()


@pytest.fixture
def loaded(shell: Any, capsys: pytest.CaptureFixture[str]) -> Iterator[Any]:
    shell.run_line_magic("load_ext", "kb")
    capsys.readouterr()
    yield shell
    shell.run_line_magic("unload_ext", "kb")


def _run(shell: Any, code: str, capsys: pytest.CaptureFixture[str]) -> tuple[Any, str, str]:
    result = shell.run_cell(code)
    out, err = capsys.readouterr()
    return result, ANSI.sub("", out), ANSI.sub("", err)


def test_known_error_traceback_then_diagnosis(loaded: Any, capsys: pytest.CaptureFixture[str]) -> None:
    result, out, err = _run(loaded, f"def step():\n    raise RuntimeError({KNOWN!r})\nstep()", capsys)
    assert isinstance(result.error_in_exec, RuntimeError) and not result.success
    assert "Traceback (most recent call last)" in out and f"RuntimeError: {KNOWN}" in out  # IPython's own
    assert "KB0001 dtype-double-vs-float" in out
    assert out.index(f"RuntimeError: {KNOWN}") < out.index("─── kb ") < out.index("KB0001 dtype-double-vs-float")
    assert "your code:" in out and "in step" in out  # the cell's frame, not IPython's run_code
    assert err == ""
    assert loaded.custom_exceptions == (Exception,)  # still installed


def test_unknown_error_shows_only_the_traceback(loaded: Any, capsys: pytest.CaptureFixture[str]) -> None:
    result, out, err = _run(loaded, "undefined_name_xyz", capsys)
    assert isinstance(result.error_in_exec, NameError)
    assert "NameError" in out and "undefined_name_xyz" in out
    assert "kb" not in out.replace("undefined_name_xyz", "") and err == ""


def test_syntax_error_is_shown_as_ipython_shows_it(loaded: Any, capsys: pytest.CaptureFixture[str]) -> None:
    result, out, err = _run(loaded, "def broken(:\n    pass", capsys)
    assert isinstance(result.error_before_exec, SyntaxError)
    assert "SyntaxError" in out + err and "─── kb " not in out
    assert loaded.custom_exceptions == (Exception,)


def test_failure_inside_kb_prints_one_line_and_keeps_the_traceback(
        loaded: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import kb.notebook.result

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("kb bug")

    monkeypatch.setattr(kb.notebook.result, "diagnose_text", broken)
    result, out, err = _run(loaded, f"raise RuntimeError({KNOWN!r})", capsys)
    assert isinstance(result.error_in_exec, RuntimeError)
    assert f"RuntimeError: {KNOWN}" in out and "KB0001" not in out
    assert err.count("\n") == 1 and err.startswith("kb: could not diagnose this error (KeyError")
    assert "Custom TB Handler failed" not in out + err
    assert loaded.custom_exceptions == (Exception,)  # IPython did not unregister the handler
    monkeypatch.undo()
    _, out, _ = _run(loaded, f"raise RuntimeError({KNOWN!r})", capsys)
    assert "KB0001" in out  # the next error is diagnosed again


def test_traceback_survives_ipython_failing_to_show_it(
        loaded: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise AttributeError("formatter broke")

    monkeypatch.setattr(loaded, "showtraceback", broken)
    result, out, err = _run(loaded, f"raise RuntimeError({KNOWN!r})", capsys)
    assert isinstance(result.error_in_exec, RuntimeError)
    assert f"RuntimeError: {KNOWN}" in err and "Traceback (most recent call last)" in err  # Python's formatting
    assert "KB0001" in out


def test_keyboard_interrupt_is_not_kbs(loaded: Any, capsys: pytest.CaptureFixture[str]) -> None:
    result, out, _ = _run(loaded, "raise KeyboardInterrupt", capsys)
    assert isinstance(result.error_in_exec, KeyboardInterrupt) and "KeyboardInterrupt" in out
    assert "─── kb " not in out


def test_unload_restores_the_previous_handler(shell: Any, capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[str] = []

    def theirs(self: Any, etype: type, value: BaseException, tb: Any, tb_offset: Any = None) -> None:
        seen.append(etype.__name__)

    shell.set_custom_exc((ValueError,), theirs)
    try:
        shell.run_line_magic("load_ext", "kb")
        shell.run_line_magic("load_ext", "kb")  # twice: IPython says it is loaded, nothing installed twice
        out = capsys.readouterr().out
        assert out.count("kb: errors in this session's cells") == 1
        assert shell.custom_exceptions == (Exception,)
        shell.run_line_magic("unload_ext", "kb")
        assert shell.custom_exceptions == (ValueError,)
        shell.run_cell("raise ValueError('x')")
        assert seen == ["ValueError"]
        _, out, _ = _run(shell, f"raise RuntimeError({KNOWN!r})", capsys)
        assert f"RuntimeError: {KNOWN}" in out and "KB0001" not in out
    finally:
        shell.set_custom_exc((), None)
        shell.custom_exceptions = ()


def test_importing_kb_loads_no_notebook_code() -> None:
    code = "import kb, sys; print(sorted(m for m in sys.modules if m.startswith(('IPython', 'kb.notebook', 'kb.render'))))"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# -- kb.diagnose_text, kb.diagnose_exception ----------------------------------------------------------

def test_diagnose_text_result() -> None:
    result = kb.diagnose_text(KNOWN_TRACEBACK)
    assert result.top == "KB0001" == result.document["matches"][0]["id"]
    assert result.text == format_diagnosis(result.document) == str(result)
    assert result.document["schema_version"] >= 2
    assert "KB0001 dtype-double-vs-float" in repr(result)
    assert result._repr_html_() == format_diagnosis_html(result.document)
    assert kb.diagnose_text(KNOWN_TRACEBACK.encode()).top == "KB0001"  # bytes too


def test_diagnose_text_without_answer() -> None:
    result = kb.diagnose_text("all good\nepoch 1 loss 0.3\n")
    assert result.top is None and result.document["matches"] == []
    assert "no known case" in repr(result) and "No error found" in result.text
    assert "No error found" in result._repr_html_()


def test_diagnose_text_rejects_what_kb_diagnose_rejects() -> None:
    with pytest.raises(ValueError, match="empty"):
        kb.diagnose_text("  \n")
    with pytest.raises(TypeError):
        kb.diagnose_text(42)  # type: ignore[arg-type]


def test_diagnose_text_redacts() -> None:
    token = "hf_" + "a1B2c3D4e5F6g7H8i9J0"
    result = kb.diagnose_text(KNOWN_TRACEBACK.replace("train.py", f"/home/alice/train.py --token {token}"))
    assert result.top == "KB0001"
    everything = repr(result.document) + result.text + result._repr_html_()
    assert token not in everything and "alice" not in everything


def test_diagnose_exception_with_chained_causes() -> None:
    def inner() -> None:
        raise RuntimeError(KNOWN)

    try:
        try:
            inner()
        except RuntimeError as exc:
            raise ValueError("training step failed") from exc
    except ValueError as exc:
        outer = exc
    result = kb.diagnose_exception(outer)
    assert result.top == "KB0001"  # found in the cause, printed above "The above exception was the direct cause"
    from kb.notebook.result import exception_text

    text = exception_text(outer)
    assert "direct cause of the following exception" in text and "ValueError: training step failed" in text
    with pytest.raises(TypeError):
        kb.diagnose_exception("not an exception")  # type: ignore[arg-type]


def test_diagnose_exception_unraised() -> None:
    assert kb.diagnose_exception(RuntimeError(KNOWN)).top == "KB0001"


# -- HTML -------------------------------------------------------------------------------------------

def test_html_shows_the_one_screen_content() -> None:
    doc = kb.diagnose_text(KNOWN_TRACEBACK).document
    page = format_diagnosis_html(doc)
    m = doc["matches"][0]
    assert "KB0001 dtype-double-vs-float" in page and f"{m['confidence']} confidence" in page
    assert "torch.matmul" in page  # the statement
    assert "line 4: RuntimeError: expected mat1 and mat2" in page  # the deciding line
    fix = re.search(r"<pre[^>]*>(.*?)</pre>", page, re.S)
    assert fix and html.escape(m["fix"].strip("\n"), quote=True) == fix[1]  # the whole fix, as written
    assert f'<a href="{m["docs"]}"' in page and "kb show KB0001" in page


def test_html_family_answer_shows_the_triage() -> None:
    doc = kb.diagnose_text(KNOWN_TRACEBACK).document
    family = next(m for m in doc["matches"] if m["kind"] == "family")
    doc = {**doc, "matches": [family]}
    page = format_diagnosis_html(doc)
    assert f"family {family['id']}" in page and "most common cause first" in page
    assert "1. " in page and "fix: " in page


def test_html_escapes_everything() -> None:
    doc = kb.diagnose_text(KNOWN_TRACEBACK).document
    m = dict(doc["matches"][0])
    evil = '<script>alert("x")</script>'
    m.update(summary=evil, fix=f"x = 1 {evil}", docs="javascript:alert(1)", more=f"kb show {evil}",
             error={**m["error"], "message": evil, "type": "<b>T</b>"}, slug="<i>s</i>")
    page = format_diagnosis_html({**doc, "matches": [m], "notes": [evil]})
    assert "<script" not in page and "<b>" not in page and "<i>" not in page
    assert "&lt;script&gt;" in page
    assert 'href="javascript' not in page  # only http(s) addresses become links
    no_match = format_diagnosis_html({**doc, "matches": [], "notes": [evil],
                                      "root_error": {**doc["root_error"], "message": evil}})
    assert "<script" not in no_match and "&lt;script&gt;" in no_match

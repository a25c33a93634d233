"""tests/notebooks/diagnose.ipynb run in a real Jupyter kernel (nbclient, ipykernel), as Colab or Kaggle would.

The kernel is this test's Python: a kernel spec written at test time into a temporary folder (found through
JUPYTER_PATH) starts ``sys.executable -m ipykernel_launcher`` with this checkout on PYTHONPATH, so nothing
needs installing by hand. Skipped, with the reason, only where ipykernel or nbclient is missing (the
``test`` extra installs them: CI runs it).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

# Looked up, not imported: importing torch here would cost every test worker seconds at collection, and the kernel
# (a child process) is what imports it.
_MISSING = [(name, why) for name, why in [
    ("ipykernel", "ipykernel is not installed (pip install -e .[test])"),
    ("nbclient", "nbclient is not installed (pip install -e .[test])"),
    ("nbformat", "nbformat is not installed (pip install -e .[test])"),
    ("torch", "torch is not installed: the notebook raises a real torch error"),
] if importlib.util.find_spec(name) is None]
pytestmark = pytest.mark.skipif(bool(_MISSING), reason="; ".join(why for _, why in _MISSING))

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = REPO / "tests" / "notebooks" / "diagnose.ipynb"
KERNEL = "kb-test-python"


def _execute(tmp: Path) -> Any:
    """The notebook after running every cell in a fresh kernel of this Python (``tmp``: an empty folder)."""
    spec = tmp / "jupyter" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    env = {"PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
           "IPYTHONDIR": str(tmp / "ipython"), "KB_CACHE_DIR": str(tmp / "cache")}
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "kb test", "language": "python", "env": env,
    }), encoding="utf-8")
    mp = pytest.MonkeyPatch()
    mp.setenv("JUPYTER_PATH", str(tmp / "jupyter"))
    mp.setenv("JUPYTER_RUNTIME_DIR", str(tmp / "runtime"))
    mp.setenv("JUPYTER_PLATFORM_DIRS", "1")
    import nbclient
    import nbformat

    try:
        nb = nbformat.read(NOTEBOOK, as_version=4)
        client = nbclient.NotebookClient(nb, kernel_name=KERNEL, timeout=60, startup_timeout=60,
                                         resources={"metadata": {"path": str(tmp)}})
        client.execute()
    finally:
        mp.undo()
    return nb


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The notebook executed once per test run (_execute), whichever pytest-xdist worker asks first: the others read
    the executed notebook it wrote (pytest-xdist spreads this module's tests over both workers, and each started a
    kernel of its own, ~12 s each in CI). The lock and the shared folder are tests/conftest.py built_once's."""
    import fcntl

    import nbformat

    base = tmp_path_factory.getbasetemp()
    run = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the run's folder, shared by the workers
    done = run / "notebook-kernel.ipynb"
    with open(run / "notebook-kernel.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            nb = _execute(tmp_path_factory.mktemp("kernel"))
            partial = done.with_suffix(".partial")
            nbformat.write(nb, partial)
            partial.rename(done)
    return nbformat.read(done, as_version=4)


def _code_cells(nb: Any) -> list[Any]:
    return [c for c in nb.cells if c.cell_type == "code"]


def _html(cell: Any) -> str:
    return "".join(o["data"]["text/html"] for o in cell.outputs if "text/html" in o.get("data", {}))


def _error(cell: Any) -> dict[str, Any] | None:
    return next((o for o in cell.outputs if o.output_type == "error"), None)


def test_load_ext_says_one_line(executed: Any) -> None:
    load = _code_cells(executed)[0]
    text = "".join(o.get("text", "") for o in load.outputs if o.output_type == "stream")
    assert text.startswith("kb: ") and text.count("\n") == 1, load.outputs
    assert _error(load) is None


def test_known_error_shows_traceback_then_diagnosis(executed: Any) -> None:
    cell = _code_cells(executed)[1]
    error = _error(cell)
    assert error is not None and error["ename"] == "RuntimeError", cell.outputs
    assert "double != float" in error["evalue"] and len(error["traceback"]) > 1  # Python's traceback, whole
    kinds = [o.output_type for o in cell.outputs]
    assert kinds.index("error") < kinds.index("display_data"), kinds  # kb's answer comes under the traceback
    display = next(o for o in cell.outputs if o.output_type == "display_data")
    assert "text/html" in display["data"] and "text/plain" in display["data"]
    html = display["data"]["text/html"]
    assert "KB0001" in html and 'class="kb-diagnosis"' in html
    assert "<pre" in html and "torch.float32" in html  # the fix, copyable
    assert "KB0001 dtype-double-vs-float" in display["data"]["text/plain"]
    assert not any(o.output_type == "stream" and o.get("name") == "stderr" for o in cell.outputs), cell.outputs


def test_unknown_error_shows_the_traceback_only(executed: Any) -> None:
    cell = _code_cells(executed)[2]
    error = _error(cell)
    assert error is not None and error["ename"] == "NameError"
    assert [o.output_type for o in cell.outputs] == ["error"], cell.outputs


def test_diagnose_text_cell(executed: Any) -> None:
    cell = _code_cells(executed)[3]
    assert _error(cell) is None, cell.outputs
    printed = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    assert printed.strip() == "KB0001"
    result = next(o for o in cell.outputs if o.output_type == "execute_result")
    assert "KB0001" in result["data"]["text/html"] and "KB0001" in result["data"]["text/plain"]


def test_unload_ext_removes_the_handler(executed: Any) -> None:
    cells = _code_cells(executed)
    assert _error(cells[4]) is None
    after = cells[5]
    error = _error(after)
    assert error is not None and error["ename"] == "RuntimeError"
    assert not _html(after) and [o.output_type for o in after.outputs] == ["error"], after.outputs

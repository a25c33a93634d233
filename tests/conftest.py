"""Fixtures shared by tests/: the docs sites, the dev set's documents and `kb check`'s report, each built once
per test run.

Building the site is the slow part of every docs test, and several tests read the same site: the
real one (`mkdocs build --strict`), the synthetic one (every case status, tests/browser/synthetic_cases.py)
and the Zensical build of the staged real tree. Each is built once per run by the first test that
asks for it, into the run's shared temporary folder, behind a file lock: under pytest-xdist every
worker is a process of its own, and the one that comes second waits for the first build and reuses
it. A build that fails fails every test that needs it, with the builder's output. Tests that build a
deliberately broken or otherwise different site still build their own.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

REPO = Path(__file__).resolve().parents[1]

# CI (.ci/run) draws the same hypothesis examples on every run, so that its verdict on a commit is reproducible (turn
# 43: stop 42 failed on two examples no run had drawn before, both real leaks, now regression tests); a developer's
# run draws new ones each time and is where the property tests go on finding what no example list has
HYPOTHESIS_PROFILE = os.environ.get("KB_HYPOTHESIS_PROFILE", "")
if HYPOTHESIS_PROFILE:
    from hypothesis import settings

    settings.register_profile("ci", derandomize=True)
    settings.load_profile(HYPOTHESIS_PROFILE)


def mkdocs_build(dest: Path, cases_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of the repository's site into ``dest``; ``cases_dir`` points the hook
    at other cases (``KB_CASES_DIR``)."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    if cases_dir is not None:
        env["KB_CASES_DIR"] = str(cases_dir)
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(dest)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


def zensical_command() -> list[str] | None:
    """How to run Zensical: ``$KB_ZENSICAL``, the ``zensical`` package of this Python, or one on PATH."""
    if os.environ.get("KB_ZENSICAL"):
        return [os.environ["KB_ZENSICAL"]]
    if importlib.util.find_spec("zensical") is not None:
        return [sys.executable, "-m", "zensical"]
    found = shutil.which("zensical")
    return [found] if found else None


class BuildFailed(Exception):
    pass


def _run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary folder of this run, shared by all xdist workers (each worker's basetemp lies inside it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """``build(folder)`` run once per test run, whichever worker asks first; the folder it filled.

    ``build`` raises :class:`BuildFailed` with the builder's output; every later request fails
    with the same message instead of building again.
    """
    run = _run_folder(tmp_path_factory)
    out, done, failed = run / name, run / f"{name}.done", run / f"{name}.failed"
    with open(run / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if failed.exists():
            pytest.fail(failed.read_text(encoding="utf-8"), pytrace=False)
        if not done.exists():
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            try:
                build(out)
            except BuildFailed as exc:
                failed.write_text(str(exc), encoding="utf-8")
                pytest.fail(str(exc), pytrace=False)
            done.touch()
    return out


def computed_once(tmp_path_factory: pytest.TempPathFactory, name: str, compute: Callable[[], Any]) -> Any:
    """``compute()`` run once per test run, whichever worker asks first (``built_once``), its value pickled into the
    run's shared folder: each worker unpickles a copy of its own."""

    def build(out: Path) -> None:
        (out / "value.pickle").write_bytes(pickle.dumps(compute(), protocol=pickle.HIGHEST_PROTOCOL))

    return pickle.loads((built_once(tmp_path_factory, name, build) / "value.pickle").read_bytes())


@pytest.fixture(scope="session")
def once_per_run(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Callable[[], Any]], Any]:
    """``once_per_run(name, compute)``: ``computed_once`` in this run's folder, for a module's own shared value."""
    return lambda name, compute: computed_once(tmp_path_factory, name, compute)


@pytest.fixture(scope="session")
def devset_originals(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, str]:
    """tests/devset_documents.py's ``originals()`` (every dev fixture's `kb diagnose FILE` document), once per run:
    tests/test_prefilter.py and tests/test_speed_paths.py compare their readings of the dev set with it. Callers
    take a copy (``dict(...)``) before they change it."""
    from devset_documents import originals

    return computed_once(tmp_path_factory, "devset-originals", originals)


@pytest.fixture(scope="session")
def devset_text_readings(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, tuple[dict | str, str | None]]:
    """tests/devset_documents.py's ``text_readings()`` (each dev fixture's and example's text: its document, and the
    verdict of tests/test_startup_lazy.py's check of the API-drift gate on the same diagnosis), once per run."""
    from devset_documents import text_readings

    return computed_once(tmp_path_factory, "devset-text-readings", text_readings)


@pytest.fixture(scope="session")
def devset_text_documents(devset_text_readings: dict[Path, tuple[dict | str, str | None]]) -> dict[Path, dict | str]:
    """The document of each dev fixture's and example's text, by resolved path (``text_readings``): tests/test_render.py
    and tests/test_no_template_markup.py read them, neither changes them."""
    return {path: doc for path, (doc, _gate) in devset_text_readings.items()}


@pytest.fixture(scope="session")
def runtime_readings(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, tuple[list | str, str | None]]:
    """tests/runtime_support.py's ``readings()`` (each runtime-NN fixture's answers, and the API-drift gate's verdict on
    the same diagnosis), once per run: test_runtime38-44 check the answers, test_startup_lazy the verdicts."""
    from runtime_support import readings

    return computed_once(tmp_path_factory, "runtime-readings", readings)


@pytest.fixture(scope="session")
def devset_drift_gate(devset_text_readings: dict[Path, tuple[dict | str, str | None]],
                      runtime_readings: dict[Path, tuple[list | str, str | None]]) -> dict[Path, str | None]:
    """tests/test_startup_lazy.py's verdict on the API-drift gate for each dev input that ``text_readings`` or the
    runtime sets' ``readings`` diagnosed."""
    return {path: gate for shared in (devset_text_readings, runtime_readings) for path, (_found, gate) in shared.items()}


@pytest.fixture(scope="session")
def knowledge_report(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """``kb.tidy.check()`` of the knowledge (`kb check`'s report: it diagnoses every recorded output, example and dev
    fixture), once per run: tests/test_registry.py asserts each rule on it."""
    from kb.tidy import check

    return computed_once(tmp_path_factory, "knowledge-report", check)


def _mkdocs_into(site: Path, cases_dir: Path | None = None) -> str:
    """``mkdocs build --strict`` into ``site``; its output. Raises :class:`BuildFailed` when it fails."""
    proc = mkdocs_build(site, cases_dir)
    if proc.returncode != 0:
        raise BuildFailed(f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout + proc.stderr


def _keep_for_ci(name: str, folder: Path, output: str) -> None:
    """Where ``KB_CI_SITES`` names a folder (.ci/run sets it), a copy of a real-site build there, ``NAME/`` with the
    builder's output in ``NAME.log``: .ci/run's docs step takes these builds (the same commands on the same tree)
    instead of building the two sites a second time after the tests."""
    keep = os.environ.get("KB_CI_SITES")
    if not keep:
        return
    dest = Path(keep) / name
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(folder, dest, symlinks=True)
    (Path(keep) / f"{name}.log").write_text(output, encoding="utf-8")


@pytest.fixture(scope="session")
def real_site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``mkdocs build --strict`` of the real site (cases/, families/, docs/), built once per run."""

    def build(out: Path) -> None:
        _keep_for_ci("real-site", out, _mkdocs_into(out / "site"))

    return built_once(tmp_path_factory, "real-site", build) / "site"


@pytest.fixture(scope="session")
def synthetic_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``(cases, site)``: the synthetic case folders (tests/browser/synthetic_cases.py, every status),
    written once, and their ``mkdocs build --strict``, once per run.

    Read-only for the tests: a test that changes a case writes cases of its own.
    """
    from browser.synthetic_cases import write_cases

    def build(out: Path) -> None:
        _mkdocs_into(out / "site", write_cases(out / "cases"))

    out = built_once(tmp_path_factory, "synthetic-site", build)
    return out / "cases", out / "site"


@pytest.fixture(scope="session")
def zensical_site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The staged real tree (``python -m kb.site.build stage``: pages written out, no hooks) built by
    ``zensical build --strict``, once per run. Skips without Zensical (fails where KB_REQUIRE_BROWSER is set)."""
    command = zensical_command()
    if command is None:
        message = "needs zensical (pip install -e '.[docs]')"
        if os.environ.get("KB_REQUIRE_BROWSER"):
            pytest.fail(f"KB_REQUIRE_BROWSER is set but {message}")
        pytest.skip(message)

    def build(stage: Path) -> None:
        env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
        staged = subprocess.run([sys.executable, "-m", "kb.site.build", "stage", str(stage)], cwd=REPO, env=env,
                                capture_output=True, text=True, timeout=120)
        if staged.returncode != 0:
            raise BuildFailed(f"python -m kb.site.build stage failed:\n{staged.stdout}\n{staged.stderr}")
        proc = subprocess.run([*command, "build", "--strict", "-f", "mkdocs.yml"], cwd=stage, env=env,
                              capture_output=True, text=True, timeout=300)
        if proc.returncode != 0 or "No issues found" not in proc.stdout + proc.stderr:
            raise BuildFailed(f"zensical build --strict failed:\n{proc.stdout}\n{proc.stderr}")
        _keep_for_ci("zensical-site", stage, proc.stdout + proc.stderr)

    return built_once(tmp_path_factory, "zensical-site", build) / "site"

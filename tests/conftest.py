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

    return pickle.loads((built_once(tmp_path_factory, name, _pickled(compute)) / "value.pickle").read_bytes())


def _pickled(compute: Callable[[], Any]) -> Callable[[Path], None]:
    """The build of ``computed_once``: ``compute()``'s value pickled into the folder."""

    def build(out: Path) -> None:
        (out / "value.pickle").write_bytes(pickle.dumps(compute(), protocol=pickle.HIGHEST_PROTOCOL))

    return build


@pytest.fixture(scope="session")
def once_per_run(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Callable[[], Any]], Any]:
    """``once_per_run(name, compute)``: ``computed_once`` in this run's folder, for a module's own shared value."""
    return lambda name, compute: computed_once(tmp_path_factory, name, compute)


def _originals() -> dict[Path, str]:
    from devset_documents import originals

    return originals()


def _read_states() -> dict[Path, str]:
    from devset_documents import read_states

    return read_states()


def _text_readings() -> dict[Path, tuple[dict | str, str | None]]:
    from devset_documents import text_readings

    return text_readings()


def _runtime_readings() -> dict[Path, tuple[list | str, str | None]]:
    from runtime_support import readings

    return readings()


def _knowledge_check() -> Any:
    from kb.tidy import check

    return check()


def _corpus_answers() -> dict[tuple[str, str], str | None]:
    from corpus_support import corpus_answers

    return corpus_answers()


@pytest.fixture(scope="session")
def devset_originals(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, str]:
    """tests/devset_documents.py's ``originals()`` (every dev fixture's `kb diagnose FILE` document), once per run:
    tests/test_prefilter.py and tests/test_speed_paths.py compare their readings of the dev set with it. Callers
    take a copy (``dict(...)``) before they change it."""
    return computed_once(tmp_path_factory, "devset-originals", _originals)


@pytest.fixture(scope="session")
def devset_read_states(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, str]:
    """tests/devset_documents.py's ``read_states()`` (every dev fixture's read state, default reading), once per run:
    tests/test_prefilter.py and tests/test_speed_paths.py build a document only where a reading's state differs."""
    return computed_once(tmp_path_factory, "devset-read-states", _read_states)


@pytest.fixture(scope="session")
def devset_text_readings(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, tuple[dict | str, str | None]]:
    """tests/devset_documents.py's ``text_readings()`` (each dev fixture's and example's text: its document, and the
    verdict of tests/test_startup_lazy.py's check of the API-drift gate on the same diagnosis), once per run."""
    return computed_once(tmp_path_factory, "devset-text-readings", _text_readings)


@pytest.fixture(scope="session")
def corpus_answers(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str | None]:
    """tests/corpus_support.py's ``corpus_answers()``, once per run: tests/test_frequency.py builds the frequency table four times over the
    same ~4,000 reports (and under pytest-xdist its two tests ran on two workers, each diagnosing the corpus)."""
    return computed_once(tmp_path_factory, "corpus-answers", _corpus_answers)


@pytest.fixture(scope="session")
def devset_text_documents(devset_text_readings: dict[Path, tuple[dict | str, str | None]]) -> dict[Path, dict | str]:
    """The document of each dev fixture's and example's text, by resolved path (``text_readings``): tests/test_render.py
    and tests/test_no_template_markup.py read them, neither changes them."""
    return {path: doc for path, (doc, _gate) in devset_text_readings.items()}


@pytest.fixture(scope="session")
def runtime_readings(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, tuple[list | str, str | None]]:
    """tests/runtime_support.py's ``readings()`` (each runtime-NN fixture's answers, and the API-drift gate's verdict on
    the same diagnosis), once per run: test_runtime38-44 check the answers, test_startup_lazy the verdicts."""
    return computed_once(tmp_path_factory, "runtime-readings", _runtime_readings)


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
    return computed_once(tmp_path_factory, "knowledge-report", _knowledge_check)


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

    return built_once(tmp_path_factory, "real-site", _build_real_site) / "site"


def _build_real_site(out: Path) -> None:
    _keep_for_ci("real-site", out, _mkdocs_into(out / "site"))


def _build_synthetic_site(out: Path) -> None:
    from browser.synthetic_cases import write_cases

    _mkdocs_into(out / "site", write_cases(out / "cases"))


@pytest.fixture(scope="session")
def synthetic_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``(cases, site)``: the synthetic case folders (tests/browser/synthetic_cases.py, every status),
    written once, and their ``mkdocs build --strict``, once per run.

    Read-only for the tests: a test that changes a case writes cases of its own.
    """
    out = built_once(tmp_path_factory, "synthetic-site", _build_synthetic_site)
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

    return built_once(tmp_path_factory, "zensical-site", _zensical_build(command)) / "site"


def _zensical_build(command: list[str]) -> Callable[[Path], None]:
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

    return build


# What several test files share, each computed or built once per run by the first worker that asks (above), by the
# session fixture that asks for it, the slowest first (~15-30 s each on CI's machine). Under pytest-xdist both
# workers run the same test files at the same time (its first items are handed out one by one, in turn), so the
# second worker to ask waited for the first, idle, ~15 s each time (CI45: the setups of test_registry,
# test_frequency, test_diagnose_devset and the docs tests, ~65 s of worker time). ``pytest_collection_finish``
# below has each worker start, before its first test, those of them its tests need that no worker has started.
def _shared() -> list[tuple[str, str, Callable[[Path], None]]]:
    command = zensical_command()
    return [
        ("knowledge_report", "knowledge-report", _pickled(_knowledge_check)),
        ("devset_text_readings", "devset-text-readings", _pickled(_text_readings)),
        ("devset_originals", "devset-originals", _pickled(_originals)),
        ("devset_read_states", "devset-read-states", _pickled(_read_states)),
        ("corpus_answers", "corpus-answers", _pickled(_corpus_answers)),
        ("runtime_readings", "runtime-readings", _pickled(_runtime_readings)),
        ("real_site_dir", "real-site", _build_real_site),
        ("synthetic_site", "synthetic-site", _build_synthetic_site),
        *([("zensical_site_dir", "zensical-site", _zensical_build(command))] if command else []),
    ]


def _start_if_free(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> None:
    """``built_once(name, build)`` when no worker has started it; at once, doing nothing, when one has (its lock is
    held, or it is done or failed). Where ``build`` raises anything but :class:`BuildFailed`, nothing is kept: the
    fixture runs it again, and the test that asked fails with the traceback, as without this."""
    run = _run_folder(tmp_path_factory)
    out, done, failed = run / name, run / f"{name}.done", run / f"{name}.failed"
    with open(run / f"{name}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released when the file closes
        except BlockingIOError:
            return  # another worker builds it
        if done.exists() or failed.exists():
            return
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        try:
            build(out)
        except BuildFailed as exc:
            failed.write_text(str(exc), encoding="utf-8")
            return
        except Exception:  # noqa: BLE001 - the fixture computes it again and its test shows the error
            shutil.rmtree(out, ignore_errors=True)
            return
        done.touch()


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Under pytest-xdist with more than one worker (after the worker has sent its collection), start the shared
    values and builds this worker's tests ask for that no other worker has started (``_shared``)."""
    if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) < 2 or session.config.option.collectonly:
        return
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None:
        return
    needed = {name for item in session.items for name in getattr(item, "fixturenames", ())}
    for fixture, name, build in _shared():
        if fixture in needed:
            _start_if_free(factory, name, build)

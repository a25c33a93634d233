"""Pytest wiring for kb: one marker per hardware profile, and case folders as tests.

``pytest cases/`` collects, for every reproduction of every case and every
hardware profile it declares, a "reproduces" item (the failing program fails as
the case says) and a "fix-resolves" item (the fixed program succeeds). Items
carry their profile's marker, so ``pytest -m t4x2 cases/`` selects the dual-T4
cases; on a machine without that hardware they skip and say what is missing.
``--kb-record`` writes each run into the case's evidence/ folder.

Reproductions of one case often share a program: a "tried" variant keeps the case's fixed.py, say.
Where two items would run the same program with the same launcher, processes, environment, pins (the fixed
program's own ``fixed_pins`` where a reproduction gives them),
timeout and profile, the program runs once and the second item judges that run against its own
reproduction's expectations, with the runner's judges (not while recording: each record is a run of
its own).

Under pytest-xdist (``pytest -n N``) one worker takes all items of a case folder, so items that share
a run meet, and one takes all of tests/browser/ (one browser, one static server); other tests go out
one by one (see :func:`pytest_xdist_make_scheduler`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterator

import pytest

from kb.knowledge.model import CASE_FILE, Case
from kb.knowledge.reproductions import Reproduction
from kb.knowledge.load import load_case
from kb.reproduce.profiles import PROFILES
from kb.reproduce.result import RunResult
from kb.reproduce.runner import OUTPUT_KEEP, cannot_run

OUTPUT_TAIL = 6000
RunKey = tuple[object, ...]
_RUNS: dict[RunKey, RunResult] = {}  # this process's finished runs that another item runs too


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--kb-record", action="store_true", help="record each case run as evidence in its case folder")


def pytest_configure(config: pytest.Config) -> None:
    for profile in PROFILES.values():
        note = f" (emulated: {profile.emulates})" if profile.emulates else ""
        config.addinivalue_line("markers", f"{profile.name}: needs {profile.description}{note}")


# Test modules whose tests share a browser booted once by a module fixture: one work unit each, so that one worker
# boots it once (as single tests, two workers could each boot Chromium and Pyodide for the same module).
BROWSER_UNITS = ("tests/browser/", "tests/test_paste_page_browser.py")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """Under ``pytest -n N`` (xdist's default distribution, ``--dist load``): work units of one case
    folder (its items share runs: see :class:`CaseFile`), of each browser module (:data:`BROWSER_UNITS`: their
    module fixtures hold one browser and one server) and of single tests otherwise. xdist hands them out
    largest first (most tests first: the browser tests, then the case folders, where the slow runs
    are) and the single tests fill the workers up at the end. Another ``--dist`` is left to xdist."""
    if config.getvalue("dist") != "load":
        return None
    return kb_scheduling(config, log)


def unit_of(nodeid: str) -> str:
    """The work unit of a test: its case folder's case.md, its browser module, or the test itself."""
    path = nodeid.split("::", 1)[0]
    if path.startswith(BROWSER_UNITS) or path.endswith(f"/{CASE_FILE}"):
        return path
    return nodeid


def kb_scheduling(config: pytest.Config, log: object) -> object:
    """xdist's LoadScopeScheduling with kb's work units (:func:`unit_of`).

    Its bookkeeping is made linear: xdist's keeps every finished unit in the worker's workload and counts the
    workload's pending tests over all of them after each test (10,000 one-test units: ~50 million steps, ~3 s
    of the controller's CPU beside the two workers), and finds each test's index by a list search; here a finished
    unit leaves the workload (what is pending is the same) and the indices are a dict."""
    from xdist.scheduler import LoadScopeScheduling

    class KbScheduling(LoadScopeScheduling):
        def __init__(self, config: pytest.Config, log: object) -> None:
            super().__init__(config, log)  # type: ignore[arg-type]
            self._indices: dict[object, dict[str, int]] = {}  # each node's collection: the index of each test

        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

        def mark_test_complete(self, node: object, item_index: int, duration: float = 0) -> None:
            nodeid = self.registered_collections[node][item_index]
            workload = self.assigned_work[node]
            scope = self._split_scope(nodeid)
            workload[scope][nodeid] = True
            if all(workload[scope].values()):
                del workload[scope]  # finished: nothing of it is pending, nothing of it is re-run after a crash
            self._reschedule(node)

        def _assign_work_unit(self, node: object) -> None:
            scope, work_unit = self.workqueue.popitem(last=False)
            self.assigned_work.setdefault(node, {})[scope] = work_unit
            index = self._indices.get(node)
            if index is None:
                index = self._indices[node] = {nodeid: i for i, nodeid in enumerate(self.registered_collections[node])}
            node.send_runtest_some([index[nodeid] for nodeid, completed in work_unit.items() if not completed])

    return KbScheduling(config, log)  # type: ignore[arg-type]


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if file_path.name == CASE_FILE and file_path.parent.parent.name == "cases":
        return CaseFile.from_parent(parent, path=file_path)
    return None


def run_key(case: Case, rep: Reproduction, program: str, profile: str) -> RunKey:
    """Everything kb.reproduce.runner.run_program runs ``program`` with: equal keys, the same command."""
    fixed = program == "fixed"
    return (
        case.id, program, rep.fixed if fixed else rep.failing, profile, rep.launcher,
        (rep.fixed_nproc or rep.nproc) if fixed else rep.nproc, tuple(sorted(rep.env.items())),
        tuple(sorted(rep.fixed_env.items())) if fixed else (), rep.pins_for(program), rep.timeout,
    )


class CaseFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        case = load_case(self.path.parent)
        items = []
        for rep in case.reproductions:
            for profile in rep.hardware:
                for program, label in (("failing", "reproduces"), ("fixed", "fix-resolves")):
                    item = CaseItem.from_parent(
                        self, name=f"{rep.name}-{profile}::{label}", case=case, rep=rep,
                        profile=profile, program=program,
                    )
                    item.add_marker(getattr(pytest.mark, profile))
                    items.append(item)
        keys = [item.run_key for item in items]
        for item in items:
            item.shares_run = keys.count(item.run_key) > 1  # the same run as another item of this case
        yield from items


def judged_for(case: Case, rep: Reproduction, program: str, run: RunResult) -> RunResult:
    """``run``, made for another reproduction with the same command, judged against ``rep``'s
    expectations by the runner's judges, as kb.reproduce.runner.run_program judges its own run."""
    from kb.reproduce.runner import case_expected, judge_run

    failing = program == "failing"
    expected = case_expected(case, rep.failing_expect if failing else rep.fixed_expect, fails=failing)
    passed, outcome, explanation = judge_run(
        expected, timed_out=False, exit_code=run.exit_code, ranks=run.ranks, measures=run.measures,
        output=run.output, pins=rep.pins_for(program), limit=rep.timeout,
    )
    explanation += f" (the run made for reproduction {run.reproduction}: the same command)"
    return dataclasses.replace(run, reproduction=rep.name, outcome=outcome, passed=passed, explanation=explanation)


class CaseRunFailed(Exception):
    pass


class CaseItem(pytest.Item):
    def __init__(self, *, case: Case, rep: Reproduction, profile: str, program: str, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.case, self.rep, self.profile, self.program = case, rep, profile, program
        self.run_key = run_key(case, rep, program, profile)
        self.shares_run = False

    def runtest(self) -> None:
        from kb.reproduce.runner import run_program

        if self.case.status == "retired":
            pytest.skip(f"{self.case.id} is retired")
        reason = cannot_run(self.rep, self.profile, self.program)  # each program with its own pins
        if reason:
            pytest.skip(reason)
        recording = self.config.getoption("--kb-record")
        earlier = _RUNS.get(self.run_key) if self.shares_run and not recording else None
        if earlier is not None:
            result = judged_for(self.case, self.rep, self.program, earlier)
        else:
            # not recording: a run where it changes nothing is a fork of a Python that imported the libraries
            # once (kb/reproduce/forkserver.py); every recorded run is a fresh Python
            result = run_program(self.case, self.rep, self.program, self.profile, preloaded=not recording)
            if self.shares_run and result.outcome not in ("timeout", "error") and len(result.output) <= OUTPUT_KEEP:
                _RUNS[self.run_key] = result  # a finished run with its whole output: another item can judge it
        if recording:
            from kb.reproduce.evidence import record

            record(self.case, result)
        self.user_properties.append(("outcome", result.outcome))
        if not result.passed:
            raise CaseRunFailed(f"{result.explanation}\n\n--- program output (tail) ---\n{result.output[-OUTPUT_TAIL:]}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: object = None) -> str:
        if isinstance(excinfo.value, CaseRunFailed):
            return f"{self.case.id} {self.rep.name} ({self.program}, {self.profile}): {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.case.id} {self.case.slug} {self.name}"

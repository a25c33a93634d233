"""Pytest wiring for kb: one marker per hardware profile, and case folders as tests.

``pytest cases/`` collects, for every reproduction of every case and every
hardware profile it declares, a "reproduces" item (the failing program fails as
the case says) and a "fix-resolves" item (the fixed program succeeds). Items
carry their profile's marker, so ``pytest -m t4x2 cases/`` selects the dual-T4
cases; on a machine without that hardware they skip and say what is missing.
``--kb-record`` writes each run into the case's evidence/ folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from kb.knowledge.model import CASE_FILE, Case, Reproduction
from kb.knowledge.load import load_case
from kb.reproduce.profiles import PROFILES
from kb.reproduce.runner import cannot_run

OUTPUT_TAIL = 6000


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--kb-record", action="store_true", help="record each case run as evidence in its case folder")


def pytest_configure(config: pytest.Config) -> None:
    for profile in PROFILES.values():
        note = f" (emulated: {profile.emulates})" if profile.emulates else ""
        config.addinivalue_line("markers", f"{profile.name}: needs {profile.description}{note}")


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if file_path.name == CASE_FILE and file_path.parent.parent.name == "cases":
        return CaseFile.from_parent(parent, path=file_path)
    return None


class CaseFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        case = load_case(self.path.parent)
        for rep in case.reproductions:
            for profile in rep.hardware:
                for program, label in (("failing", "reproduces"), ("fixed", "fix-resolves")):
                    item = CaseItem.from_parent(
                        self, name=f"{rep.name}-{profile}::{label}", case=case, rep=rep,
                        profile=profile, program=program,
                    )
                    item.add_marker(getattr(pytest.mark, profile))
                    yield item


class CaseRunFailed(Exception):
    pass


class CaseItem(pytest.Item):
    def __init__(self, *, case: Case, rep: Reproduction, profile: str, program: str, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.case, self.rep, self.profile, self.program = case, rep, profile, program

    def runtest(self) -> None:
        from kb.reproduce.runner import run_program

        if self.case.status == "retired":
            pytest.skip(f"{self.case.id} is retired")
        reason = cannot_run(self.rep, self.profile)
        if reason:
            pytest.skip(reason)
        result = run_program(self.case, self.rep, self.program, self.profile)
        if self.config.getoption("--kb-record"):
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

"""Version-pinned reproductions (kb/reproduce/pinned.py): real pip installs of a tiny wheel built here."""

from __future__ import annotations

import platform
import sys
from pathlib import Path

import pytest

from kb.knowledge.load import KnowledgeError, load_case

from casefiles import case_md
from wheel_support import build_wheel
from kb.reproduce.pinned import PinError, compare, environment_key, parse_pin, parse_pins, prepare, runs_here, skip_reason
from kb.reproduce.runner import run_program


def test_parse_pin_normalises_names_and_rejects_ranges() -> None:
    assert str(parse_pin("Huggingface_Hub==0.30.2")) == "huggingface-hub==0.30.2"
    for bad in ("transformers>=4.51", "transformers", "trl==", "a==1 ; python_version<'3.13'"):
        with pytest.raises(PinError):
            parse_pin(bad)
    with pytest.raises(PinError, match="more than once"):
        parse_pins(["trl==0.15.2", "TRL==0.16.1"])


def test_environment_key_ignores_pin_order() -> None:
    a = parse_pins(["x==1", "y==2"])
    b = parse_pins(["y==2", "x==1"])
    assert environment_key(a) == environment_key(b) != environment_key(parse_pins(["x==1", "y==3"]))


def test_skip_reason_names_the_missing_wheel(tmp_path: Path) -> None:
    house = tmp_path / "house"
    assert "build-wheelhouse" in (skip_reason(("kbpin-demo==1.0",), house) or "")
    build_wheel(house, "kbpin_demo", "1.0")
    assert skip_reason(("kbpin-demo==1.0",), house) is None
    reason = skip_reason(("kbpin-demo==1.0", "kbpin-other==2.0"), house)
    assert reason is not None
    named = reason.split("no wheel of ", 1)[1].split(" for Python", 1)[0]
    assert named == "kbpin-other==2.0"
    assert skip_reason((), house) is None


def test_a_wheel_for_another_python_counts_as_missing(tmp_path: Path) -> None:
    """The GPU machines' wheelhouse holds cp312 wheels: on another Python the pinned item skips with a reason."""
    house = tmp_path / "house"
    other = f"cp3{sys.version_info.minor + 1}"
    wheel = build_wheel(house, "kbpin_demo", "1.0")
    wheel.rename(house / f"kbpin_demo-1.0-{other}-{other}-manylinux_2_17_{platform.machine()}.whl")
    reason = skip_reason(("kbpin-demo==1.0",), house)
    assert reason is not None and f"for Python 3.{sys.version_info.minor}" in reason
    build_wheel(house, "kbpin_demo", "1.0")  # the pure wheel beside it installs anywhere
    assert skip_reason(("kbpin-demo==1.0",), house) is None


@pytest.mark.parametrize(("tags", "ok"), [
    (("py3", "none", "any"), True),
    ((f"py3{sys.version_info.minor}", "none", "any"), True),
    ((f"cp3{sys.version_info.minor}", f"cp3{sys.version_info.minor}", f"linux_{platform.machine()}"), True),
    ((f"cp3{sys.version_info.minor - 1}", "abi3", f"manylinux2014_{platform.machine()}"), True),
    ((f"cp3{sys.version_info.minor + 1}", "abi3", f"manylinux2014_{platform.machine()}"), False),
    ((f"cp3{sys.version_info.minor + 1}", f"cp3{sys.version_info.minor + 1}", "any"), False),
    (("py3", "none", "win_amd64_not_this_machine"), False),
    (("py2", "none", "any"), False),
])
def test_runs_here_reads_the_wheel_tags(tags: tuple[str, str, str], ok: bool) -> None:
    assert runs_here(*tags) is ok


def test_prepare_installs_once_into_a_keyed_directory(tmp_path: Path) -> None:
    house, cache = tmp_path / "house", tmp_path / "cache"
    build_wheel(house, "kbpin_demo", "1.0")
    site = prepare(("kbpin-demo==1.0",), house, cache)
    assert (site / "kbpin_demo" / "__init__.py").read_text() == '__version__ = "1.0"\n'
    assert site.parent == cache and ".tmp-" not in site.name
    marker = site / ".kb-pinned.json"
    stamp = marker.stat().st_mtime_ns
    assert prepare(("kbpin-demo==1.0",), house, cache) == site and marker.stat().st_mtime_ns == stamp
    with pytest.raises(PinError, match="no wheel of kbpin-demo==2.0 for Python"):
        prepare(("kbpin-demo==2.0",), house, cache)


def test_compare_reports_a_shadowed_pin() -> None:
    assert compare(("transformers==4.51.3",), {"transformers": "4.51.3", "torch": "2.11.0"}) == []
    assert compare(("transformers==4.51.3",), {"transformers": "5.17.0"}) == [
        "pinned transformers==4.51.3 but the program ran transformers 5.17.0"
    ]


CASE_META = """
id = "KB9999"
slug = "pinned-demo"
title = "pinned demo"
hardware = ["cpu"]
[[signatures]]
name = "demo"
exception = "ModuleNotFoundError"
message = "No module named 'kbpin_demo'"
[[reproductions]]
name = "default"
failing = "failing.py"
fixed = "fixed.py"
pins = [{pins}]
failing_expect = {{ signature = "demo" }}
fixed_expect = {{ measures = [{{ name = "demo_major", min = 1, max = 1 }}] }}
"""


def make_case(tmp_path: Path, pins: str) -> Path:
    folder = tmp_path / "cases" / "KB9999-pinned-demo"
    folder.mkdir(parents=True)
    (folder / "case.md").write_text(case_md(CASE_META.format(pins=pins)))
    (folder / "failing.py").write_text("import kbpin_missing_module_xyz\n")
    (folder / "fixed.py").write_text(
        "import kbpin_demo\nprint(f\"kb-measure demo_major={kbpin_demo.__version__.split('.')[0]}\")\n"
    )
    return folder


def test_runner_runs_the_pinned_version_and_records_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    house = tmp_path / "house"
    build_wheel(house, "kbpin_demo", "1.0")
    monkeypatch.setenv("KB_WHEELHOUSE", str(house))
    monkeypatch.setenv("KB_PINNED_CACHE", str(tmp_path / "cache"))
    case = load_case(make_case(tmp_path, '"kbpin-demo==1.0"'))
    assert case.reproductions[0].pins == ("kbpin-demo==1.0",)
    result = run_program(case, case.reproductions[0], "fixed", "cpu")
    assert result.passed, result.explanation + result.output
    env = result.environment()
    assert env["versions"]["kbpin-demo"] == "1.0"
    assert env["pins"] == ["kbpin-demo==1.0"]
    assert env["pinned_imported_from"]["kbpin-demo"].startswith(str(tmp_path / "cache"))


def test_case_rejects_a_pin_that_is_not_exact(tmp_path: Path) -> None:
    with pytest.raises(KnowledgeError, match="pins"):
        load_case(make_case(tmp_path, '"kbpin-demo>=1.0"'))


def test_existing_cases_have_no_pins_by_default() -> None:
    from kb.knowledge.registry import find_case

    assert all(rep.pins == () for rep in find_case("KB0001").reproductions)


def test_unpinned_requires_leave_out_what_the_pins_provide() -> None:
    from kb.reproduce.pinned import unpinned

    assert unpinned(("torch", "transformers", "trl"), ("transformers==4.51.3", "TRL==0.15.2")) == ("torch",)
    assert unpinned(("torch",), ()) == ("torch",)

"""The verified API-drift reproductions (drift/): complete entries, recorded evidence, agreement with the history.

The reproductions themselves run with ``python -m kb.apidrift.verify --record`` (they need the
pinned wheelhouse, so not in CI). Here the recorded evidence is judged again by the judge that
judges every case run (kb.reproduce.runner.judge_run, the entry mapped to its neutral Expected by
kb.apidrift.verify.expected), against the entry as it stands now: changing an entry's pins or
expected error without re-recording fails this test.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from kb.apidrift.releases import LIBRARIES
from kb.apidrift.verify import Entry, Run, all_entries, expected, program_digest
from kb.reproduce.runner import judge_run

ENTRIES = all_entries()
RUNS = [(entry, run) for entry in ENTRIES for run in entry.runs()]


def test_enough_entries_across_the_libraries() -> None:
    assert len(ENTRIES) >= 30
    per_library = Counter(entry.library for entry in ENTRIES)
    # bitsandbytes' CPU wheel runs few of its APIs; torch and deepspeed (in the history since v2) have no verified
    # runs yet: PyPI's torch wheels need the CUDA packages to import and download.pytorch.org is out of reach here, and deepspeed's changes
    # are in code that needs its compiled ops. Their history is read from the wheels only, and says so.
    unverified = {"bitsandbytes", "torch", "deepspeed"}
    thin = {lib: per_library[lib] for lib in LIBRARIES if lib not in unverified and per_library[lib] < 3}
    assert not thin, f"fewer than 3 entries: {thin}"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_entry_is_complete(entry: Entry) -> None:
    assert entry.summary.strip() and entry.version
    assert entry.old_pins != entry.new_pins
    # the two sides differ in the entry's own library: the fact is about that library's releases
    assert entry.pinned_version("old") != entry.pinned_version("new")
    if not entry.old_works:
        assert len(entry.old_works_note) > 20, "say why old-on-old is not run"
    for program in ("old.py", "new.py"):
        source = (entry.path / program).read_text()
        assert "raise " not in source, f"{program} must not raise the error itself"
        compile(source, str(entry.path / program), "exec")


@pytest.mark.parametrize(("entry", "run"), RUNS, ids=[f"{e.name}:{r.name}" for e, r in RUNS])
def test_recorded_evidence(entry: Entry, run: Run) -> None:
    path = entry.path / "evidence" / f"{run.name}.json"
    assert path.is_file(), f"no evidence for {run.name}: run python -m kb.apidrift.verify {entry.name} --record"
    record = json.loads(path.read_text())
    assert record["pins"] == list(entry.pins(run.side)), "evidence was recorded with other pins than the entry's"
    assert record["program"] == run.program and record["must_fail"] == run.must_fail
    if "program_sha256" in record:  # recorded since the runner hashes the program (older evidence has no hash)
        assert record["program_sha256"] == program_digest(entry, run), f"{run.program} changed after its evidence was recorded"
    # The pinned copies, not the machine's packages, were imported.
    imported_from = record["environment"].get("pinned_imported_from") or {}
    key = entry.library.replace("-", "_")  # huggingface_hub is pinned (and recorded) as huggingface-hub
    assert "kb/pinned/" in imported_from.get(key, imported_from.get(entry.library, imported_from.get(key.replace("_", "-"), ""))), imported_from
    # The harness's fields (status, exception, environment.versions) as one rank; the exit code was not recorded.
    passed, outcome, explanation = judge_run(
        expected(entry, run), timed_out=False, exit_code=None, ranks=[record], measures={}, output="",
        pins=entry.pins(run.side),
    )
    assert passed, explanation
    assert outcome == ("reproduced" if run.must_fail else "fixed"), (outcome, explanation)
    assert (entry.path / "evidence" / f"{run.name}.log").is_file()


def test_kb0012_is_an_entry_and_keeps_its_evidence() -> None:
    linked = [entry for entry in ENTRIES if entry.data.get("related_case") == "KB0012"]
    assert linked, "KB0012 (SFTTrainer tokenizer=) must be one of the entries"
    from pathlib import Path

    from kb import REPO_ROOT

    evidence = sorted(p.name for p in (Path(REPO_ROOT) / "cases" / "KB0012-trainer-tokenizer-renamed" / "evidence").glob("*.json"))
    assert evidence == ["default.failing.cpu.json", "default.fixed.cpu.json"]


# ---- agreement with the extracted history (kb.apidrift.history, built by `python -m kb.apidrift build`)


def history_or_skip():  # type: ignore[no-untyped-def]
    try:
        from kb.apidrift.history import load_history
    except ImportError as exc:
        pytest.skip(f"kb.apidrift.history is not importable yet ({exc}); the agreement check needs it")
    return load_history()


def history_version(history, library: str, pinned: str) -> str | None:  # type: ignore[no-untyped-def]
    """The history's release ``pinned`` itself (history v2 keeps every patch release; peft 0.6.0 dropped
    peft.utils.config and 0.6.1 brought it back), else the latest patch of the same major.minor."""
    versions = history.versions(library)
    if pinned in versions:
        return pinned
    minor = ".".join(pinned.split(".")[:2])
    matches = [v for v in versions if ".".join(v.split(".")[:2]) == minor]
    return matches[-1] if matches else None


def history_claim(history, entry: Entry, version: str) -> bool | None:  # type: ignore[no-untyped-def]
    """Does the history say the name that changed is accepted at ``version``? None: it has no answer."""
    name = entry.new if entry.direction == "added" else entry.old
    if entry.kind == "param":
        params = history.params(entry.library, entry.owner, version)
        return None if params is None else name in params
    if entry.kind == "name":
        exports = history.exports(entry.library, entry.owner, version)
        return None if exports is None else name in exports
    if entry.kind == "module":
        return history.exports(entry.library, name, version) is not None
    if entry.kind == "model_type":
        return name in history.model_types(version)
    if entry.kind == "member" and hasattr(history, "members"):  # history v2 (drift-history-interface.md)
        members = history.members(entry.library, entry.owner, version)
        return None if members is None else name in members
    if entry.kind == "enum_value" and hasattr(history, "enum_values"):
        values = history.enum_values(entry.library, entry.owner, version)
        return None if values is None else name in values
    return None  # config_check, default: no query for them; member/enum_value before history v2


V2_KINDS = {"member": "members", "enum_value": "enum_values"}  # kinds only history v2 can answer


def test_history_agrees_with_the_verified_entries() -> None:
    history = history_or_skip()
    disagreements, unanswered, outside = [], [], []
    checked = 0
    for entry in ENTRIES:
        if entry.kind in ("config_check", "default") or entry.kind in V2_KINDS and not hasattr(history, V2_KINDS[entry.kind]):
            continue
        versions = {side: history_version(history, entry.library, entry.pinned_version(side) or "") for side in ("old", "new")}
        if None in versions.values():
            outside.append(f"{entry.name} ({entry.pinned_version('old')}/{entry.pinned_version('new')})")
            continue
        # removed: the old name works on the old release only; added: the new name works on the new release only
        expected = {"old": entry.direction != "added", "new": entry.direction == "added"}
        for side, version in versions.items():
            claim = history_claim(history, entry, version)
            if claim is None:
                unanswered.append(f"{entry.name}: no answer for {entry.owner} at {entry.library} {version}")
            elif claim != expected[side]:
                name = entry.new if entry.direction == "added" else entry.old
                disagreements.append(
                    f"{entry.name}: history says {name!r} is {'accepted' if claim else 'absent'} at {entry.library} {version}, "
                    f"the verified run shows it {'accepted' if expected[side] else 'rejected'}"
                )
            else:
                checked += 1
    print(f"{checked} claims agree; versions outside the history: {outside}")
    assert not disagreements, "\n".join(disagreements)
    assert not unanswered, "\n".join(unanswered)
    assert checked >= 40, f"only {checked} history claims could be compared (outside the history: {outside})"


# ---- the agreement check's own logic (no installs: those run in `python -m kb.apidrift.agreement`)


def test_agreement_sampling_draws_present_and_absent_claims() -> None:
    from kb.apidrift.agreement import JsonHistory, sample_pairs

    history = JsonHistory({
        "peft": {
            "0.9.0": {"exports": {"peft": ["LoraConfig", "prepare_model_for_int8_training"]},
                      "params": {"peft.LoraConfig": ["r", "use_dora"]}},
            "0.10.0": {"exports": {"peft": ["LoraConfig", "prepare_model_for_kbit_training"]},
                       "params": {"peft.LoraConfig": ["r", "use_dora", "layer_replication"]}},
        },
    })
    # 12 distinct claims, 3 of them "absent": 10 pairs cannot all be "present"
    pairs = sample_pairs(history, 10, seed=0, versions_per_library=2)
    assert len(pairs) == 10
    assert len({(p.version, p.target, p.name) for p in pairs}) == 10
    assert {p.claim for p in pairs} == {True, False}
    for p in pairs:  # each claim is what the history says at that version
        known = history.exports("peft", p.target, p.version) if p.kind == "export" else history.params("peft", p.target, p.version)
        assert (p.name in known) == p.claim


def test_agreement_inspection_resolves_kwargs_up_the_mro() -> None:
    from kb.apidrift.agreement import accepted_parameters, inspect_pair

    class Base:
        def __init__(self, a: int = 0, b: int = 0) -> None: ...

    class Child(Base):
        def __init__(self, c: int = 0, **kwargs: int) -> None:
            super().__init__(**kwargs)

    assert accepted_parameters(Child) == ({"a", "b", "c"}, False)
    assert inspect_pair("export", "json", "dumps")["real"] is True
    assert inspect_pair("export", "json", "no_such_name")["real"] is False
    assert inspect_pair("param", "json.dumps", "indent")["real"] is True
    assert inspect_pair("param", "json.dumps", "no_such_param")["real"] is False


def _file(name: str, uploaded: str = "2022-03-10T12:00:00Z") -> dict[str, object]:
    return {"filename": name, "upload-time": uploaded}


def test_agreement_undecidable_releases_are_the_ones_this_python_cannot_install() -> None:
    from datetime import UTC, datetime

    from kb.apidrift.agreement import Pair, installs_here, report, undecidable_reason, upload_time

    torch_111 = [_file("torch-1.11.0-cp310-cp310-manylinux1_x86_64.whl"),
                 _file("torch-1.11.0-cp39-none-macosx_11_0_arm64.whl", "2022-03-09T08:00:00Z")]
    assert upload_time(torch_111) == datetime(2022, 3, 9, 8, tzinfo=UTC)  # the era starts at the first file
    assert not installs_here(torch_111, "cp311")
    assert installs_here([*torch_111, _file("torch-1.11.0-cp311-cp311-manylinux1_x86_64.whl")], "cp311")
    assert installs_here([_file("deepspeed-0.8.3.tar.gz")], "cp311")  # an sdist may build
    assert installs_here([_file("peft-0.3.0-py3-none-any.whl")], "cp311")
    assert not installs_here([_file("x-1.0-cp311-cp311-win_amd64.whl")], "cp311")
    assert installs_here([_file("bitsandbytes-0.45.0-py3-none-manylinux_2_24_x86_64.whl")], "cp311")
    assert not installs_here([_file("bitsandbytes-0.45.0-py3-none-win_amd64.whl")], "cp311")
    assert "no wheel or sdist" in (undecidable_reason("torch", "1.11.0", torch_111, "2.13.0+cpu", "cp311") or "")
    wheel_311 = [_file("torch-2.1.1-cp311-cp311-manylinux1_x86_64.whl")]
    assert "keeps this interpreter's torch" in (undecidable_reason("torch", "2.1.1", wheel_311, "2.13.0+cpu", "cp311") or "")
    assert undecidable_reason("torch", "2.13.0", wheel_311, "2.13.0+cpu", "cp311") is None
    assert undecidable_reason("peft", "0.3.0", [_file("peft-0.3.0-py3-none-any.whl")], "2.13.0", "cp311") is None

    # undecidable pairs leave the denominator of decidable pairs and never count as agreement
    pairs = [Pair("peft", "0.3.0", "export", "peft", "LoraConfig", True, real=True),
             Pair("peft", "0.3.0", "export", "peft", "Gone", True, real=False),
             Pair("torch", "1.11.0", "export", "torch", "gt", True, undecidable=True, note="undecidable here: ...")]
    text = report(pairs, seed=0, source="test")
    assert "1/3 pairs" in text and "1/2 of the pairs this machine can decide" in text
    assert not pairs[2].agrees
    assert "## Disagreements (1)" in text


def test_agreement_names_bound_only_in_a_branch_are_found() -> None:
    from kb.apidrift.agreement import conditional_import

    source = (
        "import math\n"
        "from x import is_triton_available\n"
        "if not is_triton_available():\n"
        "    def kernel(): return None\n"
        "else:\n"
        "    from triton.ops.matmul_perf_model import early_config_prune, estimate_matmul_time\n"
        "    def kernel(): return early_config_prune\n"
        "try:\n"
        "    import boto3 as s3\n"
        "except ImportError:\n"
        "    pass\n"
        "import json\n"
        "if True:\n"
        "    import json\n"
    )
    assert conditional_import(source, "early_config_prune") == (
        "from triton.ops.matmul_perf_model import early_config_prune, estimate_matmul_time")
    assert conditional_import(source, "s3") == "import boto3 as s3"
    assert conditional_import(source, "json") is None  # also bound unconditionally
    assert conditional_import(source, "math") is None
    assert conditional_import(source, "kernel") is None  # not an import
    assert conditional_import(source, "absent") is None


def test_agreement_era_pins_never_break_the_interpreters_torch() -> None:
    from kb.apidrift.agreement import keeps_torch_working

    requires = ["typing-extensions>=4.10.0", "filelock", 'sympy>=1.13.3; python_version >= "3.9"', "fsspec>=0.8.5",
                'optree>=0.13.0; extra == "optree"']
    assert not keeps_torch_working("typing_extensions", "4.7.1", requires)
    assert keeps_torch_working("typing-extensions", "4.12.2", requires)
    assert keeps_torch_working("filelock", "3.0.0", requires)
    assert keeps_torch_working("optree", "0.1.0", requires)  # an extra's requirement does not bind
    assert keeps_torch_working("pyarrow", "10.0.1", requires)

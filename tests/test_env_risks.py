"""kb/env/risks.py: every pre-flight check, the case links, and `kb diagnose --env`."""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any

import pytest

from kb.env import report as kbenv
from kb.knowledge.model import Case
from kb.knowledge.load import load_case
from kb.knowledge.registry import all_cases, load_knowledge

from casefiles import write_case
from kb.cli import main
from kb.env.report import collect
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.diagnose.errors import ParsedError
from kb.diagnose.match import Match
from kb.env.risks import ENV_WEIGHT, machine_evidence

from tests.test_env import H200, LAUNCH_VARS, T4, FakeNvml, machine


def report_on(monkeypatch: pytest.MonkeyPatch, fake: FakeNvml | None, environ: dict[str, str] | None = None,
              cases: list[Case] | None = None, **kw: Any) -> dict[str, Any]:
    if fake is None:
        def missing() -> None:
            raise ImportError("pynvml")
        monkeypatch.setattr(kbenv, "_import_pynvml", missing)
    else:
        monkeypatch.setattr(kbenv, "_import_pynvml", lambda: fake)
    return collect(environ=environ or {}, cases=cases if cases is not None else list(all_cases()), **kw)


def check(report: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [c for c in report["checks"] if c["check"] == name]
    return found


def make_case(tmp_path: Path, case_id: str, slug: str, extra: str = "") -> Case:
    folder = write_case(tmp_path / f"{case_id}-{slug}", f'id = "{case_id}"\nslug = "{slug}"\ntitle = "Title of {slug}"\n{extra}')
    return load_case(folder)


def config(tmp_path: Path, **settings: Any) -> str:
    f = tmp_path / "args.json"
    f.write_text(json.dumps(settings))
    return str(f)


# --------------------------------------------------------------------------- batch-size-times-gpu-count


def test_two_gpus_plain_python_is_a_risk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    report = report_on(monkeypatch, machine(T4, T4), config_path=config(tmp_path, per_device_train_batch_size=2))
    c = check(report, "multi-gpu-not-distributed")
    assert (c["status"], c["slug"], c["severity"]) == ("risk", "batch-size-times-gpu-count", "warning")
    assert "per_device_train_batch_size=2 becomes 2 x 2 = 4 per step" in c["message"]
    assert c["in_kb"] is True and c["case"] == "KB0009" and c["more"] == "kb show KB0009"
    assert c in report["risks"]


def test_a_case_carries_its_own_risk_rule(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A rule written as data in a case's [[risks]]: first branch that holds decides, facts fill the message."""
    rule = (
        '[[risks]]\ncheck = "many-gpus"\n'
        '[[risks.branches]]\nwhen = ["visible_gpus is unknown"]\nstatus = "skipped"\nmessage = "no count"\n'
        '[[risks.branches]]\nwhen = ["visible_gpus > 1", "not launched_distributed"]\nstatus = "risk"\n'
        'message = "{visible_gpus} GPUs, one process"\n'
        '[[risks.branches]]\nstatus = "ok"\nmessage = "fine"\n'
    )
    case = make_case(tmp_path, "KB0042", "my-risk", extra=rule)
    c = check(report_on(monkeypatch, machine(H200, H200), cases=[case]), "many-gpus")
    assert (c["status"], c["message"], c["case"], c["more"]) == ("risk", "2 GPUs, one process", "KB0042", "kb show KB0042")
    assert check(report_on(monkeypatch, machine(H200), cases=[case]), "many-gpus")["status"] == "ok"
    assert check(report_on(monkeypatch, None, cases=[case]), "many-gpus")["message"] == "no count"


def test_a_risk_condition_kb_cannot_read_fails_the_case_load(tmp_path: Path) -> None:
    from kb.knowledge.model import KnowledgeError

    bad = '[[risks]]\ncheck = "x"\n[[risks.branches]]\nwhen = ["visible_gpus >>> 1"]\nstatus = "risk"\nmessage = "m"\n'
    with pytest.raises(KnowledgeError, match=r"risks\[0\]\.branches\[0\]\.when: cannot read"):
        make_case(tmp_path, "KB0043", "bad-risk", extra=bad)


@pytest.mark.parametrize(
    "environ, nproc, expected",
    [
        ({"CUDA_VISIBLE_DEVICES": "0"}, None, "ok"),  # the incident's fix
        ({"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0"}, None, "ok"),  # torchrun
        ({}, 2, "ok"),  # the user says they will launch 2 processes
        ({"CUDA_VISIBLE_DEVICES": "0,1"}, None, "risk"),
        ({"CUDA_VISIBLE_DEVICES": "0,0"}, None, "ok"),  # a repeat hides every GPU
    ],
)
def test_batch_check_cases(monkeypatch: pytest.MonkeyPatch, environ: dict[str, str], nproc: int | None, expected: str) -> None:
    report = report_on(monkeypatch, machine(T4, T4), environ=environ, nproc=nproc)
    assert check(report, "multi-gpu-not-distributed")["status"] == expected


def test_batch_check_skipped_without_nvml(monkeypatch: pytest.MonkeyPatch) -> None:
    c = check(report_on(monkeypatch, None), "multi-gpu-not-distributed")
    assert (c["status"], c["message"]) == ("skipped", "cannot count the visible GPUs (NVML not readable)")


# --------------------------------------------------------------------------- bf16-unsupported-gpu


def test_bf16_on_t4_is_a_risk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    report = report_on(monkeypatch, machine(T4), config_path=config(tmp_path, bf16=True))
    c = check(report, "bf16-on-gpu-without-bf16")
    assert (c["status"], c["slug"]) == ("risk", "bf16-unsupported-gpu")
    assert c["message"].startswith("bf16=true in the config, but GPU 0 Tesla T4 (compute capability 7.5) has no native bf16")


@pytest.mark.parametrize(
    "settings, environ, expected",
    [
        ({"bf16": "true"}, {}, "risk"),
        ({"model_init_kwargs": {"torch_dtype": "bfloat16"}}, {}, "risk"),
        ({"mixed_precision": "bf16"}, {}, "risk"),
        ({"bf16": "auto"}, {}, "ok"),  # axolotl's auto picks what the GPU supports
        ({"fp16": True}, {}, "ok"),
        (None, {"ACCELERATE_MIXED_PRECISION": "bf16"}, "risk"),
        (None, {}, "skipped"),
    ],
)
def test_bf16_requests(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, settings: dict[str, Any] | None,
                       environ: dict[str, str], expected: str) -> None:
    path = config(tmp_path, **settings) if settings is not None else None
    report = report_on(monkeypatch, machine(T4), environ=environ, config_path=path)
    assert check(report, "bf16-on-gpu-without-bf16")["status"] == expected


def test_bf16_message_names_every_gpu_without_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    c = check(report_on(monkeypatch, machine(T4, T4), config_path=config(tmp_path, bf16=True)), "bf16-on-gpu-without-bf16")
    assert "GPU 0 Tesla T4 (compute capability 7.5), GPU 1 Tesla T4 (compute capability 7.5) have no native bf16" in c["message"]
    assert c["message"].endswith("use fp16 on these GPUs")


def test_bf16_on_h200_is_fine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    c = check(report_on(monkeypatch, machine(H200), config_path=config(tmp_path, bf16=True)), "bf16-on-gpu-without-bf16")
    assert (c["status"], c["message"]) == ("ok", "bf16=true in the config, and every visible GPU has compute capability >= 8.0")


def test_bf16_only_counts_visible_gpus(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    report = report_on(monkeypatch, machine(T4, H200), environ={"CUDA_VISIBLE_DEVICES": "1"},
                       config_path=config(tmp_path, bf16=True))
    assert check(report, "bf16-on-gpu-without-bf16")["status"] == "ok"


def test_bf16_skipped_without_nvml(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    c = check(report_on(monkeypatch, None, config_path=config(tmp_path, bf16=True)), "bf16-on-gpu-without-bf16")
    assert c["status"] == "skipped"
    assert "compute capability is unknown" in c["message"]


# --------------------------------------------------------------------------- nccl-duplicate-gpu


@pytest.mark.parametrize(
    "environ, nproc, settings, expected",
    [
        ({}, 4, None, "risk"),
        ({}, 2, None, "ok"),
        ({"RANK": "0", "WORLD_SIZE": "4", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "4"}, None, None, "risk"),
        ({"CUDA_VISIBLE_DEVICES": "0"}, 2, None, "risk"),
        ({}, None, {"num_processes": 8, "num_machines": 2}, "risk"),  # 4 per node on 2 GPUs
        ({}, None, {"num_processes": 4, "num_machines": 2}, "ok"),
        ({}, None, None, "skipped"),
    ],
)
def test_processes_vs_gpus(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, environ: dict[str, str],
                           nproc: int | None, settings: dict[str, Any] | None, expected: str) -> None:
    path = config(tmp_path, **settings) if settings else None
    report = report_on(monkeypatch, machine(H200, H200), environ=environ, nproc=nproc, config_path=path)
    c = check(report, "processes-exceed-gpus")
    assert (c["status"], c["slug"]) == (expected, "nccl-duplicate-gpu")


def test_duplicate_gpu_message(monkeypatch: pytest.MonkeyPatch) -> None:
    c = check(report_on(monkeypatch, machine(H200, H200), nproc=4), "processes-exceed-gpus")
    assert c["message"].startswith("4 processes per node (--nproc) but only 2 GPU(s) visible")


# --------------------------------------------------------------------------- version ranges


def _python_range(inside: bool) -> str:
    major, minor = map(int, platform.python_version_tuple()[:2])
    return f">={major}.{minor},<{major}.{minor + 1}" if inside else f"<{major}.{minor}"


def test_installed_version_inside_a_case_range(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    extra = f'[versions]\naffected = [{{package = "python", spec = "{_python_range(True)}", note = "why"}}]'
    case = make_case(tmp_path, "KB0077", "some-version-bug", extra)
    (c,) = [c for c in report_on(monkeypatch, None, cases=[case])["risks"]]
    assert c["check"] == "version-range:KB0077:python"
    assert c["message"] == (
        f"your python {platform.python_version()} is affected by KB0077 some-version-bug "
        f"(python{_python_range(True)}): Title of some-version-bug (why)"
    )
    assert c["more"] == "kb show KB0077"


def test_installed_version_outside_the_range(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    extra = f'[versions]\naffected = [{{package = "python", spec = "{_python_range(False)}"}}]'
    case = make_case(tmp_path, "KB0078", "old-python-bug", extra)
    report = report_on(monkeypatch, None, cases=[case])
    assert report["risks"] == []
    assert check(report, "version-range:KB0078:python")["status"] == "ok"


def test_real_package_version_range(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from importlib import metadata

    torch_version = metadata.version("torch").split("+")[0]
    extra = f'[versions]\naffected = [{{package = "torch", spec = "=={torch_version}"}}]'
    case = make_case(tmp_path, "KB0079", "torch-bug", extra)
    (risk,) = report_on(monkeypatch, None, cases=[case])["risks"]
    assert risk["message"].startswith(f"your torch {metadata.version('torch')} is affected by KB0079")


def test_package_not_installed_is_skipped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    extra = '[versions]\naffected = [{package = "surely-not-installed-pkg", spec = ">=1.0"}]'
    case = make_case(tmp_path, "KB0080", "ghost", extra)
    c = check(report_on(monkeypatch, None, cases=[case]), "version-range:KB0080:surely-not-installed-pkg")
    assert (c["status"], c["message"]) == ("skipped", "surely-not-installed-pkg is not installed")


def test_no_ranges_in_the_kb_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    c = check(report_on(monkeypatch, None, cases=[]), "version-range")
    assert (c["status"], c["slug"], c["more"]) == ("skipped", None, None)


def test_broken_case_does_not_stop_kb_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    good = tmp_path / "KB0001-good"
    good.mkdir()
    write_case(good, 'id = "KB0001"\nslug = "good"\ntitle = "t"')
    bad = tmp_path / "KB0002-bad"
    bad.mkdir()
    (bad / "case.md").write_text("+++\nid = \n+++\n")
    monkeypatch.setenv("KB_CASES_DIR", str(tmp_path))
    monkeypatch.setattr(kbenv, "_import_pynvml", lambda: machine(T4))
    report = collect(environ={})
    assert any(u.startswith("case KB0002-bad:") for u in report["unreadable"])


# --------------------------------------------------------------------------- kb diagnose --env


def _matches(*slugs: str, score: float = 0.85) -> list[Match]:
    """Case matches of real cases at one score, as kb/diagnose/match.py makes them, before ranking."""
    by_slug = {c.slug: c for c in all_cases()}
    error = ParsedError("RuntimeError", "boom", line_no=1)
    return [Match(by_slug[s], by_slug[s].signatures[0], error, score, {}) for s in slugs]


def test_diagnose_env_strengthens_batch_case_before_ranking(monkeypatch: pytest.MonkeyPatch) -> None:
    machine_ev = machine_evidence(report_on(monkeypatch, machine(T4, T4)), all_cases())
    other, batch = _matches("dtype-double-vs-float", "batch-size-times-gpu-count")
    machine_ev.weigh([other, batch])
    assert batch.score == round(0.85 + ENV_WEIGHT, 3)  # ranked on this score (kb/diagnose/diagnosis.py)
    assert batch.evidence[0].startswith("this machine (kb env) fits: 2 GPUs are visible")
    assert other.score == 0.85 and other.evidence == [] and machine_ev.on(other.entry.slug) == {"supports": [], "against": []}
    assert machine_ev.report["schema"] == "kb-env/1"


def test_diagnose_env_bf16_evidence_for_and_against(monkeypatch: pytest.MonkeyPatch) -> None:
    (m,) = _matches("bf16-unsupported-gpu")
    on_t4 = machine_evidence(report_on(monkeypatch, machine(T4)), all_cases())
    on_t4.weigh([m])
    assert "Tesla T4 (compute capability 7.5) has no native bf16" in on_t4.on(m.entry.slug)["supports"][0]
    assert m.score == round(0.85 + ENV_WEIGHT, 3)
    (m,) = _matches("bf16-unsupported-gpu", score=1.0)
    on_h200 = machine_evidence(report_on(monkeypatch, machine(H200)), all_cases())
    on_h200.weigh([m])
    assert m.score == 1.0 and on_h200.on(m.entry.slug)["supports"] == []
    assert m.evidence == [
        "this machine (kb env) does not fit: bf16 is in use (the error being diagnosed), and every visible GPU has compute capability >= 8.0"
    ]


def test_diagnose_env_lists_unmatched_risks_as_notes(monkeypatch: pytest.MonkeyPatch) -> None:
    machine_ev = machine_evidence(report_on(monkeypatch, machine(T4, T4)), all_cases())
    notes = machine_ev.notes(set())
    assert notes[0].startswith("this machine (kb env) has a risk [batch-size-times-gpu-count]: 2 GPUs are visible")
    assert not any("[batch-size-times-gpu-count]" in n for n in machine_ev.notes({"batch-size-times-gpu-count"}))


def test_machine_evidence_changes_the_ranking_in_the_pipeline(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's evidence enters diagnose before ranking: on a T4 the bf16 case gains on the same log,
    and from a tie with its family it moves ahead of it."""
    log = ["Traceback (most recent call last):", '  File "train.py", line 9, in <module>', "    trainer.train()",
           "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0"]
    knowledge = load_knowledge()
    plain = diagnosis_document(diagnose_lines(log, knowledge))
    on_t4 = machine_evidence(report_on(monkeypatch, machine(T4)), knowledge.cases)
    with_env = diagnosis_document(diagnose_lines(log, knowledge, on_t4))
    assert "env" not in plain and with_env["env"]["schema"] == "kb-env/1"
    before = {m["slug"]: m["score"] for m in plain["matches"]}
    after = {m["slug"]: m["score"] for m in with_env["matches"]}
    assert before["bf16-unsupported-gpu"] == before["precision-unsupported"]
    assert after["bf16-unsupported-gpu"] == round(before["bf16-unsupported-gpu"] + ENV_WEIGHT, 3)
    assert after["precision-unsupported"] == before["precision-unsupported"]
    assert with_env["matches"][0]["slug"] == "bf16-unsupported-gpu"
    assert with_env["matches"][0]["env"]["supports"] and with_env["notes"][-1].startswith("kb env facts were read")


def test_diagnose_env_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in LAUNCH_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(kbenv, "_import_pynvml", lambda: machine(T4, T4))
    log = tmp_path / "err.txt"
    log.write_text(
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n'
        "    out = torch.matmul(x, w)\n"
        "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"
    )
    code = main(["diagnose", str(log), "--env", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    assert doc["env"]["schema"] == "kb-env/1"
    assert doc["matches"][0]["env"] == {"supports": [], "against": []}
    assert any(n.startswith("this machine (kb env) has a risk [batch-size-times-gpu-count]") for n in doc["notes"])
    # without --env the document is unchanged
    main(["diagnose", str(log), "--format", "json"])
    assert "env" not in json.loads(capsys.readouterr().out)

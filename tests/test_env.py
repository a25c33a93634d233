"""`kb env`: the report (NVML absent, failing, or a simulated machine), CUDA_VISIBLE_DEVICES,
launch detection, --config, the JSON schema and what must never be echoed.

The simulated machines replace kb.env.report._import_pynvml with a small stand-in for the
pynvml module: this tests kb's reading and risk logic, not NVML itself (the lead
runs `kb env` on a real 2x H200 machine and records it in the issue).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kb.env import report as kbenv
from kb.knowledge.registry import all_cases
from kb.cli import main
from kb.env.report import collect, read_distributed, resolve_visible
from kb.env.config import ConfigError, read_config

REPO = Path(__file__).resolve().parent.parent
GIB = 1024**3
LAUNCH_VARS = (
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
    "TORCHELASTIC_RUN_ID", "MASTER_ADDR", "MASTER_PORT", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE",
)


class FakeNvml:
    """Just enough of pynvml's surface for kb.env.report.read_nvml."""

    class NVMLError(Exception):
        pass

    def __init__(self, gpus: list[dict[str, Any]], fail_init: bool = False) -> None:
        self.gpus, self.fail_init = gpus, fail_init

    def nvmlInit(self) -> None:
        if self.fail_init:
            raise self.NVMLError("Driver Not Loaded")

    def nvmlShutdown(self) -> None:
        pass

    def nvmlSystemGetDriverVersion(self) -> bytes:
        return b"570.86.15"

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        return 12080

    def nvmlDeviceGetCount(self) -> int:
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, i: int) -> int:
        return i

    def nvmlDeviceGetName(self, h: int) -> bytes:
        return self.gpus[h]["name"].encode()  # older pynvml returns bytes

    def nvmlDeviceGetUUID(self, h: int) -> str:
        return self.gpus[h]["uuid"]

    def nvmlDeviceGetMemoryInfo(self, h: int) -> SimpleNamespace:
        total, used = self.gpus[h]["total"], self.gpus[h].get("used", 0)
        return SimpleNamespace(total=total, free=total - used, used=used)

    def nvmlDeviceGetCudaComputeCapability(self, h: int) -> tuple[int, int]:
        return self.gpus[h]["cc"]

    def nvmlDeviceGetComputeRunningProcesses(self, h: int) -> list[SimpleNamespace]:
        if self.gpus[h].get("procs_unsupported"):
            raise self.NVMLError("Not Supported")
        return [SimpleNamespace(pid=p, usedGpuMemory=512 * 1024 * 1024) for p in self.gpus[h].get("pids", [])]

    def nvmlSystemGetProcessName(self, pid: int) -> str:
        return "/home/alice/miniconda3/envs/ft/bin/python3.11"

    def nvmlDeviceGetMigMode(self, h: int) -> tuple[int, int]:
        raise self.NVMLError("Not Supported")

    def nvmlDeviceGetMaxMigDeviceCount(self, h: int) -> int:
        return 0

    def nvmlDeviceGetMigDeviceHandleByIndex(self, h: int, i: int) -> int:
        raise self.NVMLError("Not Found")


T4 = {"name": "Tesla T4", "cc": (7, 5), "total": 15 * GIB}
H200 = {"name": "NVIDIA H200", "cc": (9, 0), "total": 141 * GIB}


def machine(*models: dict[str, Any], **extra: Any) -> FakeNvml:
    gpus = [dict(m, uuid=f"GPU-{i}{i}{i}aaaa-0000-1111-2222-33334444555{i}", **extra) for i, m in enumerate(models)]
    return FakeNvml(gpus)


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in LAUNCH_VARS:
        monkeypatch.delenv(name, raising=False)
    for name in list(os.environ):
        if name.startswith("ACCELERATE_"):
            monkeypatch.delenv(name)
    return monkeypatch


def use(monkeypatch: pytest.MonkeyPatch, fake: FakeNvml) -> None:
    monkeypatch.setattr(kbenv, "_import_pynvml", lambda: fake)


def check(report: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [c for c in report["checks"] if c["check"] == name]
    return found


# --------------------------------------------------------------------------- NVML absent / failing


def test_nvml_really_absent_on_this_machine() -> None:
    """On a machine without an NVIDIA driver the real pynvml fails to start; kb says so."""
    pynvml = pytest.importorskip("pynvml")
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError:
        pass
    else:
        pynvml.nvmlShutdown()
        pytest.skip("NVML works here: this test is for machines without a driver")
    report = collect(environ={}, cases=list(all_cases()))
    assert report["nvml"]["available"] is False
    assert "NVML could not start" in report["nvml"]["error"]
    assert report["gpus"] is None
    assert report["cuda_visible_devices"]["visible_count"] is None
    assert any(u.startswith("GPUs: NVML could not start") for u in report["unreadable"])
    assert check(report, "multi-gpu-not-distributed")["status"] == "skipped"


def test_without_nvidia_ml_py(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> None:
        raise ImportError("No module named 'pynvml'")

    monkeypatch.setattr(kbenv, "_import_pynvml", missing)
    report = collect(environ={}, cases=list(all_cases()))
    assert report["nvml"] == {
        "available": False,
        "error": "nvidia-ml-py is not installed (pip install nvidia-ml-py)",
        "driver_version": None,
        "cuda_driver_version": None,
    }
    assert "GPUs: nvidia-ml-py is not installed (pip install nvidia-ml-py)" in report["unreadable"]


def test_nvml_init_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, FakeNvml([], fail_init=True))
    report = collect(environ={}, cases=list(all_cases()))
    assert report["nvml"]["available"] is False
    assert "Driver Not Loaded" in report["nvml"]["error"]


def test_without_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    real = kbenv._dist_version
    monkeypatch.setattr(kbenv, "_dist_version", lambda name: None if name == "torch" else real(name))
    report = collect(environ={}, cases=list(all_cases()))
    assert report["versions"]["torch"] is None
    assert report["versions"]["torch_cuda"] is None
    assert "torch: not installed" in report["unreadable"]


def test_versions_read_from_metadata() -> None:
    from importlib import metadata

    report = collect(environ={}, cases=list(all_cases()))
    assert report["versions"]["torch"] == metadata.version("torch")
    assert report["versions"]["python"] == ".".join(map(str, sys.version_info[:3]))


class _Dist:
    def __init__(self, root: Path) -> None:
        self.root = root

    def locate_file(self, name: str) -> Path:
        return self.root / name


def test_torch_cuda_read_from_version_py(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "version.py").write_text(
        "from typing import Optional\n__version__ = '2.8.0+cu128'\ncuda: Optional[str] = '12.8'\nhip = None\n"
    )
    monkeypatch.setattr(kbenv.metadata, "distribution", lambda name: _Dist(tmp_path))
    assert kbenv.torch_cuda_version("2.8.0+cu128") == ("12.8", "torch/version.py")
    (tmp_path / "torch" / "version.py").write_text("cuda = None\n")
    assert kbenv.torch_cuda_version("2.8.0") == (None, "torch/version.py: cuda = None, a build without CUDA")
    (tmp_path / "torch" / "version.py").unlink()  # unreadable: fall back to the wheel's tag
    assert kbenv.torch_cuda_version("2.8.0+cu126") == ("12.6", "the wheel's version tag")


def test_nccl_from_its_wheel(monkeypatch: pytest.MonkeyPatch) -> None:
    dists = [SimpleNamespace(metadata={"Name": "numpy"}, version="2.1.0"),
             SimpleNamespace(metadata={"Name": "nvidia_nccl_cu12"}, version="2.27.3")]
    monkeypatch.setattr(kbenv.metadata, "distributions", lambda: dists)
    assert kbenv.nccl_version() == ("2.27.3", "nvidia-nccl-cu12")
    monkeypatch.setattr(kbenv.metadata, "distributions", lambda: dists[:1])
    assert kbenv.nccl_version() == (None, None)


def test_torch_cuda_from_wheel_tag() -> None:
    assert kbenv._cuda_from_tag("2.5.1+cu121") == "12.1"
    assert kbenv._cuda_from_tag("2.8.0+cu128") == "12.8"
    assert kbenv._cuda_from_tag("2.13.0+cpu") is None


# --------------------------------------------------------------------------- a simulated 2x T4 machine


def test_two_t4s_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, machine(T4, T4, pids=[4242]))
    report = collect(environ={}, cases=list(all_cases()))
    assert report["nvml"]["driver_version"] == "570.86.15"
    assert report["nvml"]["cuda_driver_version"] == "12.8"
    g0, g1 = report["gpus"]
    assert (g0["name"], g0["compute_capability"], g0["bf16"]) == ("Tesla T4", "7.5", False)
    assert g0["memory_total_mib"] == 15 * 1024
    assert g0["processes"] == [{"pid": 4242, "name": "python3.11", "used_memory_mib": 512}]
    assert (g0["cuda_index"], g1["cuda_index"]) == (0, 1)
    assert report["cuda_visible_devices"]["visible_count"] == 2


def test_normal_nvml_refusals_are_not_reported_as_unreadable(monkeypatch: pytest.MonkeyPatch) -> None:
    """A T4 answers "Not Supported" for MIG mode: that is not something kb failed to read."""
    use(monkeypatch, machine(T4, pids=[1]))
    report = collect(environ={}, cases=list(all_cases()))
    assert [u for u in report["unreadable"] if u.startswith("NVML")] == []


class MigNvml(FakeNvml):
    """GPU 1 is an A100 split into MIG slices; slot 1 of 3 is empty."""

    def nvmlDeviceGetMigMode(self, h: Any) -> tuple[int, int]:
        if h == 1:
            return (1, 1)
        raise self.NVMLError("Not Supported")

    def nvmlDeviceGetMaxMigDeviceCount(self, h: Any) -> int:
        return 3

    def nvmlDeviceGetMigDeviceHandleByIndex(self, h: Any, slot: int) -> tuple[int, int]:
        if slot == 1:
            raise self.NVMLError("Not Found")
        return (h, slot)

    def nvmlDeviceGetUUID(self, h: Any) -> str:
        return f"MIG-{h[0]}{h[1]}cafe-0000" if isinstance(h, tuple) else super().nvmlDeviceGetUUID(h)

    def nvmlDeviceGetMemoryInfo(self, h: Any) -> SimpleNamespace:
        if isinstance(h, tuple):
            return SimpleNamespace(total=10 * GIB, free=10 * GIB, used=0)
        return super().nvmlDeviceGetMemoryInfo(h)


def test_mig_slices_are_listed_and_resolved(monkeypatch: pytest.MonkeyPatch) -> None:
    a100 = {"name": "NVIDIA A100-SXM4-40GB", "cc": (8, 0), "total": 40 * GIB}
    fake = MigNvml(machine(a100, a100).gpus)
    use(monkeypatch, fake)
    report = collect(environ={"CUDA_VISIBLE_DEVICES": "MIG-12cafe"}, cases=[])
    assert report["gpus"][0]["mig_devices"] == []
    assert report["gpus"][1]["mig_devices"] == [
        {"uuid": "MIG-10cafe-0000", "memory_total_mib": 10240},
        {"uuid": "MIG-12cafe-0000", "memory_total_mib": 10240},
    ]
    assert report["cuda_visible_devices"]["visible"] == [1]
    assert [g["visible"] for g in report["gpus"]] == [False, True]


class OldNvml(FakeNvml):
    """A pynvml too old to have nvmlDeviceGetCudaComputeCapability."""

    def __getattribute__(self, name: str) -> Any:
        if name == "nvmlDeviceGetCudaComputeCapability":
            raise AttributeError(f"module 'pynvml' has no attribute {name!r}")
        return super().__getattribute__(name)


def test_old_pynvml_costs_one_field(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use(monkeypatch, OldNvml(machine(T4).gpus))
    cfg = tmp_path / "a.json"
    cfg.write_text('{"bf16": true}')
    report = collect(environ={}, config_path=str(cfg), cases=list(all_cases()))
    gpu = report["gpus"][0]
    assert (gpu["name"], gpu["compute_capability"], gpu["bf16"]) == ("Tesla T4", None, None)
    assert any(u.startswith("NVML: GPU 0 compute capability: module 'pynvml' has no attribute") for u in report["unreadable"])
    assert check(report, "bf16-on-gpu-without-bf16")["status"] == "skipped"


def test_processes_not_supported_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, machine(T4, procs_unsupported=True))
    report = collect(environ={}, cases=list(all_cases()))
    assert report["gpus"][0]["processes"] is None
    assert any("GPU 0 processes: Not Supported" in u for u in report["unreadable"])


# --------------------------------------------------------------------------- CUDA_VISIBLE_DEVICES


GPUS = [
    {"index": 0, "uuid": "GPU-0a1b2c3d-1111", "mig_devices": []},
    {"index": 1, "uuid": "GPU-0a9f0000-2222", "mig_devices": [{"uuid": "MIG-77aa-1"}, {"uuid": "MIG-77bb-2"}]},
    {"index": 2, "uuid": "GPU-ffff0000-3333", "mig_devices": []},
]


@pytest.mark.parametrize(
    "value, visible, count",
    [
        (None, [0, 1, 2], 3),
        ("", [], 0),
        ("  ", [], 0),
        ("1", [1], 1),
        ("2,0", [2, 0], 2),
        (" 1 , 2 ", [1, 2], 2),
        ("0,5,1", [0], 1),  # 5 is past the last GPU: CUDA stops there
        ("0,-1,1", [0], 1),  # a negative entry ends the list
        ("1gpu,2", [1, 2], 2),  # read like strtoul
        ("x,1", [], 0),
        ("0,0", [], 0),  # a repeat leaves no GPU visible
        ("0,GPU-0a1b", [0], 1),  # a UUID after an index: CUDA stops there (seen on 2x H200, CUDA 13)
        ("GPU-ffff", [2], 1),  # a unique UUID prefix
        ("GPU-0a", [], 0),  # ambiguous prefix: stops
        ("GPU-0a9f0000-2222,1", [1], 1),  # an index after a UUID: CUDA stops there (seen on 2x H200)
        ("GPU-dead,0", [], 0),  # unknown UUID: stops
        ("MIG-77aa-1", [1], 1),
        ("MIG-77aa-1,MIG-77bb-2", [1, 1], 2),
        ("MIG-GPU-ffff0000-3333/1/0", [2], 1),
    ],
)
def test_cuda_visible_devices(value: str | None, visible: list[int], count: int) -> None:
    out = resolve_visible(value, GPUS)
    assert out["visible"] == visible
    assert out["visible_count"] == count
    assert out["set"] is (value is not None)


def test_cuda_visible_devices_explains_where_cuda_stops() -> None:
    out = resolve_visible("0,5,1", GPUS)
    assert [e["status"] for e in out["entries"]] == ["ok", "out-of-range", "ignored"]
    assert out["notes"] == ["CUDA stops at entry '5' (out-of-range); it and any later entries are ignored"]


def test_cuda_visible_devices_without_nvml() -> None:
    assert resolve_visible("0,1", None)["visible_count"] is None  # cannot range-check
    assert resolve_visible("", None)["visible_count"] == 0  # but empty is certain
    assert resolve_visible("0,0", None)["visible_count"] == 0
    assert resolve_visible(None, None)["visible"] is None
    assert resolve_visible("GPU-abc", None)["entries"][0]["status"] == "unresolved"


def test_cuda_visible_devices_hides_gpus_in_the_report(monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, machine(T4, T4))
    report = collect(environ={"CUDA_VISIBLE_DEVICES": "1"}, cases=[])
    g0, g1 = report["gpus"]
    assert (g0["visible"], g0["cuda_index"], g1["visible"], g1["cuda_index"]) == (False, None, True, 0)


def test_mixed_models_warn_about_device_order(monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, machine(T4, H200))
    notes = collect(environ={}, cases=[])["cuda_visible_devices"]["notes"]
    assert any("CUDA_DEVICE_ORDER=PCI_BUS_ID" in n for n in notes)
    notes = collect(environ={"CUDA_DEVICE_ORDER": "PCI_BUS_ID"}, cases=[])["cuda_visible_devices"]["notes"]
    assert notes == []


# --------------------------------------------------------------------------- launch detection


def test_plain_python_is_not_distributed() -> None:
    d = read_distributed({"PATH": "/usr/bin"})
    assert (d["launched"], d["launcher"], d["variables"]) == (False, None, {})


def test_torchrun_is_detected() -> None:
    d = read_distributed(
        {"RANK": "1", "WORLD_SIZE": "4", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2", "TORCHELASTIC_RUN_ID": "none",
         "MASTER_ADDR": "10.1.2.3", "MASTER_PORT": "29500"}
    )
    assert (d["launched"], d["launcher"], d["rank"], d["world_size"], d["local_world_size"]) == (True, "torchrun", 1, 4, 2)
    assert d["variables"]["MASTER_ADDR"] == "(set)"  # an address is not shared
    assert d["variables"]["MASTER_PORT"] == "29500"


def test_accelerate_is_detected() -> None:
    d = read_distributed({"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "ACCELERATE_MIXED_PRECISION": "bf16"})
    assert d["launcher"] == "accelerate"
    assert d["variables"]["ACCELERATE_MIXED_PRECISION"] == "bf16"


def test_accelerate_variables_alone_are_not_a_distributed_launch() -> None:
    d = read_distributed({"ACCELERATE_MIXED_PRECISION": "fp16"})
    assert (d["launched"], d["launcher"]) == (False, None)


def test_mpirun_is_detected() -> None:
    d = read_distributed({"OMPI_COMM_WORLD_SIZE": "8", "OMPI_COMM_WORLD_LOCAL_SIZE": "4"})
    assert (d["launched"], d["launcher"], d["world_size"], d["local_world_size"]) == (True, "mpirun", 8, 4)


# --------------------------------------------------------------------------- --config


def test_config_json(tmp_path: Path) -> None:
    f = tmp_path / "args.json"
    f.write_text(json.dumps({"output_dir": "out", "per_device_train_batch_size": 2, "bf16": True, "fp16": False,
                             "gradient_accumulation_steps": 4, "report_to": ["wandb"]}))
    cfg = read_config(str(f))
    assert cfg == {"file": "args.json", "format": "json", "settings": {
        "per_device_train_batch_size": 2, "gradient_accumulation_steps": 4, "bf16": True, "fp16": False}}


def test_config_nested_and_model_init_kwargs(tmp_path: Path) -> None:
    f = tmp_path / "sft.json"
    f.write_text(json.dumps({"training_args": {"per_device_train_batch_size": 8},
                             "model_init_kwargs": {"torch_dtype": "bfloat16"}}))
    assert read_config(str(f))["settings"] == {"per_device_train_batch_size": 8, "torch_dtype": "bfloat16"}


def test_config_yaml(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    f = tmp_path / "accelerate.yaml"
    f.write_text("mixed_precision: bf16\nnum_processes: 4\nnum_machines: 1\n")
    assert read_config(str(f)) == {"file": "accelerate.yaml", "format": "yaml",
                                   "settings": {"mixed_precision": "bf16", "num_processes": 4, "num_machines": 1}}


def test_config_yaml_without_pyyaml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)  # `import yaml` now raises ImportError
    f = tmp_path / "c.yml"
    f.write_text("bf16: true\n")
    with pytest.raises(ConfigError, match=r"reading YAML needs PyYAML \(pip install pyyaml\); or pass the config as JSON"):
        read_config(str(f))


@pytest.mark.parametrize(
    "name, text, needle",
    [
        ("bad.json", "{", "bad.json is not valid JSON: Expecting property name"),
        ("list.json", "[1, 2]", "expected a mapping of TrainingArguments fields, found list"),
    ],
)
def test_config_errors(tmp_path: Path, name: str, text: str, needle: str) -> None:
    f = tmp_path / name
    f.write_text(text)
    with pytest.raises(ConfigError, match=needle):
        read_config(str(f))


def test_config_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file 'nope.json' not found"):
        read_config(str(tmp_path / "nope.json"))


# --------------------------------------------------------------------------- CLI, schema, secrets


TOP_KEYS = {
    "schema", "platform", "versions", "version_sources", "nvml", "gpus", "cuda_visible_devices",
    "distributed", "intended_processes", "config", "checks", "risks", "unreadable",
}
GPU_KEYS = {
    "index", "name", "uuid", "memory_total_mib", "memory_free_mib", "memory_used_mib", "compute_capability",
    "bf16", "processes", "mig_devices", "visible", "cuda_index",
}
CHECK_KEYS = {"check", "slug", "status", "severity", "message", "case", "case_title", "in_kb", "more"}


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_json_schema_keys_are_stable(clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    use(clean_env, machine(T4, T4, pids=[7]))
    code, out, _ = run_cli(["env", "--format", "json"], capsys)
    doc = json.loads(out)
    assert code == 0
    assert set(doc) == TOP_KEYS
    assert doc["schema"] == "kb-env/1"
    assert set(doc["gpus"][0]) == GPU_KEYS
    assert {"torch", "torch_cuda", "transformers", "peft", "trl", "accelerate", "bitsandbytes", "nccl", "python"} <= set(doc["versions"])
    assert set(doc["cuda_visible_devices"]) == {"set", "value", "entries", "visible", "visible_count", "notes"}
    assert set(doc["distributed"]) == {"launched", "launcher", "rank", "local_rank", "world_size", "local_world_size", "variables"}
    assert all(set(c) == CHECK_KEYS for c in doc["checks"])
    assert doc["risks"] == [c for c in doc["checks"] if c["status"] == "risk"]


def test_text_report(clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    use(clean_env, machine(T4, T4))
    clean_env.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    code, out, _ = run_cli(["env"], capsys)
    assert code == 0
    assert "[0] Tesla T4  cc 7.5 (bf16 NO)  15.0 GiB total, 15.0 GiB free  0 process(es)  visible as cuda:0" in out
    assert "CUDA_VISIBLE_DEVICES='0,1': 2 GPU(s) visible" in out
    assert "! [batch-size-times-gpu-count] 2 GPUs are visible" in out


def test_fail_on_risk(clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    use(clean_env, machine(T4, T4))
    assert run_cli(["env", "--fail-on-risk"], capsys)[0] == 1
    clean_env.setenv("CUDA_VISIBLE_DEVICES", "0")
    assert run_cli(["env", "--fail-on-risk"], capsys)[0] == 0


@pytest.mark.parametrize("args", [["env", "--nproc", "0"], ["env", "--nproc", "two"], ["env", "--format", "xml"]])
def test_bad_arguments_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(args, capsys)
    assert code == 2
    assert "Traceback" not in err


def test_bad_config_exits_2_without_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "args.json"
    bad.write_text("{not json")
    code, out, err = run_cli(["env", "--config", str(bad)], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("kb env: args.json is not valid JSON")
    assert str(tmp_path) not in err


def test_secrets_and_paths_are_not_echoed(
    clean_env: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    use(clean_env, machine(T4, T4, pids=[99]))
    token = "hf_" + "Q" * 30
    clean_env.setenv("HF_TOKEN", token)
    clean_env.setenv("ACCELERATE_HUB_TOKEN", "plainsecretvalue123")
    clean_env.setenv("ACCELERATE_CONFIG_FILE", "/home/alice/.cache/accelerate/config.yaml")
    clean_env.setenv("MASTER_ADDR", "alice-workstation.internal")
    cfg = tmp_path / "sft.json"
    cfg.write_text(json.dumps({"bf16": True, "hub_token": token, "per_device_train_batch_size": 1}))
    for fmt in ("text", "json"):
        code, out, _ = run_cli(["env", "--format", fmt, "--config", str(cfg)], capsys)
        assert code == 0
        for secret in (token, "plainsecretvalue123", "alice", str(tmp_path)):
            assert secret not in out, (fmt, secret)
        assert "python3.11" in out  # the process is still named, by its executable's name


def test_python_m_kb_env_from_repo_root_without_torch_import() -> None:
    """`python -m kb env` works from the repo root and never imports torch or transformers."""
    code = (
        "import sys, runpy; sys.argv = ['kb', 'env', '--format', 'json']\n"
        "try:\n    runpy.run_module('kb', run_name='__main__')\n"
        "except SystemExit as e:\n    rc = e.code\n"
        "heavy = [m for m in ('torch', 'transformers', 'peft', 'trl', 'accelerate') if m in sys.modules]\n"
        "print('HEAVY', heavy, rc, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY [] 0" in proc.stderr
    assert json.loads(proc.stdout)["schema"] == "kb-env/1"

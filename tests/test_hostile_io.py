"""More forms of issue 26's classes than the issue lists (N1, C1 of config files, K1-K3, L1, E1 in messages).

Found by benchmarks/hostile_io.py (the real CLI in a subprocess, results in benchmarks/results/hostile-turn34.txt);
each test here is the class, not the one string that showed it.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.cli import main

GIB = 2**30
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


# --------------------------------------------------------------------------- N1: NVML of every kind


class Unprintable(Exception):
    """pynvml's NVMLError builds its message by calling NVML (nvmlErrorString), which can fail in turn."""

    def __str__(self) -> str:
        raise RuntimeError("nvmlErrorString failed")


class Nvml:
    """A pynvml stand-in; ``values`` replaces what a function returns (an exception instance is raised)."""

    class NVMLError(Exception):
        pass

    def __init__(self, **values: Any) -> None:
        self.values = values

    def _give(self, name: str, default: Any) -> Any:
        value = self.values.get(name, default)
        if isinstance(value, BaseException):
            raise value
        return value

    def nvmlInit(self) -> None: self._give("init", None)
    def nvmlShutdown(self) -> None: self._give("shutdown", None)
    def nvmlSystemGetDriverVersion(self) -> Any: return self._give("driver", "570.86")
    def nvmlSystemGetCudaDriverVersion(self) -> Any: return self._give("cuda", 12080)
    def nvmlDeviceGetCount(self) -> Any: return self._give("count", 1)
    def nvmlDeviceGetHandleByIndex(self, i: int) -> Any: return i
    def nvmlDeviceGetName(self, h: Any) -> Any: return self._give("name", "Tesla T4")
    def nvmlDeviceGetUUID(self, h: Any) -> Any: return self._give("uuid", "GPU-1234")
    def nvmlDeviceGetMemoryInfo(self, h: Any) -> Any:
        return self._give("memory", SimpleNamespace(total=16 * GIB, free=GIB, used=15 * GIB))
    def nvmlDeviceGetCudaComputeCapability(self, h: Any) -> Any: return self._give("cc", (7, 5))
    def nvmlDeviceGetComputeRunningProcesses(self, h: Any) -> Any:
        return self._give("procs", [SimpleNamespace(pid=4242, usedGpuMemory=GIB)])
    def nvmlSystemGetProcessName(self, pid: Any) -> Any: return self._give("pname", "/usr/bin/python")
    def nvmlDeviceGetMigMode(self, h: Any) -> Any: return self._give("mig", self.NVMLError("Not Supported"))
    def nvmlDeviceGetMaxMigDeviceCount(self, h: Any) -> Any: return self._give("slots", 7)
    def nvmlDeviceGetMigDeviceHandleByIndex(self, h: Any, slot: int) -> Any: return (h, slot)


BROKEN = {
    "an error whose message fails": ({"name": Unprintable()}, "GPU 0 name: could not read (Unprintable)"),
    "an NVMLError whose message fails": ({"name": Nvml.NVMLError()}, "GPU 0 name: could not read (NVMLError)"),
    "nvmlInit's error message fails": ({"init": Unprintable()}, "NVML could not start: Unprintable"),
    "the binding exits": ({"init": SystemExit(3)}, "NVML could not start: SystemExit: 3"),
    "a count of 10**400": ({"count": 10**400}, "GPU count: could not read (NVML gave an integer of about"),
    "a negative count": ({"count": -1}, "GPU count: could not read (NVML gave int -1)"),
    "a count as text": ({"count": "2"}, "GPU count: could not read (NVML gave str '2')"),
    "a NaN count": ({"count": float("nan")}, "GPU count: could not read (NVML gave float nan)"),
    "a CUDA version of 10**400": ({"cuda": 10**400}, "CUDA driver version: could not read"),
    "memory NaN": ({"memory": SimpleNamespace(total=float("nan"), free=1, used=1)}, "GPU 0 memory total: could not read"),
    "memory of 10**400": ({"memory": SimpleNamespace(total=10**400, free=-1, used=0)}, "GPU 0 memory free: could not read"),
    "memory of no shape": ({"memory": 42}, "GPU 0 memory: could not read (NVML gave int 42)"),
    "a compute capability of the wrong shape": ({"cc": 7.5}, "GPU 0 compute capability: could not read"),
    "a compute capability as text": ({"cc": ("8", "0")}, "GPU 0 compute capability: could not read"),
    "processes of no shape": ({"procs": 7}, "GPU 0 processes: could not read"),
    "a process without a pid": ({"procs": [SimpleNamespace(pid="x")]}, "process pid: could not read (NVML gave str 'x')"),
    "10**12 MIG slots": ({"mig": (1, 1), "slots": 10**12}, "GPU 0 MIG slots: could not read"),
    "MIG slots as text": ({"mig": (1, 1), "slots": "7"}, "GPU 0 MIG slots: could not read"),
    "200,000 processes": ({"procs": [SimpleNamespace(pid=i, usedGpuMemory=GIB) for i in range(200_000)]},
                          "GPU 0 processes: 200000 listed, the first 1024 shown"),
}


@pytest.mark.parametrize(("values", "says"), BROKEN.values(), ids=BROKEN.keys())
def test_any_nvml_value_or_failure_is_a_could_not_read_line(values: dict[str, Any], says: str,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from kb.env import report

    monkeypatch.setattr(report, "_import_pynvml", lambda: Nvml(**values))
    reading = report.read_nvml()
    said = " | ".join([reading.error or "", *reading.problems])
    assert says in said, said
    assert len(reading.problems) <= 8  # one line per field that failed, not one per process or slot
    for fmt in ("text", "json"):
        assert main(["env", "--format", fmt]) == 0
        out, err = capsys.readouterr()
        assert "Traceback" not in err and "up to None" not in out and "] None" not in out and " None " not in out
        if fmt == "json":
            json.loads(out)
    assert main(["diagnose", "--env", str(Path(__file__).parent.parent / "examples" / "dtype-double-vs-float.txt")]) == 0


def test_a_gpu_with_one_bad_field_keeps_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.env import report

    monkeypatch.setattr(report, "_import_pynvml", lambda: Nvml(cc=7.5, name=b"Tesla \xff T4" + b"x" * 1000))
    gpu = report.read_nvml().gpus[0]
    assert gpu["memory_total_mib"] == 16 * 1024 and gpu["compute_capability"] is None and gpu["bf16"] is None
    assert gpu["name"].startswith("Tesla \ufffd T4") and len(gpu["name"]) <= report.MAX_TEXT + 3


# --------------------------------------------------------------------------- C1: config files' encodings


@pytest.mark.parametrize(("encoding", "says"), [
    ("utf-16", "is UTF-16LE text: save it as UTF-8"), ("utf-16-be", "is UTF-16BE text"),
    ("utf-32", "is UTF-32LE text"), ("utf-32-be", "is UTF-32BE text"), ("latin-1", "is not UTF-8 text (Latin-1"),
])
@pytest.mark.parametrize("command", [["env", "--config"], ["plan", "--config"], ["plan", "--model", "qwen2.5-0.5b", "--from"]])
def test_a_config_files_encoding_is_named(encoding: str, says: str, command: list[str], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.json"
    path.write_bytes('{"optim": "adamw_torch", "note": "caf\u00e9"}'.encode(encoding))
    assert main([*command, str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err, err


def test_a_utf8_byte_order_mark_is_not_part_of_the_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "args.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"per_device_train_batch_size": 4}).encode())
    assert main(["plan", "--model", "qwen2.5-0.5b", "--from", str(path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["run"]["batch"] == 4


# --------------------------------------------------------------------------- E1: messages that quote an argument

# Hostile text for a file name or an argument: escape sequences, every kind of invisible character, and the
# surrogates a name that is not UTF-8 decodes to (os.fsdecode). No NUL: an argument cannot hold one.
PIECES = ["\x1b]52;c;ZXZpbA==\x07", "\x1b]0;t\x9c", "\x1bP1$r\x1b\\", "\x1b_G\x1b\\", "\x1b[?1049h", "\x1b[1 q", "\x9b2J",
          "\x1b", "\x08", "\x7f", "\x0b", "\r", "\u2028", "\ufeff", "\u200b", "\u202e", "\u2066", "\u061c", "\u3164",
          "\ufe0f", "\U000e0041", "\u00ad", "\udcff", "\udc9b", "\U000e0100", "\u034f"]
NAMES = st.lists(st.one_of(st.sampled_from(PIECES), st.text(alphabet="ab.-_ ]:;[", max_size=4)), min_size=1,
                 max_size=8).map("".join)
FORBIDDEN_IN_OUTPUT = set(map(chr, range(0x20))) - {"\n", "\t"} | {"\x7f"} | set(map(chr, range(0x80, 0xA0))) | {
    p for p in "".join(PIECES) if ord(p) > 0x9F}


@given(name=NAMES)
@SETTINGS
def test_a_message_that_quotes_an_argument_writes_nothing_raw(name: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / f"no{name.replace('/', '')}.json")
    for argv in (["show", f"KB{name}"], ["diagnose", missing], ["plan", "--model", f"qwen{name}"],
                 ["plan", "--config", missing], ["env", "--config", missing], ["diagnose", "-", "--format", name],
                 ["plan", "--model", "qwen2.5-0.5b", "--batch", f"4x{name}"], [f"x{name}"]):
        assert main(argv) == 2, argv
        out, err = capsys.readouterr()
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("kb"), (argv, err)
        raw = sorted({hex(ord(c)) for c in out + err if c in FORBIDDEN_IN_OUTPUT})
        assert not raw, (argv, raw)


# --------------------------------------------------------------------------- K3, L1: arguments that are nothing or too much


@pytest.mark.parametrize("argv", [["plan", "--config", ""], ["plan", "--config", "  "],
                                  ["plan", "--model", "qwen2.5-0.5b", "--from", ""], ["env", "--config", ""]])
def test_an_empty_path_is_a_usage_error_not_the_current_folder(argv: list[str],
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "an empty path" in err, err


@pytest.mark.parametrize("argv", [["reproduce", "KB0001", "--timeout", "9" * 5000],
                                  ["list", "--format", "x" * 5000], ["diagnose", "-", "--width", "-" + "9" * 5000],
                                  ["x" * 5000]])
def test_a_huge_argument_is_a_short_usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """argparse quotes the argument whole; kb's one-line usage error keeps the line readable."""
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("kb") and len(err) < 600, err[:200]


@pytest.mark.parametrize("argv", [["diagnose", "{log}", "--limit", "0" * 5000 + "1"], ["diagnose", "{log}", f"--limit={'0' * 5000}2"],
                                  ["diagnose", "{log}", "--width", "0" * 5000 + "60"], ["env", "--nproc", "0" * 5000 + "2"]])
def test_a_number_padded_with_thousands_of_zeros_is_its_value(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """int() refuses 4,300 characters even when all but one are zeros: kb reads the digits that count."""
    log = str(Path(__file__).parent.parent / "examples" / "dtype-double-vs-float.txt")
    assert main([a.replace("{log}", log) for a in argv]) == 0
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("value", ["+-5", "-+5", "--5", "0" * 5000, "-" + "0" * 5000 + "1", "1e3", "0x10"])
def test_a_malformed_or_non_positive_number_is_a_usage_error(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagnose", "-", "--limit", value]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("kb diagnose: argument --limit"), err


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_an_environment_value_that_is_not_utf8_reaches_no_terminal_raw(fmt: str, monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Before: `kb env --format json` wrote CUDA_VISIBLE_DEVICES=$'0,\\x9b2J' back as the raw byte 0x9B (the
    surrogate os.environ decodes it to, re-encoded by stdout's surrogateescape): an 8-bit CSI, clear screen."""
    import os

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", os.fsdecode(b"0,\x9b2J\xff"))
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", os.fsdecode(b"\x9d0;title\x9c"))
    assert main(["env", "--format", fmt]) == 0
    out = capsys.readouterr().out
    raw = sorted({hex(ord(c)) for c in out if 0xD800 <= ord(c) <= 0xDFFF or 0x80 <= ord(c) <= 0x9F})
    assert not raw and "\\udc9b2J" in out
    if fmt == "json":
        assert json.loads(out)["cuda_visible_devices"]["value"] == os.fsdecode(b"0,\x9b2J\xff")

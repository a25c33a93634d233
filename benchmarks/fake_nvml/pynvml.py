"""A pynvml stand-in for benchmarks/hostile_io.py: ``FAKE_NVML`` (an environment variable) names how it misbehaves.

Put this folder first on PYTHONPATH; kb's ``import pynvml`` (kb/env/report.py) then finds this module. Each mode
is one way a real driver or binding has failed or could fail: a name that is not UTF-8, an error whose own
message cannot be read, counts and sizes of the wrong type or size, names that hold terminal escapes.
"""

from __future__ import annotations

import os
from types import SimpleNamespace

MODE = os.environ.get("FAKE_NVML", "ok")
EVIL = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\u202e\x9b31m\x1b]8;;http://x/\x1b\\"
GIB = 2**30
# turn 37: names that hold tokens (a process run from a folder named by its token, a GPU name quoting one)
TOKEN = "hf_Zq8Wm2Lp5Rt9Xv3Bn7Kc1Hd4Fg6Jk0MnPq"
# turn 38: tokens of other vendors' shapes in names
TOKENS38 = "sk-or-v1-" + "9f2c4a7e1b3d5f60" * 4 + " nfp_Zq8Wm2Lp5Rt9Xv3Bn7Kc1Hd4Fg6Jk0MnPq"
# turn 39: tokens of turn 39's shapes, and nested/8-bit escapes and invisible characters
TOKENS39 = "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 phx_Qw7Er5Ty3Ui1Op9As8Df6Gh4Jk2Lz0Xc5Vb7Nm3Qw1Er9Ty"
EVIL39 = "\x1b]\x1b]52;c;ZXZpbA==\x07\x07\x98sos\x9c\x9fapc\x9c\x9epm\x9c\u2067\u2061\ufff9\u180e\ufeff"
# turn 42: tokens of turn 42's shapes, and escapes that a second stripping pass would rebuild
TOKENS42 = "SWMTKN-1-" + "k7m2q9x4b8n3v6c1z5l0p7r2t9w4y8h3j6f1d5k7m2q9x4b8n3" + "-" + "v6c1z5l0p7r2t9w4y8h3j6f1d" + " xau_Zq8Wm2Lp5Rt9Xv3Bn7Kc1Hd4Fg6Jk0MnPqRs"
EVIL42 = "\x1b\u200b]52;c;ZXZpbA==\x07 \x1b\u00ad[2J \x1b\u0301[6n \x1b\x1b\u200b[[3J"
NOT_AVAILABLE = 2**64 - 1  # NVML_VALUE_NOT_AVAILABLE, which old pynvml hands on as a number

if MODE == "import-error":
    raise OSError("libnvidia-ml.so.1: cannot open shared object file" + EVIL)


class NVMLError(Exception):
    def __init__(self, value: int = 999) -> None:
        self.value = value

    def __str__(self) -> str:
        if MODE == "unprintable-error":  # pynvml's __str__ calls nvmlErrorString, which can fail in turn
            raise NVMLError_Uninitialized(1)
        if MODE == "error-non-str":
            return 42  # type: ignore[return-value]
        return "Unknown Error" + (EVIL if MODE == "error-escapes" else "")


class NVMLError_Uninitialized(NVMLError):  # noqa: N801 - pynvml's name
    pass


def _maybe(name: str) -> None:
    if MODE in ("unprintable-error", "error-escapes", "error-non-str") and name in ("name", "init-after"):
        raise NVMLError(999)


def nvmlInit() -> None:  # noqa: N802
    if MODE == "init-oserror":
        raise OSError(5, "Input/output error" + EVIL)
    if MODE == "init-fails":
        raise NVMLError(9)
    if MODE == "init-unprintable":
        class Odd(Exception):
            def __str__(self) -> str:
                raise ValueError("no message")
        raise Odd()
    if MODE == "init-base":
        raise SystemExit(3)


def nvmlShutdown() -> None:  # noqa: N802
    if MODE == "shutdown-fails":
        raise NVMLError(3)


def nvmlSystemGetDriverVersion() -> object:  # noqa: N802
    if MODE == "bytes":
        return b"570.\xff\xfe86" + EVIL.encode()
    if MODE == "wrong-types":
        return 570.86
    if MODE == "driver-huge":
        return "570.86" * 200_000
    return "570.86" + (EVIL if MODE == "names-escapes" else "")


def nvmlSystemGetCudaDriverVersion() -> object:  # noqa: N802
    return {"wrong-types": "12080", "huge": 10**400, "negative": -5}.get(MODE, 12080)


def nvmlDeviceGetCount() -> object:  # noqa: N802
    if MODE == "memory-error":
        raise MemoryError
    if MODE == "count-valueerror":
        raise ValueError("bad count")
    if MODE == "count-ten-million":  # a finite count no machine has (a corrupt binding): kb must not walk it
        return 10_000_000
    return {"count-bool": True, "huge": 10**400, "negative": -1, "wrong-types": "2", "count-float": 2.0, "count-nan": float("nan"),
            "many": 1024, "handle-fails-one": 2}.get(MODE, 1)


def nvmlDeviceGetHandleByIndex(i: int) -> object:  # noqa: N802
    if MODE == "handle-fails-one" and i == 1:
        raise NVMLError(15)  # NVML_ERROR_GPU_IS_LOST
    if MODE == "handle-none":
        return None
    return i


def nvmlDeviceGetName(h: int) -> object:  # noqa: N802
    _maybe("name")
    if MODE == "unicode":
        raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    if MODE == "bytes":
        return b"Tesla \xff\xfe T4" + EVIL.encode()
    if MODE == "wrong-types":
        return None
    if MODE == "huge-name":
        return "T4" * 500_000
    if MODE == "name-nul":
        return "Tesla T4\x00\x00\x00garbage\x00"
    if MODE == "secret-names":
        return f"Tesla T4 {TOKEN}"
    if MODE == "secret-names-t38":
        return f"Tesla T4 {TOKENS38}"
    if MODE == "name-latin1-c1":
        return b"Tesla \x9b2J \x9d0;t\x9c caf\xe9"
    if MODE == "recursion":
        raise RecursionError("maximum recursion depth exceeded")
    if MODE == "name-bidi":
        return "Tesla \u202eT4\u2066\u200b"
    if MODE == "secret-names-t39":
        return f"Tesla T4 {TOKENS39}"
    if MODE == "escapes-t39":
        return "Tesla T4" + EVIL39
    if MODE == "name-memoryerror":
        raise MemoryError
    if MODE == "name-overflow":
        raise OverflowError("int too large")
    if MODE == "secret-names-t42":
        return f"Tesla T4 {TOKENS42}"
    if MODE == "escapes-t42":
        return "Tesla T4" + EVIL42
    if MODE == "name-attributeerror":  # ctypes: the driver's library lacks the symbol
        raise AttributeError("/usr/lib/libnvidia-ml.so.1: undefined symbol: nvmlDeviceGetName_v2")
    if MODE == "name-lookuperror":
        raise LookupError("unknown encoding: x-nvml")
    if MODE == "name-bytes-escapes-t42":
        return ("Tesla T4" + EVIL42).encode("utf-8") + b"\xc2\x9b2J"
    if MODE == "name-str-raises":
        class Odd:
            def __str__(self) -> str:
                raise ValueError("no name")
        return Odd()
    return "Tesla T4" + (EVIL if MODE == "names-escapes" else "")


def nvmlDeviceGetUUID(h: int) -> object:  # noqa: N802
    if MODE == "wrong-types":
        return 12345
    return "GPU-1234abcd" + (EVIL if MODE == "names-escapes" else "")


def nvmlDeviceGetMemoryInfo(h: int) -> object:  # noqa: N802
    if MODE == "not-available":
        return SimpleNamespace(total=16 * GIB, free=NOT_AVAILABLE, used=NOT_AVAILABLE)
    if MODE == "zero-total":
        return SimpleNamespace(total=0, free=0, used=0)
    if MODE == "used-over-total":
        return SimpleNamespace(total=16 * GIB, free=0, used=64 * GIB)
    if MODE == "huge":
        return SimpleNamespace(total=10**400, free=-(10**400), used=10**400)
    if MODE == "negative":
        return SimpleNamespace(total=-GIB, free=-GIB, used=0)
    if MODE == "wrong-types":
        return SimpleNamespace(total="16", free=None, used=[])
    if MODE == "nan":
        return SimpleNamespace(total=float("nan"), free=float("inf"), used=float("-inf"))
    if MODE == "memory-no-attrs":
        return object()
    if MODE == "memory-bool":
        return SimpleNamespace(total=True, free=False, used=True)
    return SimpleNamespace(total=16 * GIB, free=GIB, used=15 * GIB)


def nvmlDeviceGetCudaComputeCapability(h: int) -> object:  # noqa: N802
    if MODE == "cc-three":
        return (7, 5, 0)
    if MODE == "cc-dict":
        return {"major": 7, "minor": 5}
    if MODE == "cc-str":
        return "7.5"
    return {"wrong-types": ("8", "0"), "huge": (10**400, 0), "negative": (-1, -1), "nan": 7.5}.get(MODE, (7, 5))


def nvmlDeviceGetComputeRunningProcesses(h: int) -> object:  # noqa: N802
    if MODE == "wrong-types":
        return [SimpleNamespace(pid="12", usedGpuMemory="1"), SimpleNamespace()]
    if MODE == "huge":
        return [SimpleNamespace(pid=10**400, usedGpuMemory=10**400)]
    if MODE == "negative":
        return [SimpleNamespace(pid=-1, usedGpuMemory=-GIB)]
    if MODE == "many-procs":
        return [SimpleNamespace(pid=i, usedGpuMemory=GIB) for i in range(100_000)]
    if MODE == "not-available":
        return [SimpleNamespace(pid=4242, usedGpuMemory=NOT_AVAILABLE)]
    if MODE == "proc-none":
        return [None, SimpleNamespace(pid=None, usedGpuMemory=None), 7]
    if MODE == "procs-not-list":
        return 42
    if MODE == "procs-generator":
        return (SimpleNamespace(pid=i, usedGpuMemory=GIB) for i in range(3))
    if MODE == "pid-huge":
        return [SimpleNamespace(pid=2**64, usedGpuMemory=2**70)]
    if MODE == "procs-dicts":
        return [{"pid": 1, "usedGpuMemory": GIB}]
    if MODE == "procs-million-t42":  # a million processes (a corrupt answer): the report stays bounded
        return [SimpleNamespace(pid=i, usedGpuMemory=GIB) for i in range(1_000_000)]
    if MODE == "used-none-t39":  # NVML reports no per-process memory under some drivers (WSL, MIG): None
        return [SimpleNamespace(pid=4242, usedGpuMemory=None), SimpleNamespace(pid=float("nan"), usedGpuMemory=True)]
    return [SimpleNamespace(pid=4242, usedGpuMemory=GIB)]


def nvmlSystemGetProcessName(pid: int) -> object:  # noqa: N802
    if MODE == "bytes":
        return b"/home/alice/\xff" + EVIL.encode()
    if MODE == "secret-names":
        return f"/home/alice/{TOKEN}"
    if MODE == "secret-names-t38":
        return f"/home/alice/{TOKENS38}"
    if MODE == "secret-names-t39":
        return f"/home/alice/{TOKENS39}/python"
    if MODE == "secret-names-t42":
        return f"/home/alice/{TOKENS42}/python"
    if MODE == "escapes-t42":
        return "/usr/bin/python" + EVIL42
    if MODE == "escapes-t39":
        return b"/usr/bin/\xc0\xaf\xed\xa0\x80" + EVIL39.encode("utf-8")
    return "/usr/bin/python" + (EVIL if MODE in ("names-escapes", "many-procs") else "")


def nvmlDeviceGetMigMode(h: int) -> object:  # noqa: N802
    if MODE in ("mig-huge", "mig-wrong"):
        return (1, 1)
    raise NVMLError(3)


def nvmlDeviceGetMaxMigDeviceCount(h: int) -> object:  # noqa: N802
    return 10**12 if MODE == "mig-huge" else "7"


def nvmlDeviceGetMigDeviceHandleByIndex(h: int, slot: int) -> object:  # noqa: N802
    return (h, slot)


if MODE == "missing-functions":  # an old binding without these (pynvml before 11.5 had no _v3 processes, MIG calls)
    del nvmlDeviceGetComputeRunningProcesses, nvmlDeviceGetMigMode, nvmlSystemGetCudaDriverVersion

"""Cross-check `kb env` against torch on a GPU machine.

For several CUDA_VISIBLE_DEVICES values, run `python -m kb env --format json` and, in a
separate fresh process, torch (which goes through the CUDA runtime), and compare:
how many GPUs are visible, their names, compute capabilities and UUIDs in cuda:N
order. kb env never imports torch; this script does, in children
only, to check kb env's claims (above all its CUDA_VISIBLE_DEVICES rules) against
what CUDA really does.

    python scripts/env_crosscheck.py            # from the repo root; exit 0 when all agree

Prints one line per value and a summary; exit 1 if any value disagrees, 3 if there is
no torch with CUDA or kb env cannot read the GPUs (nothing to compare).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

TORCH_PROBE = (
    "import json, torch\n"
    "n = torch.cuda.device_count() if torch.cuda.is_available() else 0\n"
    "props = [torch.cuda.get_device_properties(i) for i in range(n)]\n"
    "print(json.dumps({'count': n, 'names': [p.name for p in props],"
    " 'cc': [f'{p.major}.{p.minor}' for p in props], 'uuids': [str(getattr(p, 'uuid', '') or '') for p in props],"
    " 'torch': torch.__version__, 'cuda': torch.version.cuda}))\n"
)


def _env(value: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("CUDA_VISIBLE_DEVICES", None)
    if value is not None:
        env["CUDA_VISIBLE_DEVICES"] = value
    return env


def kb_env(value: str | None) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "kb", "env", "--format", "json"], env=_env(value), capture_output=True, text=True, timeout=120
    )
    if out.returncode != 0:
        raise SystemExit(f"kb env failed (rc {out.returncode}): {out.stderr[-2000:]}")
    return json.loads(out.stdout)


def torch_view(value: str | None) -> dict[str, Any] | str:
    out = subprocess.run([sys.executable, "-c", TORCH_PROBE], env=_env(value), capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        return "torch failed: " + (out.stderr.strip().splitlines() or ["?"])[-1]
    return json.loads(out.stdout.strip().splitlines()[-1])


def kb_view(report: dict[str, Any]) -> dict[str, Any]:
    by_index = {g["index"]: g for g in report["gpus"] or []}
    order = report["cuda_visible_devices"]["visible"] or []
    return {
        "count": report["cuda_visible_devices"]["visible_count"],
        "names": [by_index[i]["name"] for i in order],
        "cc": [by_index[i]["compute_capability"] for i in order],
        # the order check: both H200s have the same name, their UUIDs differ
        "uuids": [(by_index[i]["uuid"] or "").removeprefix("GPU-") for i in order],
    }


def main() -> int:
    base = kb_env(None)
    if not base["nvml"]["available"]:
        print(f"kb env cannot read GPUs here: {base['nvml']['error']}")
        return 3
    gpus = base["gpus"]
    uuids = [g["uuid"] for g in gpus]
    values: list[str | None] = [None, "", "0", "0,0", "-1", "0,99", "x"]
    if len(gpus) >= 2:
        values += ["1", "1,0", "0,1", "0,-1,1", "1,99,0", "1gpu", f"{uuids[1]}", f"{uuids[1][:12]}", f"{uuids[1]},0", f"0,{uuids[0]}"]
    first = torch_view(None)
    if isinstance(first, str) or first["count"] == 0:
        print(f"no CUDA through torch here ({first}); nothing to compare")
        return 3
    print(f"torch {first['torch']} (CUDA {first['cuda']}); kb env says torch_cuda={base['versions']['torch_cuda']}, "
          f"nccl={base['versions']['nccl']}, driver {base['nvml']['driver_version']}")
    if base["versions"]["torch_cuda"] != first["cuda"]:
        print(f"DIFFER torch's CUDA: kb env {base['versions']['torch_cuda']!r}, torch {first['cuda']!r}")
    failures = int(base["versions"]["torch_cuda"] != first["cuda"])
    for value in values:
        kb = kb_view(kb_env(value))
        th = torch_view(value)
        if isinstance(th, str):
            th_cmp: Any = th
            same = kb["count"] == 0  # torch could not start CUDA: kb env should see no GPU
        else:
            th_cmp = {k: th[k] for k in ("count", "names", "cc", "uuids")}
            if not all(th_cmp["uuids"]):  # an older torch without device UUIDs: compare the rest
                th_cmp.pop("uuids")
                kb.pop("uuids")
            same = kb == th_cmp
        failures += not same
        shown = "unset" if value is None else repr(value)
        print(f"{'agree ' if same else 'DIFFER'} CUDA_VISIBLE_DEVICES={shown:<50} kb env {kb}  torch {th_cmp}")
    print(f"{len(values)} values, {failures} disagreement(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

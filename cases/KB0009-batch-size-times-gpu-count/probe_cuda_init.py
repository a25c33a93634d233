"""Which imports or calls make a later ``os.environ["CUDA_VISIBLE_DEVICES"] = "0"`` too late?

Not a case program: a check of the claims in case.md's "Why it happens", run on a 2-GPU machine
(``python probe_cuda_init.py``). Each probe runs in a fresh interpreter: it does one thing, then
sets CUDA_VISIBLE_DEVICES=0, then reports how many GPUs torch and a new TrainingArguments see.
Prints one JSON line per probe.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

PROBES = {
    "nothing": "",
    "import torch": "import torch",
    "torch.cuda.is_available()": "import torch; torch.cuda.is_available()",
    "a CUDA tensor": "import torch; torch.zeros(1, device='cuda')",
    "import bitsandbytes": "import bitsandbytes",
    "import peft": "import peft",
    "from transformers import TrainingArguments": "from transformers import TrainingArguments",
    "from transformers import TrainingArguments (bitsandbytes hidden)":
        "import sys; sys.modules['bitsandbytes'] = None\nfrom transformers import TrainingArguments",
    "from transformers import Trainer": "from transformers import Trainer",
    "TrainingArguments(...) built": "from transformers import TrainingArguments; early = TrainingArguments(output_dir='/tmp/kb0009-probe', report_to='none')",
}

REPORT = """
import torch
initialised_before = torch.cuda.is_initialized()
import os
os.environ["CUDA_VISIBLE_DEVICES"] = "0"
count = torch.cuda.device_count()
from transformers import TrainingArguments
n_gpu = TrainingArguments(output_dir="/tmp/kb0009-probe2", report_to="none").n_gpu
import json, sys
early_n_gpu = globals()["early"].n_gpu if "early" in globals() else None  # arguments built before setting
print(json.dumps({"torch_initialised_before": initialised_before, "device_count_after": count,
                  "new_args_n_gpu": n_gpu, "early_args_n_gpu": early_n_gpu,
                  "bitsandbytes_imported": sys.modules.get("bitsandbytes") is not None}))
"""


def run(name: str, code: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
    proc = subprocess.run([sys.executable, "-c", code + "\n" + REPORT], capture_output=True, text=True, env=env, timeout=240)
    lines = proc.stdout.strip().splitlines()
    try:
        result = json.loads(lines[-1])
    except (IndexError, ValueError):
        result = {"error": proc.stderr.strip().splitlines()[-1:] or f"exit {proc.returncode}"}
    return {"before_setting_visible_devices": name, **result}


if __name__ == "__main__":
    with ThreadPoolExecutor(max_workers=len(PROBES)) as pool:
        for result in pool.map(lambda item: run(*item), PROBES.items()):
            print(json.dumps(result), flush=True)

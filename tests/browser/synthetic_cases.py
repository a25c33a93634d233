"""Throw-away case folders for the docs tests: every status, missing and failed evidence, variants.

They are written into a temporary folder by the tests (``KB_CASES_DIR`` points the
registry and the mkdocs hook at it) and are never part of the knowledge base. Their
"evidence" is fixture data for the page generator, not a record of any run.
"""

from __future__ import annotations

import json
from pathlib import Path
import sys
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/: casefiles, also when run as a top-level module
from casefiles import case_md  # noqa: E402

FAILING = "import torch\n\nx = torch.ones(2)\nprint(x.sum())\n"
FIXED = "import torch\n\nx = torch.ones(2, device='cpu')\nprint(x.sum())\n"

# The target of the search-token test: error text full of tokens a default separator mangles.
TOKEN_CASE_TEXT = (
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.90 GiB. "
    "GPU 0 has a total capacity of 14.74 GiB; found tensors on device='cuda:0' and cpu; "
    "F.linear(mat1, weight); "
    "SFTTrainer.__init__() got an unexpected keyword argument 'processing_class'"
)
# A decoy sharing the words but not the tokens (2.80, cuda:1, mat2, processing and class apart).
DECOY_TEXT = (
    "torch.OutOfMemoryError: out of memory while processing a batch. Tried to allocate 2.80 GiB "
    "on cuda:1; mat2 has the wrong class; the trainer processing step"
)


def _case_md(meta: str, symptom: str) -> str:
    return case_md(meta, symptom, {
        "Why it happens": "Because of the mechanism.", "Fix": "Do the fixed thing.",
        "What did not work": "- Trying the other thing: it changed nothing.",
        "When this does not apply": "- When the message differs.",
    })


def _evidence(folder: Path, rep: str, program: str, profile: str, *, passed: bool, outcome: str,
              date: str, log: str, gpu: str | None = None, emulated: str | None = None) -> None:
    ev = folder / "evidence"
    ev.mkdir(exist_ok=True)
    stem = f"{rep}.{program}.{profile}"
    data: dict[str, Any] = {
        "case": folder.name[:6], "reproduction": rep, "program": program, "profile": profile,
        "emulated": emulated, "outcome": outcome, "passed": passed, "date": date, "gpu": gpu,
        "cpu": "Test CPU", "versions": {"python": "3.11.7", "torch": "2.5.1", "transformers": "4.46.0"},
        "log": f"{stem}.log",
    }
    (ev / f"{stem}.json").write_text(json.dumps(data), encoding="utf-8")
    (ev / f"{stem}.log").write_text(log, encoding="utf-8")


def _folder(root: Path, name: str, meta: str, symptom: str, programs: dict[str, str] | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "case.md").write_text(_case_md(meta, symptom), encoding="utf-8")
    for filename, text in (programs or {"failing.py": FAILING, "fixed.py": FIXED}).items():
        (folder / filename).write_text(text, encoding="utf-8")
    return folder


def _reproduction(name: str, hardware: str, failing: str = "failing.py") -> str:
    return (f'[[reproductions]]\nname = "{name}"\ndescription = "The {name} variant."\nhardware = [{hardware}]\n'
            f'failing = "{failing}"\nfixed = "fixed.py"\nfailing_expect = {{ signature = "sig" }}\n')


def write_cases(root: Path) -> Path:
    """Write the synthetic cases under ``root`` and return it."""
    sig = '[[signatures]]\nname = "sig"\nexception = "RuntimeError"\nmessage = "boom"\n'
    traceback = "Traceback (most recent call last):\n  File \"failing.py\", line 3\nRuntimeError: boom on the recorded run\n"

    # Verified on an emulated GPU profile (t4), with the token-rich symptom.
    f = _folder(root, "KB9001-token-case", f'''
id = "KB9001"
slug = "token-case"
title = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.90 GiB"
summary = "The case the search-token test must find."
libraries = ["torch", "transformers"]
setting = "A Kaggle notebook with two T4s"
hardware = ["t4"]
[versions]
observed = "transformers 4.46"
[[sources]]
title = "Incident"
url = "../shared/incidents/example.md"
{sig}
{_reproduction("default", '"t4"')}''', TOKEN_CASE_TEXT)
    for program, outcome in (("failing", "reproduced"), ("fixed", "fixed")):
        _evidence(f, "default", program, "t4", passed=True, outcome=outcome, date="2026-01-02T10:00:00+00:00",
                  log=traceback if program == "failing" else "ok\n", gpu="NVIDIA H100",
                  emulated="a Tesla T4's 14.74 GiB, by capping a larger GPU's memory")

    # The decoy: active, no evidence at all.
    _folder(root, "KB9002-decoy-case", f'''
id = "KB9002"
slug = "decoy-case"
title = "RuntimeError: out of memory while processing"
summary = "Shares words with KB9001 but not its tokens."
libraries = ["torch"]
hardware = ["cpu"]
{sig}
{_reproduction("default", '"cpu"')}''', DECOY_TEXT)

    # Fixed upstream, verified on CPU only, two reproductions (variants).
    f = _folder(root, "KB9003-fixed-upstream-case", f'''
id = "KB9003"
slug = "fixed-upstream-case"
title = "TypeError: __init__() got an unexpected keyword argument 'tokenizer'"
summary = "A renamed argument."
status = "fixed-upstream"
libraries = ["trl"]
hardware = ["cpu"]
[versions]
observed = "trl 0.11"
fixed_upstream = "trl 0.12"
affected = [{{ package = "trl", spec = ">=0.11,<0.12", note = "before the rename" }}]
{sig}
{_reproduction("default", '"cpu"')}pins = ["trl==0.11.4"]

{_reproduction("second-variant", '"cpu"', "other_failing.py")}''', "TypeError: boom",
        {"failing.py": FAILING, "other_failing.py": FAILING.replace("2", "3"), "fixed.py": FIXED})
    for program, outcome in (("failing", "reproduced"), ("fixed", "fixed")):
        _evidence(f, "default", program, "cpu", passed=True, outcome=outcome, date="2026-01-03T10:00:00+00:00",
                  log=traceback if program == "failing" else "ok\n")

    # Retired, and its last failing run no longer reproduced.
    f = _folder(root, "KB9004-retired-case", f'''
id = "KB9004"
slug = "retired-case"
title = "ValueError: an old error"
status = "retired"
libraries = ["peft"]
hardware = ["gpu"]
{sig}
{_reproduction("default", '"gpu"')}''', "ValueError: an old error")
    _evidence(f, "default", "failing", "gpu", passed=False, outcome="not-reproduced",
              date="2026-01-04T10:00:00+00:00", log="it ran fine\n", gpu="NVIDIA H100")

    # Unreproduced: no reproduction at all.
    _folder(root, "KB9005-unreproduced-case", '''
id = "KB9005"
slug = "unreproduced-case"
title = "Kernel died while generating"
status = "unreproduced"
libraries = ["bitsandbytes"]
hardware = ["t4"]
''', "The notebook kernel died.", {})
    return root

"""rt50d (turn 50, issue #24): qa-runtime-56's in-scope miss (corpus/reports-qa-runtime-56.jsonl) by a rule that
generalises, with the near forms it must leave alone (benchmarks/results/runtime-turn50d.txt).

transformers 4.4x+ words its accelerate requirement for a device map as a ValueError: "Using a `device_map`, `tp_plan`,
`torch.device` context manager or setting `torch.set_default_device(device)` requires `accelerate`. You can install it
with `pip install accelerate`" (modeling_utils.from_pretrained). It is api-drift's needs-accelerate (a stack package not
installed), as the older ImportError wording ("Using `low_cpu_mem_usage=True` or a `device_map` requires Accelerate") is;
before, the Auto classes' frame prior read it as model-unsupported. transformers' bitsandbytes check stays cuda-setup's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runtime_support import top_answer

CORPUS = Path(__file__).parent.parent / "corpus" / "reports-qa-runtime-56.jsonl"


def report(report_id: str) -> str:
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["id"] == report_id:
            return record["error"]
    raise KeyError(report_id)


NEW_WORDING = ("ValueError: Using a `device_map`, `tp_plan`, `torch.device` context manager or setting "
               "`torch.set_default_device(device)` requires `accelerate`. You can install it with `pip install accelerate`")


@pytest.mark.parametrize("text", [
    report("forum:huggingface.co/spaces/memengoc/chatgpt"),
    # the same error as a plain traceback, through the Auto class's frame
    "Traceback (most recent call last):\n"
    '  File "/content/app.py", line 5, in <module>\n'
    "    model = AutoModelForCausalLM.from_pretrained(name, device_map=\"auto\")\n"
    '  File "/usr/local/lib/python3.11/dist-packages/transformers/models/auto/auto_factory.py", line 571, in from_pretrained\n'
    "    return model_class.from_pretrained(\n"
    '  File "/usr/local/lib/python3.11/dist-packages/transformers/modeling_utils.py", line 4285, in from_pretrained\n'
    "    raise ValueError(\n" + NEW_WORDING + "\n",
    # the line alone
    NEW_WORDING,
])
def test_device_map_accelerate_requirement_is_api_drift(text: str) -> None:
    assert top_answer(text) == ("family", "api-drift")


@pytest.mark.parametrize("text, expected", [
    # the older ImportError wording stays api-drift
    ("ImportError: Using `low_cpu_mem_usage=True` or a `device_map` requires Accelerate: `pip install accelerate`",
     ("family", "api-drift")),
    # transformers' bitsandbytes check stays cuda-setup's (rt50b)
    ("ImportError: Using `bitsandbytes` 8-bit quantization requires Accelerate: `pip install accelerate` and the latest "
     "version of bitsandbytes: `pip install -i https://pypi.org/simple/ bitsandbytes`", ("family", "cuda-setup")),
])
def test_near_forms_keep_their_family(text: str, expected: tuple[str, str]) -> None:
    assert top_answer(text) == expected


def test_an_unrelated_valueerror_is_not_claimed_by_the_rule() -> None:
    # a ValueError that names accelerate without the requirement wording is not needs-accelerate
    assert top_answer("ValueError: accelerate was given an unknown mixed precision mode 'fp8x'") != ("family", "api-drift")

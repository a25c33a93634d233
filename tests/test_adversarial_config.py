"""`kb env --config` on hostile files: a clear message and exit 2, never kb's traceback; strict JSON (issue 15).

Before: /dev/zero grew to 24 GB until the kernel killed kb; 100,000-deep JSON or YAML and a
100,000-digit number ended in kb's traceback with exit 1; a NaN value printed bare ``NaN``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from kb.cli import main
from kb.env.config import MAX_CONFIG_BYTES, MAX_CONFIG_DEPTH, ConfigError, read_config


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


HOSTILE = {
    "deep.json": ("[" * 100_000 + "]" * 100_000, "nested more than"),
    "deep-object.json": ('{"a":' * 50_000 + "1" + "}" * 50_000, "nested more than"),
    "deep.yaml": ("a: " + "[" * 100_000 + "]" * 100_000 + "\n", "nested more than"),
    "deep-flow.yml": ("a: " + "{b: " * 40 + "1" + "}" * 40 + "\n", "nested more than"),
    "deep-block.yaml": ("".join(" " * i + f"k{i}:\n" for i in range(1200)) + " " * 1200 + "x: 1\n", None),
    "deep-dashes.yaml": ("- " * 200_000 + "x\n", None),
    "digits.json": ('{"per_device_train_batch_size": ' + "9" * 100_000 + "}", "cannot read"),
    "digits.yaml": ("per_device_train_batch_size: " + "9" * 100_000 + "\n", "cannot read"),
    "big.json": ('{"a": "' + "x" * (MAX_CONFIG_BYTES + 10) + '"}', "larger than"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_config_is_a_config_error(tmp_path: Path, name: str) -> None:
    text, says = HOSTILE[name]
    path = write(tmp_path, name, text)
    try:
        config = read_config(path)
    except ConfigError as exc:
        assert says is None or says in str(exc), str(exc)
        return
    # Deep YAML by indentation or dashes within the size limit may load; then it is an ordinary result.
    assert says is None, f"{name} was read: {config}"
    json.dumps(config, allow_nan=False)


def test_dev_zero_is_refused_at_the_size_limit() -> None:
    with pytest.raises(ConfigError, match="larger than"):
        read_config("/dev/zero")


def test_depth_limit_keeps_ordinary_nesting(tmp_path: Path) -> None:
    nested = '{"training_args": {"per_device_train_batch_size": 4, "bf16": true}}'
    assert read_config(write(tmp_path, "ok.json", nested))["settings"] == {"per_device_train_batch_size": 4, "bf16": True}
    limit = "[" * MAX_CONFIG_DEPTH + "]" * MAX_CONFIG_DEPTH
    assert read_config(write(tmp_path, "limit.json", '{"a": ' + limit[1:-1] + ', "fp16": true}'))["settings"] == {"fp16": True}


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_nan_is_printed_as_strict_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    path = write(tmp_path, "nan.json", f'{{"per_device_train_batch_size": {value}, "fp16": true}}')
    assert main(["env", "--config", path, "--format", "json"]) == 0
    out = capsys.readouterr().out
    doc = json.loads(out, parse_constant=lambda c: pytest.fail(f"bare {c} in the JSON output"))
    shown = doc["config"]["settings"]["per_device_train_batch_size"]
    assert isinstance(shown, str) and math.isnan(float(shown)) == (value == "NaN")


@pytest.mark.parametrize("name", ["deep.json", "digits.json", "digits.yaml", "big.json"])
def test_cli_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    text, _ = HOSTILE[name]
    path = write(tmp_path, name, text)
    assert main(["env", "--config", path]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kb env: ") and err.count("\n") == 1, err


def test_cli_dev_zero_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["env", "--config", "/dev/zero"]) == 2
    assert "larger than" in capsys.readouterr().err



def test_brackets_inside_strings_do_not_count_as_nesting(tmp_path: Path) -> None:
    """A chat template in an SFTConfig dump holds braces; they are text, not nesting."""
    template = "{% for m in messages %}" * 20 + "{{" * 40 + "}}" * 40
    path = write(tmp_path, "sft.json", json.dumps({"chat_template": template, "per_device_train_batch_size": 2}))
    assert read_config(path)["settings"] == {"per_device_train_batch_size": 2}

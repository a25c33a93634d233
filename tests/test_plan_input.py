"""kb plan's input (issue #26 item 5): every number and file it is given is checked, and bad input ends in one
line ``kb plan: ...`` with exit code 2 -- never a traceback, never a plan of nonsense, in bounded time.

Before: huge numbers, deep JSON, zero heads, Infinity and wrong types in --config, --from or --device-map gave
tracebacks; 10,000,000 layers a MemoryError; a 20,000-entry device map took over 120 s (placement was
quadratic); /dev/zero and a 1 GiB config were read whole; --gpu-gib inf, a negative dropout, {"": -1} (the
model vanished and "fit") and negative sizes in a config were planned.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.cli.commands import run_command
from kb.plan.estimate import auto_layer_counts, place
from kb.plan.shapes import known_models, load_shape
from kb.plan.spec import RunSpec, SpecError, spec_from_settings

ROOT = Path(__file__).resolve().parent.parent
MISTRAL = dict(known_models()["mistral-7b"])


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = run_command(["plan", *argv])
    captured = capsys.readouterr()
    assert code == 2, (argv, captured.out[:300])
    err = captured.err
    assert err.startswith("kb plan: ") and err.count("\n") == 1, err
    return err


def config_file(tmp_path: Path, **fields: object) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**MISTRAL, **fields}))
    return str(path)


# --------------------------------------------------------------------------- --config


@pytest.mark.parametrize("fields, says", [
    ({"num_hidden_layers": 10_000_000}, "num_hidden_layers must be between 1 and"),
    ({"num_attention_heads": 0}, "num_attention_heads must be between 1 and"),
    ({"num_key_value_heads": 0}, "num_key_value_heads must be between 1 and"),
    ({"num_key_value_heads": 3}, "must divide num_attention_heads"),
    ({"hidden_size": -4096}, "hidden_size must be between 1"),
    ({"intermediate_size": 0}, "intermediate_size must be between 1"),
    ({"vocab_size": 10**40}, "vocab_size must be between 1"),
    ({"vocab_size": 1e300}, "vocab_size must be between 1"),
    ({"hidden_size": 4096.5}, "is not a whole number"),
    ({"hidden_size": "4096"}, "is not a whole number"),
    ({"hidden_size": True}, "is not a whole number"),
    ({"hidden_size": None}, "config lacks hidden_size"),
    ({"head_dim": -1}, "head_dim must be between 1"),
    ({"tie_word_embeddings": "yes"}, "tie_word_embeddings must be true or false"),
    ({"model_type": 5}, "is not one kb plan knows"),
    ({"model_type": ["llama"]}, "is not one kb plan knows"),
    ({"final_logit_softcapping": "x"}, "final_logit_softcapping must be a number"),
])
def test_config_fields_are_checked(tmp_path, capsys, fields, says):
    err = refused(capsys, "--config", config_file(tmp_path, **fields))
    assert says in err, err


@pytest.mark.parametrize("text, says", [
    ('{"hidden_size": Infinity, "model_type": "llama"}', "Infinity"),
    ('{"hidden_size": NaN}', "NaN"),
    ('{"hidden_size": ' + "9" * 100_000 + "}", "cannot read"),
    ("[" * 100_000 + "]" * 100_000, "nested more than"),
    ('{"a": ' * 5_000 + "1" + "}" * 5_000, "nested more than"),
    ("[1, 2]", "expected a JSON object"),
    ("{", "not valid JSON"),
    ("\xff\xfe", "not valid JSON"),
])
def test_config_text_is_checked(tmp_path, capsys, text, says):
    path = tmp_path / "config.json"
    path.write_text(text)
    assert says in refused(capsys, "--config", str(path))


def test_negative_sizes_are_not_planned_as_fitting(tmp_path, capsys):
    """Before: "-5.35B parameters ... fits"."""
    err = refused(capsys, "--config", config_file(tmp_path, hidden_size=-4096, intermediate_size=-14336),
                  "--gpu-gib", "15")
    assert "hidden_size" in err


def test_devices_and_huge_files_are_refused_unread(tmp_path, capsys):
    assert "not a regular file" in refused(capsys, "--config", "/dev/zero")
    assert "not a regular file" in refused(capsys, "--model", "qwen2.5-7b", "--device-map", "/dev/zero")
    assert "not a regular file" in refused(capsys, "--model", "qwen2.5-7b", "--from", "/dev/zero")
    big = tmp_path / "big" / "config.json"
    big.parent.mkdir()
    with open(big, "wb") as handle:
        handle.truncate(1024**3)  # a sparse 1 GiB file
    start = time.monotonic()
    assert "larger than 1024 KiB" in refused(capsys, "--config", str(big.parent))
    assert time.monotonic() - start < 2.0
    assert "not found" in refused(capsys, "--config", str(tmp_path / "nope.json"))


def _pipe_with(tmp_path: Path, data: bytes) -> tuple[str, threading.Thread]:
    fifo = tmp_path / f"pipe{len(data)}.json"
    os.mkfifo(fifo)

    def write() -> None:
        try:
            with open(fifo, "wb") as handle:
                handle.write(data)
        except BrokenPipeError:  # the reader stopped at its bound
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return str(fifo), writer


def test_a_pipe_is_read_up_to_the_bound(tmp_path, capsys):
    """`--config <(...)` (audit49: every pipe was refused): a pipe is read as a file is, and refused past 1 MiB."""
    config = json.dumps({"model_type": "llama", "hidden_size": 512, "intermediate_size": 1024, "num_hidden_layers": 4,
                         "num_attention_heads": 8, "num_key_value_heads": 8, "vocab_size": 32000})
    path, writer = _pipe_with(tmp_path, config.encode())
    assert run_command(["plan", "--config", path, "--format", "json"]) in (0, 1)
    assert json.loads(capsys.readouterr().out)["model"]["layers"] == 4
    writer.join(5)
    path, writer = _pipe_with(tmp_path, b" " * (2 * 1024 * 1024))
    assert "larger than 1024 KiB" in refused(capsys, "--config", path)
    writer.join(5)


# --------------------------------------------------------------------------- --from


@pytest.mark.parametrize("fields, says", [
    ({"per_device_train_batch_size": True}, "per_device_train_batch_size: True is not a whole number"),
    ({"per_device_train_batch_size": "abc"}, "is not a whole number"),
    ({"per_device_train_batch_size": 0}, "per_device_train_batch_size must be between 1"),
    ({"per_device_train_batch_size": 1e400}, "is not a whole number"),
    ({"per_device_train_batch_size": float("nan")}, "is not a whole number"),
    ({"max_seq_length": -1024}, "max_seq_length must be between 1"),
    ({"max_seq_length": 10**400}, "a number of about 401 digits"),
    ({"gradient_accumulation_steps": [4]}, "is not a whole number"),
    ({"lora_dropout": -0.1}, "lora_dropout must be at least 0"),
    ({"lora_dropout": 1.5}, "lora_dropout must be at least 0 and less than 1"),
    ({"lora_dropout": "high"}, "is not a number"),
    ({"lora_alpha": -16}, "lora_alpha must be more than 0"),
    ({"lora_r": -8}, "lora_r must be between 0"),
    ({"target_modules": 5}, "target_modules: expected a list of module names"),
    ({"target_modules": [1, 2]}, "target_modules: expected a list of module names"),
    ({"optim": 5}, "optim: expected a name"),
    ({"optim": "adamw_magic"}, "--optim 'adamw_magic'"),
    ({"gradient_checkpointing": "maybe"}, "gradient_checkpointing: expected true or false"),
    ({"load_in_4bit": "sure"}, "load_in_4bit: expected true or false"),
    ({"load_in_4bit": True, "bnb_4bit_quant_type": 4}, "bnb_4bit_quant_type: expected a name"),
    ({"model_name_or_path": 5}, "model_name_or_path: expected a model id"),
])
def test_from_fields_are_checked(tmp_path, capsys, fields, says):
    path = tmp_path / "sft.json"
    path.write_text(json.dumps({"per_device_train_batch_size": 1, **fields}))
    err = refused(capsys, "--from", str(path), "--model", "qwen2.5-0.5b")
    assert says in err, err


def test_from_numbers_written_as_text_are_read(tmp_path, capsys):
    path = tmp_path / "sft.yaml"
    path.write_text("per_device_train_batch_size: '4'\nmax_seq_length: 2048.0\nlora_dropout: '0.1'\n")
    assert run_command(["plan", "--from", str(path), "--model", "qwen2.5-0.5b", "--format", "json"]) == 0
    run = json.loads(capsys.readouterr().out)["run"]
    assert (run["batch"], run["seq"], run["lora_dropout"]) == (4, 2048, 0.1)


# --------------------------------------------------------------------------- numeric flags


@pytest.mark.parametrize("argv, says", [
    (["--gpu-gib", "inf"], "--gpu-gib must be a finite number"),
    (["--gpu-gib", "nan"], "--gpu-gib must be a finite number"),
    (["--gpu-gib", "15", "-1"], "--gpu-gib must be at least 0.125"),
    (["--gpu-gib", "0"], "--gpu-gib must be at least 0.125"),
    (["--gpu-gib", "1e9"], "--gpu-gib must be at least 0.125 and at most 4096"),
    (["--gpu-gib", "fifteen"], "--gpu-gib: 'fifteen' is not a number"),
    (["--gpu-gib", *["15"] * 65], "at most 64"),
    (["--context-gib", "-0.5"], "--context-gib must be at least 0"),
    (["--context-gib", "inf"], "--context-gib must be a finite number"),
    (["--lora-dropout", "-0.05"], "--lora-dropout must be at least 0"),
    (["--lora-alpha", "-32"], "--lora-alpha must be more than 0"),
    (["--lora-r", "-1"], "--lora-r must be between 0"),
    (["--seq", "-1024"], "--seq must be between 1"),
    (["--seq", "1.5"], "--seq: 1.5 is not a whole number"),
    (["--batch", "0"], "--batch must be between 1"),
    (["--batch", "1e400"], "--batch: inf is not a whole number"),
    (["--batch", "9" * 5000], "is not a whole number"),
    (["--batch", "100000", "--seq", "100000"], "tokens a micro-batch"),
    (["--grad-accum", "0"], "--grad-accum must be between 1"),
    (["--quant", "gguf"], "argument --quant: invalid choice"),
    (["--batch"], "argument --batch: expected one argument"),
])
def test_numeric_flags_are_checked(capsys, argv, says):
    err = refused(capsys, "--model", "qwen2.5-7b", *argv)
    assert says in err, err


# --------------------------------------------------------------------------- --device-map


@pytest.mark.parametrize("mapping, gpus, says", [
    ('{"": -1}', [], "a GPU index is 0 to 63"),
    ('{"": 99}', [], "a GPU index is 0 to 63"),
    ('{"": 2}', ["15", "15"], "no such GPU (2 GPUs given by --gpu-gib"),
    ('{"": true}', [], "places modules on GPUs only"),
    ('{"": "cpu"}', [], "places modules on GPUs only"),
    ('{"": 1.5}', [], "places modules on GPUs only"),
    ('{"": Infinity}', [], "Infinity"),
    ('{"": null}', [], "places modules on GPUs only"),
    ('{"": [0]}', [], "places modules on GPUs only"),
    ('{"model.layers": 0}', [], "places no GPU for model.embed_tokens, model.norm, lm_head"),
    ('{"model.embed_tokens": 0, "model.norm": 0, "lm_head": 0, "model.layers.0": 0}', [],
     "places no GPU for model.layers.1, model.layers.2, model.layers.3, model.layers.4 ..."),
    ("[0, 1]", [], "expected a JSON object"),
    ("{", [], "not valid JSON"),
    ('{"a": ' * 100 + "0" + "}" * 100, [], "nested more than"),
    ("no-such-file.json", [], "neither auto, a JSON object nor a readable file"),
])
def test_device_maps_are_checked(capsys, mapping, gpus, says):
    argv = ["--model", "qwen2.5-7b", "--device-map", mapping] + (["--gpu-gib", *gpus] if gpus else [])
    err = refused(capsys, *argv)
    assert says in err, err


def test_a_device_map_cannot_make_the_model_vanish(capsys):
    """{"": -1} once placed the model nowhere, and the empty GPU "fit"."""
    refused(capsys, "--model", "qwen2.5-14b", "--device-map", '{"": -1}', "--gpu-gib", "15")
    assert run_command(["plan", "--model", "qwen2.5-14b", "--device-map", '{"": "cuda:0"}', "--gpu-gib", "15"]) == 1


def test_placement_is_linear_in_a_20000_entry_device_map(tmp_path, capsys):
    """Before: 85 s for this on a 2,000-layer config (every layer's name against every key, per plan and per
    piece of advice); the layers are now counted per GPU."""
    mapping = {f"model.layers.{i}": i % 2 for i in range(20_000)}
    mapping.update({"model.embed_tokens": 0, "model.rotary_emb": 0, "model.norm": 1, "lm_head": 1})
    path = tmp_path / "map.json"
    path.write_text(json.dumps(mapping))
    config = config_file(tmp_path, num_hidden_layers=2000, hidden_size=1024, intermediate_size=2048)
    start = time.monotonic()
    code = run_command(["plan", "--config", config, "--gpu-gib", "15", "15", "--device-map", str(path), "--format", "json"])
    elapsed = time.monotonic() - start
    doc = json.loads(capsys.readouterr().out)
    assert code in (0, 1) and elapsed < 10.0, elapsed
    assert [g["holds"][-1] for g in doc["gpus"]] == ["1000 decoder layers", "1000 decoder layers"]
    assert doc["to_fit"]  # the advice re-plans the map too


def old_place(layers: int, tied: bool, mapping: dict[str, int]) -> dict[str, int] | None:
    """The quadratic placement kb plan had, kept here as the reference the linear one must agree with."""
    names = ["model.embed_tokens"] + [f"model.layers.{n}" for n in range(layers)] + ["model.norm"]
    names = names if tied else names + ["lm_head"]
    placed = {}
    for name in names:
        keys = [k for k in mapping if k == "" or name == k or name.startswith(k + ".")]
        if not keys:
            return None
        placed[name] = mapping[max(keys, key=len)]
    if tied:
        placed["lm_head"] = placed["model.embed_tokens"]
    return placed


def old_auto(layers: int, sizes: list[float]) -> dict[int, int]:
    share = [s / sum(sizes) for s in sizes]
    bound, gpu, counts = 0.0, 0, {}
    for n in range(layers):
        while gpu < len(sizes) - 1 and n >= round(layers * (bound + share[gpu])):
            bound += share[gpu]
            gpu += 1
        counts[gpu] = counts.get(gpu, 0) + 1
    return counts


@settings(max_examples=300, deadline=None)
@given(layers=st.integers(1, 200), sizes=st.lists(st.floats(0.5, 200.0), min_size=1, max_size=9))
def test_auto_layer_counts_agree_with_the_old_loop(layers, sizes):
    assert auto_layer_counts(layers, sizes) == old_auto(layers, sizes)


KEYS = st.sampled_from(["", "model", "model.layers", "model.embed_tokens", "model.norm", "lm_head", "model.rotary_emb",
                        "model.layers.0", "model.layers.1", "model.layers.5", "model.layers.23", "model.layers.24",
                        "model.layers.007", "model.layers.1.mlp", "model.layer", "lm"])


@settings(max_examples=300, deadline=None)
@given(mapping=st.dictionaries(KEYS, st.integers(0, 3), max_size=8), tied=st.booleans())
def test_explicit_placement_agrees_with_the_old_one(mapping, tied):
    shape = load_shape("qwen2.5-0.5b" if tied else "qwen2.5-7b")
    want = old_place(shape.layers, shape.tied, mapping)
    try:
        got = place(shape, RunSpec(device_map=mapping))
    except SpecError:
        assert want is None
        return
    assert want is not None
    assert got.io == {k: v for k, v in want.items() if not k.startswith("model.layers.")}
    counts: dict[int, int] = {}
    for k, v in want.items():
        if k.startswith("model.layers."):
            counts[v] = counts.get(v, 0) + 1
    assert got.layers == counts


# --------------------------------------------------------------------------- any JSON


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
CONFIG_FIELDS = st.sampled_from(["model_type", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                                 "num_key_value_heads", "head_dim", "vocab_size", "tie_word_embeddings", "attention_bias",
                                 "final_logit_softcapping", "text_config"])
FROM_FIELDS = st.sampled_from(["per_device_train_batch_size", "gradient_accumulation_steps", "max_seq_length", "optim",
                               "gradient_checkpointing", "gradient_checkpointing_kwargs", "lora_r", "lora_alpha",
                               "lora_dropout", "target_modules", "attn_implementation", "load_in_4bit", "load_in_8bit",
                               "bnb_4bit_quant_type", "bnb_4bit_use_double_quant", "fp16", "bf16", "model_name_or_path",
                               "training_args"])
MODULES = st.sampled_from(["", "model", "model.layers", "model.embed_tokens", "model.norm", "lm_head", "model.layers.3"])
FUZZ = settings(max_examples=60, deadline=5000, suppress_health_check=[HealthCheck.function_scoped_fixture])


def answers_or_refuses(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    """Exit 0 with a plan, or exit 2 with one line on stderr; anything else (a traceback) fails the test."""
    code = run_command(["plan", *argv, "--format", "json"])
    captured = capsys.readouterr()
    assert code in (0, 2), (code, captured.err)
    if code == 2:
        assert captured.err.startswith("kb plan: ") and captured.err.count("\n") == 1, captured.err
        assert captured.out == ""
    else:
        json.loads(captured.out, parse_constant=lambda c: pytest.fail(f"bare {c} in the plan"))


@FUZZ
@given(overrides=st.dictionaries(CONFIG_FIELDS, JSON, max_size=4))
def test_any_json_config_is_answered_or_refused_in_one_line(tmp_path, capsys, overrides):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**MISTRAL, **overrides}))
    answers_or_refuses(capsys, ["--config", str(path)])


@FUZZ
@given(value=JSON)
def test_any_json_document_as_config_is_answered_or_refused(tmp_path, capsys, value):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(value))
    answers_or_refuses(capsys, ["--config", str(path)])


@FUZZ
@given(mapping=st.dictionaries(MODULES | st.text(max_size=10),
                               st.integers(-3, 70) | st.sampled_from(["cuda:1", "1", "cpu", "disk"]) | JSON, max_size=6))
def test_any_json_device_map_is_answered_or_refused_in_one_line(capsys, mapping):
    answers_or_refuses(capsys, ["--model", "qwen2.5-0.5b", "--device-map", json.dumps(mapping)])


@FUZZ
@given(fields=st.dictionaries(FROM_FIELDS, JSON, max_size=5))
def test_any_json_from_file_is_answered_or_refused_in_one_line(tmp_path, capsys, fields):
    path = tmp_path / "sft.json"
    path.write_text(json.dumps(fields))
    answers_or_refuses(capsys, ["--from", str(path), "--model", "qwen2.5-0.5b"])


@settings(max_examples=200, deadline=None)
@given(fields=st.dictionaries(FROM_FIELDS, JSON, max_size=6))
def test_spec_from_settings_raises_only_spec_error(fields):
    try:
        spec = spec_from_settings(fields)
    except SpecError:
        return
    spec.check()


# --------------------------------------------------------------------------- as a user runs it


@pytest.mark.parametrize("argv", [
    ["--config", "/dev/zero"],
    ["--model", "qwen2.5-7b", "--gpu-gib", "nan"],
    ["--model", "qwen2.5-7b", "--device-map", '{"": -1}'],
    ["--model", "qwen2.5-7b", "--seq", "1" + "0" * 400],
])
def test_the_command_prints_one_line_and_no_traceback(argv):
    done = subprocess.run([sys.executable, "-m", "kb", "plan", *argv], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("kb plan: ") and done.stderr.count("\n") == 1, done.stderr


# audit49's leftover: device-map keys that name no module of the model were ignored without a word ("holds nothing:
# fits"); a typo, a layer past the last one or a zero-padded index now gets a note naming it, and keys below a whole
# module (which kb does not plan) get one too. Keys that name modules get none.
@pytest.mark.parametrize("mapping, unknown, finer", [
    ({"model.layers.28": 1, "": 0}, ["model.layers.28"], []),
    ({"foo.bar": 1, "": 0}, ["foo.bar"], []),
    ({"model.layers.00001": 1, "": 0}, ["model.layers.00001"], []),
    ({"model.layers.3.mlp": 1, "lm_head.weight": 1, "": 0}, [], ["model.layers.3.mlp", "lm_head.weight"]),
    ({"model.layers.27": 1, "model.norm": 1, "lm_head": 1, "model": 0}, [], []),
])
def test_device_map_keys_naming_no_module_are_noted(capsys, mapping, unknown, finer):
    from kb.plan.estimate import unplaced_keys

    assert unplaced_keys(load_shape("qwen2.5-7b"), mapping) == (unknown, finer)
    code = run_command(["plan", "--model", "qwen2.5-7b", "--gpu-gib", "15", "15", "--device-map", json.dumps(mapping),
                        "--format", "json"])
    assert code in (0, 1)
    notes = " | ".join(json.loads(capsys.readouterr().out)["notes"])
    for key in unknown:
        assert "naming no module of this model (28 layers, model.layers.0 to model.layers.27), not planned (a typo?): " in notes
        assert key in notes
    for key in finer:
        assert key in notes and "below a whole layer or module" in notes
    if not unknown and not finer:
        assert "naming no module" not in notes and "below a whole" not in notes

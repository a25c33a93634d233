"""The agreement check's verdicts (kb/apidrift/agreement.py): an environment's fault is undecidable, never
agreement; the library's own failure stays a disagreement; drawing goes on until enough pairs are decidable.

No installs here: those run in `python -m kb.apidrift.agreement`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import kb.apidrift.agreement as agreement
from kb.apidrift.agreement import (
    JsonHistory,
    Outcome,
    Pair,
    answer_in,
    environment_reason,
    judge,
    report,
    run_child,
    sample_pairs,
    settle,
)


def _error(kind: str, message: str, name: str | None = None, file: str | None = None) -> dict[str, object]:
    return {"type": kind, "name": name, "message": message, "file": file}


def test_missing_modules_outside_the_library_are_the_environments_fault() -> None:
    tf = _error("ModuleNotFoundError", "No module named 'tensorflow'", "tensorflow")
    assert "tensorflow" in (environment_reason("transformers", tf) or "")
    six = _error("ModuleNotFoundError", "No module named 'torch._six'", "torch._six")
    assert "torch._six" in (environment_reason("deepspeed", six) or "")
    # a module of the library itself that is missing is the library's answer, not the environment's
    own = _error("ModuleNotFoundError", "No module named 'trl.trainer.foo'", "trl.trainer.foo")
    assert environment_reason("trl", own) is None


def test_names_missing_from_other_packages_and_abi_errors_are_the_environments_fault() -> None:
    other = _error("ImportError", "cannot import name 'top_k_top_p_filtering' from 'transformers' (/x/transformers/__init__.py)",
                   "transformers")
    assert "top_k_top_p_filtering" in (environment_reason("trl", other) or "")
    own = _error("ImportError", "cannot import name 'PPOv2Trainer' from 'trl.trainer' (/x/trl/trainer/__init__.py)", "trl.trainer")
    assert environment_reason("trl", own) is None
    abi = _error("OSError", "/x/bitsandbytes/libbitsandbytes_cpu.so: undefined symbol: cget_col_row_stats")
    assert "ABI" in (environment_reason("bitsandbytes", abi) or "")
    elsewhere = _error("AttributeError", "module 'numpy' has no attribute 'float'",
                       file="/venv/lib/python3.11/site-packages/numpy/__init__.py")
    assert "numpy" in (environment_reason("deepspeed", elsewhere) or "")
    inside = _error("AttributeError", "'NoneType' object has no attribute 'x'",
                    file="/venv/lib/python3.11/site-packages/deepspeed/runtime/engine.py")
    assert environment_reason("deepspeed", inside) is None
    assert environment_reason("deepspeed", None) is None


def test_settle_never_counts_an_environments_failure_as_agreement() -> None:
    # every environment failed for an environment's reason: undecidable, with each attempt's reason
    pair = Pair("transformers", "4.43.1", "export", "transformers.models.bert.tokenization_bert_tf", "TFBertTokenizer", True)
    settle(pair, [Outcome("alone", None, "could not inspect", environment="module `tensorflow` is not installed"),
                  Outcome("era venv", None, "could not inspect", environment="module `tensorflow` is not installed")])
    assert pair.undecidable and not pair.agrees and "tensorflow" in pair.note
    # the library's own code failed everywhere: a disagreement, not undecidable
    pair = Pair("trl", "0.7.0", "export", "trl", "X", True)
    settle(pair, [Outcome("alone", None, "could not inspect: SyntaxError: bad")])
    assert not pair.undecidable and not pair.agrees
    # the first environment that answers decides
    pair = Pair("trl", "0.7.0", "export", "trl", "X", False)
    settle(pair, [Outcome("alone", None, "", environment="module `peft` ..."), Outcome("era venv", False, "")])
    assert pair.agrees and pair.note.startswith("[era venv]")
    # a callable that does not exist at the release is an answer: the history is wrong
    pair = Pair("trl", "0.7.0", "param", "trl.Gone", "x", False)
    settle(pair, [Outcome("alone", None, "the callable does not exist", missing=True),
                  Outcome("era venv", None, "", environment="module `peft` ...")])
    assert not pair.undecidable and not pair.agrees


def _history() -> JsonHistory:
    return JsonHistory({
        "peft": {
            "0.9.0": {"exports": {"peft": ["LoraConfig", "prepare_model_for_int8_training", "A", "B"]},
                      "params": {"peft.LoraConfig": ["r", "use_dora"]}},
            "0.10.0": {"exports": {"peft": ["LoraConfig", "prepare_model_for_kbit_training", "C"]},
                       "params": {"peft.LoraConfig": ["r", "use_dora", "layer_replication"]}},
        },
    })


def test_judge_draws_until_enough_pairs_are_decidable_in_the_seeds_order() -> None:
    def checker(batch: list[Pair]) -> None:  # every pair naming LoraConfig's parameters is undecidable
        for p in batch:
            p.undecidable = p.kind == "param"
            p.real = None if p.undecidable else p.claim

    judged = judge(_history(), 5, seed=3, versions_per_library=2, max_draws=50, checker=checker)
    decided = [p for p in judged if not p.undecidable]
    assert len(decided) == 5
    assert any(p.undecidable for p in judged)  # some were drawn and set aside, so more than 5 were drawn
    # the draws are the seed's fixed stream: a prefix of the longest sample
    stream = sample_pairs(_history(), 50, seed=3, versions_per_library=2)
    assert [(p.version, p.target, p.name) for p in judged] == [(p.version, p.target, p.name) for p in stream[:len(judged)]]
    text = report(judged, seed=3, source="test", command="python -m kb.apidrift.agreement --pairs 5 --seed 3")
    assert f"5 of 5 decidable pairs (100%); {len(judged)} pairs drawn, {len(judged) - 5} undecidable" in text
    assert "peft 0." in text.split("by release and reason:")[1]


def test_the_child_answers_in_a_bare_interpreter(tmp_path: Path) -> None:
    # the child runs as `python -c <file>`: here with this interpreter and a fake library on its PYTHONPATH
    lib = tmp_path / "fakelib"
    (lib / "sub").mkdir(parents=True)
    (lib / "__init__.py").write_text("def f(a, b=1, **kwargs):\n    return kwargs.pop('c', None)\nX = 1\n")
    (lib / "sub" / "__init__.py").write_text("")
    (lib / "broken.py").write_text("import tensorflow\n")
    (tmp_path / "fakelib-1.0.dist-info").mkdir()
    (tmp_path / "fakelib-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: fakelib\nVersion: 1.0\n")
    pairs = [Pair("fakelib", "1.0", "export", "fakelib", "X", True), Pair("fakelib", "1.0", "export", "fakelib", "sub", True),
             Pair("fakelib", "1.0", "param", "fakelib.f", "c", True), Pair("fakelib", "1.0", "param", "fakelib.f", "d", False),
             Pair("fakelib", "1.0", "export", "fakelib.broken", "Y", True),
             Pair("fakelib", "1.0", "export", "fakelib.nothere", "Y", True),
             Pair("fakelib", "1.0", "param", "fakelib.g", "a", True)]
    result = run_child(sys.executable, tmp_path, "fakelib", pairs, tmp_path)
    assert isinstance(result, dict), result
    assert result["versions"]["fakelib"] == "1.0"
    answers = result["answers"]
    assert [a["real"] for a in answers[:4]] == [True, True, True, False]
    assert answers[4]["real"] is None
    assert environment_reason("fakelib", answers[4]["error"]) is not None  # tensorflow is not fakelib's
    assert answers[5]["real"] is False  # the module does not exist: an answer
    assert answers[6].get("missing") is True


def test_the_child_reads_as_python_38() -> None:
    # the era's environment may be Python 3.8: the child must parse there (its syntax, not only ours)
    source = (Path(__file__).parents[1] / "kb" / "apidrift" / "agreement_child.py").read_text()
    import ast

    tree = ast.parse(source, feature_version=(3, 8))
    assert tree.body
    proc = subprocess.run([sys.executable, "-c", source, "[]"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stdout.startswith("KB-AGREEMENT "), proc.stderr


def test_a_callable_bound_only_in_a_branch_not_taken_is_undecidable(tmp_path: Path) -> None:
    # trl 0.7.0 binds DDPOTrainer only `if is_diffusers_available():`; without diffusers it is absent, and the
    # history (every branch's bindings) still records it: undecidable here, not a disagreement
    lib = tmp_path / "fakebranch"
    lib.mkdir()
    (lib / "__init__.py").write_text("def available():\n    return False\nif available():\n    from json import JSONDecoder as Trainer\n")
    (tmp_path / "fakebranch-1.0.dist-info").mkdir()
    (tmp_path / "fakebranch-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: fakebranch\nVersion: 1.0\n")
    pairs = [Pair("fakebranch", "1.0", "param", "fakebranch.Trainer", "x", True),
             Pair("fakebranch", "1.0", "param", "fakebranch.Gone", "x", True)]
    result = run_child(sys.executable, tmp_path, "fakebranch", pairs, tmp_path)
    assert isinstance(result, dict), result
    branch, gone = result["answers"]
    assert branch.get("undecidable") is True and "from json import JSONDecoder as Trainer" in branch["note"]
    assert gone.get("missing") is True and not gone.get("undecidable")


def test_a_note_over_several_lines_stays_in_its_table_row() -> None:
    pair = Pair("transformers", "4.43.1", "export", "transformers.x", "Y", True, undecidable=True,
                note="could not inspect: ImportError: tokenizers>=0.19 is required.\nTry: pip install | x")
    rows = [line for line in report([pair], seed=0, source="test").splitlines() if line.startswith("| 1 |")]
    assert len(rows) == 1 and rows[0].endswith("Try: pip install / x |")


def test_a_bare_decorator_wrapper_is_followed_to_the_method_it_forwards_to(tmp_path: Path) -> None:
    # deepspeed 0.16.3: `@instrument_w_nvtx` (no functools.wraps) leaves `wrapped_fn(*args, **kwargs)` as
    # DeepSpeedEngine.backward; the call forwards every keyword to `backward(self, loss, release_loss=False, ...)`
    lib = tmp_path / "fakewrap"
    lib.mkdir()
    (lib / "__init__.py").write_text(
        "def instrument(func):\n    def wrapped_fn(*args, **kwargs):\n        return func(*args, **kwargs)\n    return wrapped_fn\n"
        "class Engine:\n    @instrument\n    def backward(self, loss, release_loss=False):\n        return loss\n"
        "    def other(self, *args, **kwargs):\n        return kwargs\n")
    (tmp_path / "fakewrap-1.0.dist-info").mkdir()
    (tmp_path / "fakewrap-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: fakewrap\nVersion: 1.0\n")
    pairs = [Pair("fakewrap", "1.0", "param", "fakewrap.Engine.backward", "release_loss", True),
             Pair("fakewrap", "1.0", "param", "fakewrap.Engine.backward", "scale", False),
             Pair("fakewrap", "1.0", "param", "fakewrap.Engine.other", "x", False)]
    result = run_child(sys.executable, tmp_path, "fakewrap", pairs, tmp_path)
    assert isinstance(result, dict), result
    assert [a["real"] for a in result["answers"]] == [True, False, False]
    assert "**kwargs" in result["answers"][2]["note"]  # a plain *args/**kwargs method is not unwrapped


def _fake_release(root: Path, name: str, version: str, source: str) -> None:
    (root / name).mkdir()
    (root / name / "__init__.py").write_text(source)
    (root / f"{name}-{version}.dist-info").mkdir()
    (root / f"{name}-{version}.dist-info" / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def test_a_parameter_another_tracked_library_gives_is_judged_only_in_the_era_venv(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    # seed 49 (turn 49): trl 0.27.0's RewardConfig inherits TrainingArguments' fields; over this interpreter (its
    # transformers 5.24.0) it takes `dataloader_in_order`, which the transformers of trl 0.27.0's date lacked (the
    # history resolves the base as of the trl wheel's date): that answer is transformers', not trl 0.27.0's era's.
    # Fake packages of those names stand in for them in the child's interpreter (tmp_path comes first on its path)
    _fake_release(tmp_path, "transformers", "5.24.0",
                  "from dataclasses import dataclass\n@dataclass\nclass TrainingArguments:\n"
                  "    output_dir: str = ''\n    dataloader_in_order: bool = False\n")
    _fake_release(tmp_path, "trl", "0.27.0",
                  "import typing\nfrom dataclasses import dataclass\nfrom transformers import TrainingArguments\n"
                  "@dataclass\nclass RewardConfig(TrainingArguments):\n    center_rewards_coefficient: float = 0.0\n"
                  "class Module:\n    @typing.overload\n    def to(self, device=None, non_blocking=False): ...\n"
                  "    @typing.overload\n    def to(self, tensor, non_blocking=False): ...\n"
                  "    def to(self, *args, **kwargs):\n        return self\n")
    pairs = [Pair("trl", "0.27.0", "param", "trl.RewardConfig", "dataloader_in_order", False),
             Pair("trl", "0.27.0", "param", "trl.RewardConfig", "center_rewards_coefficient", True),
             Pair("trl", "0.27.0", "param", "trl.RewardConfig", "absent", False),
             Pair("trl", "0.27.0", "param", "trl.Module.to", "non_blocking", True)]
    alone = answer_in(sys.executable, tmp_path, "trl", "0.27.0", "alone", pairs, tmp_path)
    assert isinstance(alone, list), alone
    assert [o.answers for o in alone] == [False, True, False, sys.version_info >= (3, 11)]
    assert "transformers 5.24.0" in (alone[0].environment or "") and alone[2].environment
    assert alone[1].real is True
    if sys.version_info >= (3, 11):  # typing.get_overloads: the names torch's Module.to declares in its overloads
        assert alone[3].real is True and "@overload" in alone[3].note
    # the era's overlay answers; so does the era venv (no overlay target, a label that says its Python and date:
    # the child's result is the overlay's here, as building the venv would need the index)
    overlay = answer_in(sys.executable, tmp_path, "trl", "0.27.0", "era", pairs, tmp_path)
    assert isinstance(overlay, list) and [o.real for o in overlay[:3]] == [True, True, False]
    result = run_child(sys.executable, tmp_path, "trl", pairs, tmp_path)
    monkeypatch.setattr(agreement, "run_child", lambda *_args: result)
    era = answer_in(sys.executable, None, "trl", "0.27.0", "era venv: Python 3.11, 2026-01-17, torch 2.9.1", pairs,
                    tmp_path)
    assert isinstance(era, list) and [o.real for o in era[:3]] == [True, True, False]

"""The shipped API history and `kb diagnose`'s drift answers on real error lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kb.apidrift.history import load_history
from kb.apidrift.releases import FIRST_MINOR, LIBRARIES, version_key
from kb.diagnose.drift import drift_section

REPO = Path(__file__).resolve().parent.parent


def test_history_covers_every_library_from_its_first_minor():
    h = load_history()
    assert h.libraries() == sorted(LIBRARIES)
    for lib in LIBRARIES:
        versions = h.versions(lib)
        keys = [version_key(v) for v in versions]  # 0.41.3 < 0.41.3.post1 < 0.41.3.post2
        assert keys == sorted(keys) and len(set(keys)) == len(keys)
        assert keys[0][:2] == FIRST_MINOR[lib]
        # every patch release (issue #25); the latest patch of each minor is read in full, not probed
        latest = {k[:2]: v for k, v in zip(keys, versions)}
        assert not set(latest.values()) & set(h.probed(lib)), lib
    assert h.built("transformers", h.versions("transformers")[0]) < "2024-07-01"


def test_history_facts_read_from_the_wheels():
    h = load_history()
    _present, accepted = h.param_versions("trl", "trl.SFTTrainer", "max_seq_length")
    assert accepted[0] == "0.4.2" and accepted[-1] == "0.12.2"  # SFTTrainer came in trl 0.4.2
    assert "max_seq_length" in h.params("trl", "trl.SFTConfig", "0.12.2")
    assert "max_length" in h.params("trl", "trl.SFTConfig", "1.16.0")
    assert "output_dir" in h.params("trl", "trl.SFTConfig", "1.16.0")  # inherited from transformers.TrainingArguments
    assert "processing_class" not in h.params("transformers", "transformers.Trainer", "4.45.2")
    assert "processing_class" in h.params("transformers", "transformers.Trainer", "4.46.3")
    assert "prepare_model_for_kbit_training" in h.exports("peft", "peft", "0.11.1")
    assert "LlamaForCausalLM" in h.exports("transformers", "transformers", "5.23.0")  # define_import_structure
    assert "qwen3" not in h.model_types("4.50.3") and "qwen3" in h.model_types("4.51.3")
    renamed = {(r["owner"], r["old"]): r for r in h.renames("transformers")}
    assert renamed[("transformers.TrainingArguments", "evaluation_strategy")]["new"] == "eval_strategy"
    assert h.module_versions("transformers", "transformers.deepspeed")[-1] == "4.45.2"


@pytest.mark.parametrize(("error_type", "message", "facts", "expect"), [
    ("TypeError", "SFTTrainer.__init__() got an unexpected keyword argument 'max_seq_length'", {"trl_version": "0.19.1"},
     {"library": "trl", "accepted": "0.4.2–0.12.2", "removed_in": "0.13.0", "installed": "0.19.1",
      "moved_to": "trl.SFTConfig.max_seq_length"}),
    ("TypeError", "Trainer.__init__() got an unexpected keyword argument 'processing_class'", {"transformers_version": "4.44.2"},
     # 4.46.0 (yanked on PyPI, covered: a user may have installed it) added it
     {"library": "transformers", "added_in": "4.46.0", "removed_in": None}),
    ("TypeError", "TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'", {},
     {"renamed_to": "eval_strategy", "removed_in": "4.51.0"}),
    ("ModuleNotFoundError", "No module named 'transformers.deepspeed'", {},
     # 4.46.0, yanked on PyPI, is covered: the history's first release without it is 4.46.0, as the verified
     # entry (drift/transformers-deepspeed-module) that ran 4.46.0 itself says
     {"moved_to": "transformers.integrations.deepspeed", "removed_in": "4.46.0"}),
    ("ValueError", "The checkpoint you are trying to load has model type `qwen3` but Transformers does not recognize "
     "this architecture.", {"transformers_version": "4.46.3"}, {"added_in": "4.51.0"}),
    ("ValueError", "`rope_scaling` must be a dictionary with two fields, `type` and `factor`, got {'factor': 8.0, "
     "'rope_type': 'llama3'}", {}, {"added_in": "4.43.0"}),
])
def test_drift_answers(error_type, message, facts, expect):
    section = drift_section(error_type, message, facts)
    assert section is not None
    for key, value in expect.items():
        assert section[key] == value, (key, section)
    assert section["fixes"]


def test_upgrade_advice_when_the_code_is_newer():
    section = drift_section("TypeError", "Trainer.__init__() got an unexpected keyword argument 'processing_class'",
                            {"transformers_version": "4.44.2"})
    assert section["fixes"][0].startswith("upgrade: pip install -U 'transformers>=4.46'")


def test_unknown_names_are_said_to_be_unknown():
    section = drift_section("ImportError", "cannot import name 'FastLanguageModel' from 'transformers'", {})
    assert section["accepted"] == "none"
    assert any("no covered transformers release" in f for f in section["facts"])


def test_lookup_time():
    load_history()
    timings = []
    for _ in range(5):
        start = time.perf_counter()
        drift_section("TypeError", "DPOTrainer.__init__() got an unexpected keyword argument 'beta'", {})
        drift_section("ImportError", "cannot import name 'DataCollatorForCompletionOnlyLM' from 'trl'", {})
        timings.append((time.perf_counter() - start) / 2)
    assert sorted(timings)[2] < 0.05


def _diagnose(text: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    log = tmp_path / "error.log"
    log.write_text(text)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "kb", "diagnose", str(log), *args], capture_output=True,
                          text=True, env=env, cwd=REPO, timeout=120)


LOG = """$ pip list | grep trl
trl                      0.19.1
Traceback (most recent call last):
  File "/home/me/train.py", line 40, in <module>
    trainer = SFTTrainer(model=model, train_dataset=ds, max_seq_length=1024)
TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'max_seq_length'
"""


def test_kb_diagnose_json_and_text(tmp_path):
    out = _diagnose(LOG, tmp_path, "--format", "json")
    doc = json.loads(out.stdout)
    top = doc["matches"][0]
    assert top["family"] == "api-drift"
    assert top["drift"]["installed"] == "0.19.1" and top["drift"]["installed_from"] == "the log"
    assert doc["environment"]["trl_version"] == "0.19.1"
    text = _diagnose(LOG, tmp_path).stdout
    assert "API history (trl 0.1.0–" in text and "pip install 'trl>=0.4.2,<0.13'" in text  # SFTTrainer came in 0.4.2 (0.4.0 and 0.4.1 lack it: the pin is exact)


@pytest.mark.parametrize(("line", "loaded"), [
    ("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB", False),
    ("TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'packing'", True),
])
def test_history_is_loaded_only_for_drift_errors(line, loaded, tmp_path):
    """On a warm cache only a drift error reads the history. A cold cache reads it once, to cache the facts of the
    keywords that fix texts spell per release (advice.KeywordFacts), so the first run is the warm-up, in a cache
    of the test's own: the figure does not depend on what ran before."""
    code = ("import sys; from kb.diagnose.diagnosis import diagnose_lines; "
            "from kb.diagnose.document import diagnosis_document; from kb.knowledge.registry import load_knowledge; "
            f"diagnosis_document(diagnose_lines([{line + chr(10)!r}], load_knowledge())); "
            "print('kb.apidrift.history' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env,
                           timeout=120) for _ in range(2)]
    assert runs[0].stdout.strip() in ("True", "False"), runs[0].stderr
    assert runs[1].stdout.strip() == str(loaded), runs[1].stderr

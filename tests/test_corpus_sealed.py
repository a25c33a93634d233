"""Sealed batches (corpus/sealed/): real reports nothing trains on, scored with `scripts/corpus.py --dir`.

They measure generalisation honestly only while no tuning reads them: the corpus glob (frequency table,
learned fallback, tests) must not reach them, and `validate` / `score` must work on them with `--dir`.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
SEALED = REPO / "corpus" / "sealed"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def corpus() -> ModuleType:
    """scripts/corpus.py as a module (it is a script, not a package)."""
    return _load("kb_corpus_script_sealed", REPO / "scripts" / "corpus.py")


def _ids(corpus: ModuleType, paths: list[Path]) -> set[str]:
    return {r["id"] for p in paths for r in corpus.read(p)}


def test_the_corpus_glob_does_not_reach_the_sealed_batches(corpus: ModuleType) -> None:
    sealed = corpus.batch_files(SEALED)
    assert sealed, "corpus/sealed/ holds no batch"
    assert not [p for p in corpus.batch_files() if SEALED in p.parents]
    sealed_ids = _ids(corpus, sealed)
    assert not sealed_ids & _ids(corpus, corpus.batch_files())
    assert all("first_score" in r for p in sealed for r in corpus.read(p)), "a sealed report has no first score"
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        trainer = _load("kb_fallback_train_sealed", REPO / "scripts" / "fallback_train.py")
        trained_on = {r["id"] for r in trainer.corpus_records()}
    finally:
        sys.path.remove(str(REPO / "scripts"))
    assert trained_on and not trained_on & sealed_ids


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "scripts/corpus.py", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300)


def test_validate_and_score_take_a_folder(corpus: ModuleType, tmp_path: Path) -> None:
    record = json.loads((corpus.batch_files(SEALED)[0]).read_text(encoding="utf-8").splitlines()[0])
    record.pop("first_score")
    record.update(id="gh:example/sealed-test#1", batch="t")
    batch = tmp_path / "reports-t.jsonl"
    corpus.write(batch, [record])

    proc = _run("validate", "--dir", str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 reports in 1 batches" in proc.stdout and "0 problem(s)" in proc.stdout

    proc = _run("score", "--dir", str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "first_score" not in corpus.read(batch)[0], "score without --first wrote a first score"

    proc = _run("score", "--first", "--dir", str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    first = corpus.read(batch)[0]["first_score"]
    assert first["grade"] in ("right", "wrong", "silent")

    kept = {**first, "grade": "wrong" if first["grade"] != "wrong" else "right"}
    corpus.write(batch, [{**record, "first_score": kept}])
    _run("score", "--first", "--dir", str(tmp_path))
    assert corpus.read(batch)[0]["first_score"] == kept, "score --first overwrote a first score"

    taken = corpus.read(corpus.batch_files()[0])[0]["id"]
    corpus.write(batch, [{**record, "id": taken}])
    proc = _run("validate", "--dir", str(tmp_path))
    assert proc.returncode == 1 and f"{taken} also in" in proc.stdout, proc.stdout

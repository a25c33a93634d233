"""Turn 48: drift48's reading of a model member its base class dropped asked the history's name index for the classes
that still hold the member and read "no index" (a cold cache: the packed copy not yet written) as "no class": the
first run on a machine answered without the replacement (moved_to null, no GenerationMixin fact), every later run with
it. The same input must give the same document with a cold cache and a warm one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DREAM = REPO / "tests" / "fixtures" / "diagnose" / "dev" / "drift-67-Dream-64.txt"


def _document(cache: Path) -> dict:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    out = subprocess.run([sys.executable, "-m", "kb", "diagnose", str(DREAM), "--format", "json"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=120, check=True).stdout
    return json.loads(out)


def test_a_base_class_member_drop_reads_the_same_with_a_cold_and_a_warm_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    cold = _document(cache)  # the first run: no packed history yet (it writes one)
    warm = _document(cache)  # the packed copy and its name index
    assert cold == warm
    drift = cold["matches"][0]["drift"]
    assert drift["removed_in"] == "4.52.0"
    assert drift["moved_to"] == "transformers.GenerationMixin.prepare_inputs_for_generation"

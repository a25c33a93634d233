"""The dev set of real error outputs (tests/fixtures/diagnose/manifest.toml) as regression fixtures.

Accuracy over every case is measured by benchmarks/diagnose_devset.py, not asserted here: other
cases are still being written. This file asserts what must hold whatever cases exist: every
fixture is diagnosed without raising, has its source recorded, and the entries for the cases this
file's author owns (KB0001, KB0002) rank first, while near-misses never match them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.knowledge.examples import devset_manifest, load_examples, pending_sets
from kb.knowledge.registry import load_knowledge

MANIFEST = Path(__file__).parent / "fixtures" / "diagnose" / "manifest.toml"
assert MANIFEST == devset_manifest()
ENTRIES = load_examples(MANIFEST)
OWNED = {"dtype-double-vs-float", "no-grad-memory-leak"}
# A set whose first score is pending (a sealed batch until the integrator scores it) is not diagnosed here: a
# failure's message would tell how kb answers it before its first score.
PENDING = pending_sets(MANIFEST)
DIAGNOSED = [e for e in ENTRIES if e.get("set") not in PENDING]


def _diagnose(entry: dict) -> dict:
    path = MANIFEST.parent / entry["file"]
    with open(path, encoding="utf-8") as handle:
        return diagnosis_document(diagnose_lines(handle, load_knowledge()))


def test_manifest_lists_every_fixture_once_with_a_source() -> None:
    files = [e["file"] for e in ENTRIES]
    on_disk = sorted(f"dev/{p.name}" for p in (MANIFEST.parent / "dev").glob("*.txt"))
    assert sorted(files) == on_disk and len(set(files)) == len(files)
    assert all(e["source"].startswith("https://") for e in ENTRIES)
    assert sum(e["expect"] == "none" for e in ENTRIES) >= 30  # near-misses and unrelated errors


@pytest.mark.parametrize("entry", DIAGNOSED, ids=[e["file"][4:-4] for e in DIAGNOSED])
def test_dev_fixture(entry: dict) -> None:
    doc = _diagnose(entry)
    slugs = [m["slug"] for m in doc["matches"]]
    if entry["expect"] in OWNED and entry.get("set") != "heldout-3" and entry.get("error_text", True):
        # Batch 3 is measured (benchmarks/diagnose_devset.py), not asserted: tuning kb until this
        # test passed on it would spoil the only batch no change has been fitted to.
        assert slugs and slugs[0] == entry["expect"], slugs
    elif entry["expect"] == "none":
        assert not OWNED & set(slugs), slugs
    if entry["expect"] != "none" and entry.get("error_text", True):  # the parser must find the error text
        assert doc["root_error"] is not None and doc["errors_seen"] >= 1

"""`mkdocs build --strict` of the real site and of a site with every case status (no browser needed).

The real and the synthetic site are built once per run (tests/conftest.py) and shared with the
browser tests; the broken and the staged site are built here.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from browser.synthetic_cases import write_cases
from kb.knowledge.registry import all_cases

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
    reason="needs mkdocs and mkdocs-material (pip install -e '.[docs]')",
)


def _build(dest: Path, cases_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    if cases_dir is not None:
        env["KB_CASES_DIR"] = str(cases_dir)
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(dest)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


def test_real_site_builds_strict_with_a_page_per_case(real_site_dir: Path) -> None:
    site = real_site_dir  # built with --strict by the fixture, which fails the test with mkdocs' output
    for case in all_cases():
        html = (site / "cases" / case.folder_name / "index.html").read_text(encoding="utf-8")
        assert f"<title>{case.id}: " in html
    for page in ("errors", "libraries", "hardware", "cases"):
        assert (site / page / "index.html").is_file()
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "<!-- kb:" not in home  # every marker was filled
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    separator = re.compile(index["config"]["separator"])
    # the separator mkdocs-material tokenises with (same regex syntax in Python for this pattern)
    tokens = [t for t in separator.split("torch.cuda.OutOfMemoryError: on device='cuda:0' 2.90 GiB processing_class") if t]
    assert tokens == ["torch", "cuda", "Out", "Of", "Memory", "Error", "on", "device", "cuda", "0", "2.90", "GiB",
                      "processing_class"]


def test_every_status_builds_strict(synthetic_site: tuple[Path, Path]) -> None:
    cases, site = synthetic_site  # built with --strict by the fixture, which fails the test with mkdocs' output
    built = sorted(p.parent.name for p in (site / "cases").glob("KB*/index.html"))
    assert built == sorted(p.name for p in cases.iterdir())
    retired = (site / "cases" / "KB9004-retired-case" / "index.html").read_text(encoding="utf-8")
    assert "Retired" in retired and "No recorded run yet" in retired


def test_a_broken_link_in_case_prose_fails_the_strict_build(tmp_path: Path) -> None:
    cases = write_cases(tmp_path / "cases")
    case_md = cases / "KB9002-decoy-case" / "case.md"
    case_md.write_text(case_md.read_text(encoding="utf-8").replace(
        "Because of the mechanism.", "Because of [the mechanism](no-such-page.md)."), encoding="utf-8")
    proc = _build(tmp_path / "site", cases)
    assert proc.returncode != 0
    assert "no-such-page.md" in proc.stdout + proc.stderr


def test_staged_tree_builds_without_the_hook(tmp_path: Path) -> None:
    """`python -m kb.site.build stage OUT` (for Zensical, which runs no hooks) is a complete site."""
    cases = write_cases(tmp_path / "cases")
    env = dict(os.environ, KB_CASES_DIR=str(cases), NO_MKDOCS_2_WARNING="1")
    staged = subprocess.run([sys.executable, "-m", "kb.site.build", "stage", str(tmp_path / "stage")],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert staged.returncode == 0, staged.stderr
    config = Path(staged.stdout.strip())
    text = config.read_text(encoding="utf-8")
    assert "hooks" not in text and "KB9003-fixed-upstream-case.md" in text
    home = (tmp_path / "stage" / "docs" / "index.md").read_text(encoding="utf-8")
    assert "<!-- kb:" not in home and "(incidents/example.md)" in home
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "stage" / "site" / "cases" / "KB9005-unreproduced-case" / "index.html").is_file()

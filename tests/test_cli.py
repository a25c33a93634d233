"""The CLI contract other tools depend on: commands, JSON keys, exit codes, no tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "dtype-double-vs-float.txt"


def kb(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "kb", *args], input=stdin, capture_output=True, cwd=REPO, timeout=60
    )
    out = subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())
    assert "Traceback (most recent call last)" not in out.stderr, out.stderr
    return out


def test_list_json_schema() -> None:
    proc = kb("list", "--format", "json")
    assert proc.returncode == 0
    cases = json.loads(proc.stdout)["cases"]
    assert {"id", "slug", "title", "hardware"} <= set(cases[0])
    assert "dtype-double-vs-float" in {c["slug"] for c in cases}


def test_show_json_schema() -> None:
    proc = kb("show", "KB0001", "--format", "json")
    assert proc.returncode == 0
    doc = json.loads(proc.stdout)
    assert {"id", "slug", "title", "hardware", "path", "observed"} <= set(doc)
    assert Path(doc["path"]).is_dir()
    for run in doc["observed"]:
        assert {"gpu", "versions", "outcome", "date"} <= set(run)
        assert isinstance(run["versions"], dict)


def test_show_text_has_diff_and_explain_has_prose() -> None:
    shown = kb("show", "dtype-double-vs-float")
    assert shown.returncode == 0 and "+label = torch.from_numpy(scores).to(device, dtype=torch.float32)" in shown.stdout
    explained = kb("explain", "KB0002")
    assert explained.returncode == 0 and "Why it happens" in explained.stdout


def test_unknown_case_is_a_usage_error() -> None:
    proc = kb("show", "KB9999")
    assert proc.returncode == 2 and "no case" in proc.stderr


def test_diagnose_example_matches_without_importing_torch() -> None:
    code = (
        "import sys, runpy; sys.argv = ['kb', 'diagnose', %r, '--format', 'json'];\n"
        "from kb.cli import main; rc = main(); assert 'torch' not in sys.modules, 'torch imported'; raise SystemExit(rc)"
    ) % str(EXAMPLE)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 0, proc.stderr
    matches = json.loads(proc.stdout)["matches"]
    assert matches[0]["slug"] == "dtype-double-vs-float"
    assert {"id", "slug", "title", "score"} <= set(matches[0])
    assert matches[0]["captures"] == {"dtype_a": "double", "dtype_b": "float"}


def test_diagnose_stdin_and_exit_codes() -> None:
    assert kb("diagnose", "-", stdin=EXAMPLE.read_bytes()).returncode == 0
    assert kb("diagnose", "-", stdin=b"ValueError: something unrelated happened\n").returncode == 1
    assert kb("diagnose", "-", stdin=b"").returncode == 2
    assert kb("diagnose", "/nonexistent/file.txt").returncode == 2
    assert kb("diagnose", "-", stdin=bytes(range(256)) * 100).returncode == 2


@pytest.mark.parametrize("command", ["list", "show", "explain", "diagnose", "reproduce"])
def test_every_command_has_help(command: str) -> None:
    proc = kb(command, "--help")
    assert proc.returncode == 0 and "usage:" in proc.stdout


def test_no_command_prints_help_and_exits_2() -> None:
    proc = kb()
    assert proc.returncode == 2 and "usage:" in proc.stdout


def test_reproduce_unknown_variant_is_usage_error() -> None:
    proc = kb("reproduce", "KB0001", "--variant", "nope")
    assert proc.returncode == 2 and "has no reproduction" in proc.stderr


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["-"],
        ["log.txt"],
        ["log.txt", "--format", "json"],
        ["--format=json", "log.txt"],
        ["--limit", "2", "-", "--env"],
        ["--limit=0"],
        # handed to argparse: help, abbreviations, bad values, two files, unknown options
        ["--help"],
        ["--form", "json"],
        ["--format", "yaml"],
        ["--limit", "two"],
        ["--limit"],
        ["a.txt", "b.txt"],
        ["--bogus"],
        ["--", "-odd-name.txt"],
    ],
)
def test_diagnose_fast_argument_reader_agrees_with_argparse(args: list[str]) -> None:
    """kb/cli/diagnose.py reads diagnose's options without argparse (start-up); it must never read
    them differently: either it returns what argparse would, or it hands the arguments over."""
    import argparse

    from kb.cli.commands import build_parser
    from kb.cli.diagnose import parse_diagnose_args

    fast = parse_diagnose_args(args)
    try:
        ns: argparse.Namespace | None = build_parser().parse_args(["diagnose", *args])
    except SystemExit:
        ns = None
    if fast is None:
        return  # argparse decides (help, or a usage error with its message)
    assert ns is not None, f"the fast reader accepted {args} but argparse rejects them"
    assert (fast.file, fast.format, fast.limit, fast.env) == (ns.file, ns.format, ns.limit, ns.env)


def test_diagnose_does_not_import_argparse() -> None:
    code = (
        "import sys; sys.argv = ['kb', 'diagnose', %r];\n"
        "from kb.cli import main; rc = main()\n"
        "heavy = sorted(m for m in ('argparse', 'json', 'textwrap', 'torch', 'kb.cli.commands', 'kb.knowledge.load') if m in sys.modules)\n"
        "assert not heavy, heavy; raise SystemExit(rc)"
    ) % str(EXAMPLE)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_no_knowledge_root_says_so_on_one_line_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Without its knowledge kb never answers "no known case": every command says why, on one line, exit 2."""
    from kb.cli import main

    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KB_KNOWLEDGE_DIR", str(tmp_path))  # holds no cases/ and families/
    log = tmp_path / "oom.txt"
    log.write_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")
    for argv in (["list"], ["diagnose", str(log)], ["show", "cuda-oom"], ["list", "--families"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "KB_KNOWLEDGE_DIR" in err, (argv, err)
    monkeypatch.delenv("KB_KNOWLEDGE_DIR")
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("KB_CASES_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("KB_FAMILIES_DIR", str(tmp_path / "empty"))
    assert main(["diagnose", str(log)]) == 2  # an empty knowledge base is no knowledge base
    assert "nothing to answer from" in capsys.readouterr().err
    monkeypatch.setenv("KB_CASES_DIR", str(tmp_path / "missing"))
    assert main(["list"]) == 2
    assert "is not a folder" in capsys.readouterr().err


@pytest.mark.parametrize("args", [
    ("diagnose", "x.txt", "--width", "0"),
    ("diagnose", "--limit", "abc"),
    ("list", "--format", "xml"),
    ("show",),
    ("env", "--nproc", "0"),
    ("nosuch",),
])
def test_a_usage_error_is_one_line_naming_the_command(args: tuple[str, ...]) -> None:
    proc = kb(*args)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    name = args[0] if args[0] != "nosuch" else None
    assert lines[0].startswith(f"kb {name}: " if name else "kb: ") and lines[0].endswith("--help)")
    assert "usage:" not in proc.stderr and "Traceback" not in proc.stderr

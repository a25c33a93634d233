"""Fixed patterns that most runs never use are built at their first use (kb/knowledge/precompiled.py Deferred; issue 26,
start-up, turn 45): each reads as the regex its source compiles to, and importing the module that names it, or a run
that does not need it, builds none."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kb.diagnose import flatten, match, parser, versions
from kb.knowledge import precompiled
from kb.knowledge.precompiled import Deferred

REPO = Path(__file__).resolve().parent.parent
SAMPLES = (
    "", "plain words", "ERROR Traceback (most recent call last):", 'File "/x/train.py", line 12, in main',
    "12  return x'", "10.00 GiB", " 4 ", "transformers==4.44.2 peft==0.12.0", "!pip install -U trl==0.12.2",
    "Successfully installed trl-0.12.2 peft-0.13.0", "it works with transformers 4.38.2, but I use 4.36",
    "Name: trl", "Version: 0.12.2", "a &quot;quoted&quot; word<br/>next", "call last):\\n  File \"x\", line 1",
    "KeyError: 'type'", "ERROR | 2024-07-23 20:45:55 | autotrain.trainers.common:wrapper:121 - 'type'",
)


def _subprocess(code: str, tmp_path: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env.update({"PYTHONPATH": str(REPO), "KB_CACHE_DIR": str(tmp_path / "cache")})
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _read(found: re.Match[str] | None) -> tuple[object, ...] | None:
    return None if found is None else (found.span(), found.groups())


def test_every_deferred_pattern_reads_as_its_regex() -> None:
    versions._patterns(("peft", "transformers", "trl"))
    made = list(precompiled.DEFERRED)
    assert len(made) >= 16 + 3 + 10  # flatten's, the parser's and match's, the versions scanner's
    for deferred in made:
        expected = re.compile(deferred._source, deferred._flags)
        assert deferred.pattern == expected.pattern and deferred.flags == expected.flags
        assert deferred.groups == expected.groups and deferred.groupindex == expected.groupindex
        for text in SAMPLES:
            for method in ("search", "match", "fullmatch"):
                assert _read(getattr(deferred, method)(text)) == _read(getattr(expected, method)(text)), (deferred, text)
            assert deferred.findall(text) == expected.findall(text) and deferred.split(text) == expected.split(text)
            assert [m.span() for m in deferred.finditer(text)] == [m.span() for m in expected.finditer(text)]
            assert deferred.sub("#", text) == expected.sub("#", text)
            assert deferred.subn("#", text) == expected.subn("#", text)
        assert deferred.built
        assert deferred.search.__self__ == expected  # the pattern's own method: no forwarding call after the first use


def test_a_deferred_pattern_is_built_once_at_its_first_use() -> None:
    deferred = Deferred(r"turn45-(\d+)", 2)
    assert not deferred.built
    assert deferred.match("TURN45-7").group(1) == "7"
    assert deferred.built
    first = deferred.search
    assert deferred.search is first and deferred.search.__self__ is precompiled.pattern(r"turn45-(\d+)", 2)
    with pytest.raises(AttributeError):
        deferred.no_such_attribute  # noqa: B018


def test_importing_flatten_builds_none_of_its_patterns(tmp_path: Path) -> None:
    out = _subprocess("from kb.knowledge import precompiled\n"
                      "before = len(precompiled._memo)\n"
                      "import kb.diagnose.flatten\n"
                      "print(len(precompiled._memo) - before)", tmp_path)
    assert out.split() == ["0"]
    assert not any(isinstance(v, re.Pattern) for v in vars(flatten).values())


def test_a_version_line_builds_the_line_forms_only() -> None:
    """A line the first forms read (``Transformers version: 4.36.2``) builds those six, not the pins', pip's or the
    prose reading's patterns (libraries of their own: the memoised tuple is this test's)."""
    libs = ("turn45lib",)
    before = len(precompiled._memo)
    scanner = versions.VersionScanner(libs)
    scanner.read_lines(["turn45lib version: 1.2.3"])
    assert scanner.facts == {"turn45lib_version": "1.2.3"}
    assert len(precompiled._memo) - before == 6
    forms, *rest = versions._patterns(libs)
    assert not any(p.built for p in rest)
    scanner.read_lines(["turn45lib==4.5.6"])  # a pin: the pins' patterns are built now, and read it
    assert scanner.facts == {"turn45lib_version": "1.2.3"}  # (a pin states less than an env report)
    assert rest[2].built


def test_a_one_line_error_leaves_the_idle_parser_and_match_patterns_unbuilt(tmp_path: Path) -> None:
    source = tmp_path / "input.txt"
    source.write_text("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n")
    out = _subprocess("import io, contextlib\n"
                      "from kb.cli import main\n"
                      "with contextlib.redirect_stdout(io.StringIO()):\n"
                      f"    main(['diagnose', {str(source)!r}])\n"
                      "from kb.diagnose import match, parser\n"
                      "print(match._SIZE.built, parser._CLAUSE_START.built, parser._SOURCE_LEAD.built)", tmp_path)
    assert out.split() == ["False", "False", "False"]
    assert match.size_value(" 10.00 GiB ") == 10 * 2**30  # (and each reads as before once used)
    assert parser._SOURCE_LEAD.search('72         f"')

"""The shortcuts of issue 26's speed work must not change an answer (kb/knowledge/precompiled.py,
kb/knowledge/indexed.py, the continuation fast path, the redaction rule selection, textclean's prefix cuts).

- Regexes rebuilt from the per-machine cache are the patterns ``re.compile`` gives (pattern objects compare
  their flags, code and source), for every signature regex of the knowledge and every pattern kb's diagnose
  modules compiled; a corrupt entry is compiled afresh; `kb diagnose` on a one-line input imports no ``re``.
- The dev set diagnosed from the index (lazily decoded entries, signatures built only for entries whose
  literal a message holds) gives the documents the full loader gives; the index's dicts equal the loader's.
- The dev set with the continuation fast path off gives the same documents (as tests/test_prefilter.py does
  for the prefilter), and so do generated logs of warnings followed by every kind of line; so with the run memo and
  the message memo off. (These change only the reading: the document is built where the read state differs, and for
  a share of the fixtures: tests/devset_documents.py ``differing``. The index changes the knowledge: every document.)
- The rules redaction selects by keyword include every rule whose ``applies`` holds.
- clean_line equals the version that called each prefix pattern's ``sub``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from array import array
from pathlib import Path

import pytest
from devset_documents import FIXTURES, differing, document as _document
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kb.diagnose import stream
from kb.knowledge import precompiled
from kb.knowledge.registry import load_knowledge

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def full() -> object:
    return load_knowledge()


@pytest.fixture(scope="module")
def originals(devset_originals: dict[Path, str]) -> dict[Path, str]:
    # the documents of load_knowledge(), as `full` is; computed once per run, shared with tests/test_prefilter.py
    return dict(devset_originals)


@pytest.fixture()
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    from kb.knowledge.index import load_index

    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    load_index()  # build and write the cache
    return load_index()  # read it back: the lazily decoded entries


# -- the regex cache ------------------------------------------------------------------------------------

def _all_sources(knowledge: object) -> list[str]:
    sources = []
    for entry in (*knowledge.cases, *knowledge.families):  # type: ignore[attr-defined]
        for sig in entry.signatures:
            raw = sig.raw
            sources.append(raw["message"])
            for key in ("frames", "hints", "excludes"):
                sources.extend(raw[key] or [])
            sources.extend((raw["environment"] or {}).values())
    return sources


def _fresh(monkeypatch: pytest.MonkeyPatch, cache: Path | None = None) -> None:
    """This process's regex cache state as a new process finds it (``cache``: KB_CACHE_DIR)."""
    if cache is not None:
        monkeypatch.setenv("KB_CACHE_DIR", str(cache))
    precompiled._close()
    monkeypatch.setattr(precompiled, "_memo", {})
    monkeypatch.setattr(precompiled, "_store", [])
    monkeypatch.setattr(precompiled, "_new", {})


def test_rebuilt_patterns_equal_re_compile(full: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kb.diagnose.environment  # noqa: F401 - the diagnose modules' own patterns, compiled at import
    import kb.diagnose.match  # noqa: F401
    import kb.diagnose.parser  # noqa: F401
    from kb.diagnose import patterns  # (the parser's shapes, built on first use)

    ours = [(source, flags) for source, flags in precompiled._memo]
    ours += [(source, 0) for source in patterns.SHAPES.values()] + [(source, 0) for _, source in patterns.IMPLIED_MESSAGES]
    sources = list(dict.fromkeys([(s, 0) for s in _all_sources(full)] + ours))
    assert len(sources) > 300 and len(ours) > 20
    _fresh(monkeypatch, tmp_path)
    for source, flags in sources:
        precompiled.pattern(source, flags)
    assert len(precompiled._new) == len(sources)
    precompiled.save()
    _fresh(monkeypatch)  # a fresh process's view: every pattern read from the file and rebuilt by _sre
    for source, flags in sources:
        fields = precompiled._lookup(source if not flags else f"\x00{flags}\x00{source}")
        assert fields is not None, source
        pattern, expected = precompiled._rebuild(source, fields), re.compile(source, flags)
        assert pattern is not None and pattern == expected, source
        assert pattern.groupindex == expected.groupindex and pattern.groups == expected.groups
        assert precompiled.pattern(source, flags) == expected
    assert not precompiled._new  # nothing compiled afresh
    precompiled._close()


def test_flags_are_part_of_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh(monkeypatch, tmp_path)
    plain, folded = precompiled.pattern("abc"), precompiled.pattern("abc", re.IGNORECASE)
    precompiled.save()
    _fresh(monkeypatch)
    assert precompiled.pattern("abc") == plain and precompiled.pattern("abc", 2) == folded
    assert precompiled.pattern("abc", 2).match("ABC") and not precompiled.pattern("abc").match("ABC")
    assert not precompiled._new
    precompiled._close()


def test_a_damaged_cache_is_compiled_afresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import marshal

    source = r"(?P<x>\d+) apples"
    _fresh(monkeypatch, tmp_path)
    precompiled.pattern(source)
    precompiled.save()
    (path,) = tmp_path.glob("regex-*.bin")
    good = path.read_bytes()
    # the damaged files: a flipped byte in the entry (its CRC fails), a bad header, engine code that does not validate
    payload = marshal.dumps((source, 32, b"\xff\xff\xff\x7f" * 4, 1, {"x": 1}, (None, "x")), 2)
    invalid = precompiled._crc(payload).to_bytes(4, "little") + payload
    damaged = [good[:-3] + bytes([good[-3] ^ 0x20]) + good[-2:], b"XXXX" + good[4:]]
    path.unlink()
    _fresh(monkeypatch)
    precompiled._new[source] = invalid
    precompiled.save()
    damaged.append(path.read_bytes())
    assert damaged[-1] != good
    for data in damaged:
        path.write_bytes(data)
        _fresh(monkeypatch)
        assert precompiled._lookup(source) is None or precompiled._rebuild(source, precompiled._lookup(source)) is None
        pattern = precompiled.pattern(source)
        assert pattern == re.compile(source) and pattern.search("12 apples")["x"] == "12"
        assert source in precompiled._new  # compiled afresh, to be cached again
        precompiled._close()


def test_escape_is_re_escape() -> None:
    text = "".join(chr(c) for c in range(128)) + "é∑ The above exception: (x) [y] {z}"
    assert precompiled.escape(text) == re.escape(text)


def test_diagnose_on_one_line_imports_no_re(tmp_path: Path) -> None:
    """The point of the cache: once warm, `kb diagnose` neither imports re nor compiles anything."""
    small = tmp_path / "one.txt"
    small.write_text("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n")
    env = {**os.environ, "KB_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)}
    code = ("import sys; from kb.cli import main; main(['diagnose', sys.argv[1]]); "
            "print('re' in sys.modules, 'enum' in sys.modules, file=sys.stderr)")
    runs = [subprocess.run([sys.executable, "-c", code, str(small)], env=env, cwd=REPO, capture_output=True, text=True)
            for _ in range(2)]
    assert "KB0001" in runs[1].stdout
    assert runs[0].stderr.split() == ["True", "True"]  # the cold run compiles (and caches)
    assert runs[1].stderr.split() == ["False", "False"]


# -- the lazily decoded index ---------------------------------------------------------------------------

def test_the_index_entries_equal_the_loaders(full: object, index: object) -> None:
    for mine, theirs in ((index.cases, full.cases), (index.families, full.families)):  # type: ignore[attr-defined]
        assert [e.file for e in mine] == [e.file for e in theirs]
        for a, b in zip(mine, theirs):
            assert dict(a.meta) == b.meta and a.meta == b.meta
            assert json.dumps(a.meta, sort_keys=True) == json.dumps(b.meta, sort_keys=True)
            assert [(s.name, s.literal, s.raw) for s in a.signatures] == [(s.name, s.literal, s.raw) for s in b.signatures]
            assert a.literals == tuple(s.literal for s in b.signatures)
    assert index.literals() == full.literals() and index.literals(4) == full.literals(4)  # type: ignore[attr-defined]
    assert index.leading_literals() == full.leading_literals()  # type: ignore[attr-defined]


def test_lazy_meta_reads_like_a_dict() -> None:
    import marshal

    from kb.knowledge.indexed import IndexedCase, LazyMeta

    signature = {"name": "s", "exception": ["ValueError"], "requires_frame": False, "requires_type": False,
                 "compare": [], "specific": False, "message": "boom"}

    def fresh() -> IndexedCase:
        meta = LazyMeta({"id": "KB9999"}, marshal.dumps([signature], 2), marshal.dumps({"title": "T"}, 2))
        return IndexedCase(meta, "/nowhere/case.md", ["boom"])

    case = fresh()
    assert case.meta.get("title") == "T" and case.title == "T" and case.id == "KB9999"
    assert case.meta.get("missing", 1) == 1 and "missing" not in case.meta
    with pytest.raises(KeyError):
        case.meta["missing"]
    case = fresh()
    assert sorted(case.meta) == ["id", "signatures", "title"] and len(case.meta) == 3
    assert fresh().meta == {"id": "KB9999", "signatures": [signature], "title": "T"}
    assert dict(fresh().meta) == {"id": "KB9999", "signatures": [signature], "title": "T"}
    assert json.loads(json.dumps(fresh().meta)) == {"id": "KB9999", "signatures": [signature], "title": "T"}
    case = fresh()
    assert case.literals == ("boom",) and [s.name for s in case.signatures] == ["s"]
    assert case.signatures[0].literal == "boom" and case.signatures is case.signatures


def test_the_dev_set_answers_the_same_from_the_index(originals: dict[Path, str], index: object) -> None:
    differ = [path.name for path in FIXTURES if _document(path.read_bytes(), index) != originals[path]]
    assert differ == []


# -- the continuation fast path -------------------------------------------------------------------------

def test_the_dev_set_answers_the_same_without_the_fast_path(originals: dict[Path, str], full: object,
                                                            devset_read_states: dict[Path, str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream, "FAST_CONTINUATION", False)
    checked, differ = differing(originals, devset_read_states, Path.read_bytes, share=4, knowledge=full)
    assert checked == len(FIXTURES) and differ == []


# Lines that end a message, or may, or look as if they might: each test of feed's pending branch.
_LINES = [
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
    "CUDA kernel errors might be asynchronously reported at some other API call",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    "Device-side assertion tracking was not enabled by user.",
    "Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 (most recent call first):",
    "frame #0: c10::Error::Error(c10::SourceLocation) + 0x57",
    "frame #12: <unknown function> + 0x1234 (0x7f in /usr/lib/libc.so.6)",
    "[Previous line repeated 996 more times]",
    "Traceback (most recent call last):",
    '  File "/x/train.py", line 9, in <module>',
    "ValueError: bad value",
    "torch.distributed.DistBackendError: NCCL error",
    "KeyboardInterrupt",
    "TypeError   Traceback (most recent call last)",
    "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1)",
    "Watchdog caught collective operation timeout: Work(SeqNum=9) ran for 600020 milliseconds",
    "node1:1:2 [0] NCCL WARN Call to ibv_reg_mr failed",
    "NCCL INFO Bootstrap",
    "Indexing.cu:1146: indexSelectLargeIndex: block: [1,0,0], thread: [5,0,0] Assertion `srcIndex < srcSelectDimSize` failed.",
    "", "   ", "[rank1]: a line of rank 1", "[rank0]: a line of rank 0", "  warnings.warn(",
    "2025-11-21 10:00:01,123 - INFO - trainer - step 1 loss 2.0",
    "[rank0]:   57/100000 [01:57<9:59:00,  2.83it/s]\r   58/100000 [01:57<9:59:00,  2.83it/s, loss=2.57]",
    "plain text that goes on", "x" * 9000, "File\u00a0\"/x.py\", line 3", "Err\x00or: glued by a NUL",
    "\x1b[31mRuntimeError\x1b[0m: coloured", "> quoted ValueError: in a quote", "```", "│ boxed text │",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_LINES), min_size=1, max_size=40),
       st.sampled_from(["UserWarning: something", "[rank0]: RuntimeError: boom", "ValueError: v", "X: not an error"]))
def test_a_warning_then_any_lines_parses_the_same_either_way(lines: list[str], first: str) -> None:
    text = "\n".join([first, *lines, first, *lines]) + "\n"
    docs = []
    for fast in (True, False):
        stream.FAST_CONTINUATION = fast
        try:
            errors = list(stream.parse(text.split("\n"), ("plain text that goes",), frozenset()))
        finally:
            stream.FAST_CONTINUATION = True
        docs.append([(e.type, e.message, e.line_no, e.rank, e.context, e.after, e.noise, e.repeats,
                      [(f.file, f.line, f.function, f.code) for f in e.frames]) for e in errors])
    assert docs[0] == docs[1]


def test_the_dev_set_answers_the_same_without_the_run_memo(originals: dict[Path, str], full: object,
                                                           devset_read_states: dict[Path, str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream, "RUN_MEMO", False)
    checked, differ = differing(originals, devset_read_states, Path.read_bytes, share=5, knowledge=full)
    assert checked == len(FIXTURES) and differ == []


# Lines whose cleaning cuts depend on digits, or whose cleaned text is found twice in them (the memo leaves
# such a run out), or that carry a rank: the run memo's cases.
_RUN_LINES = [
    "[1745] a log viewer's line number", "[rank12]: text 3", "[rank1]: 1", "2025-11-21 10:00:01 [rank3]: x 7",
    "[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] y", "[W file.cpp:737] z", "12:00:00.5 INFO x",
    "INFO:root: 42 items", "> 3 quoted", "```python3 x = 1", "```ps1 dir", "`inline 5`", "1 1", "step 9 step 9",
]
_SHIFT_DIGITS = str.maketrans("0123456789", "1234567890")


@example(["  warnings.warn("] + [f"2025-11-21 10:00:{i:02d},123 - INFO - step {i}" for i in range(12)]
         + ["plain text that goes on", "  more", "```python3 x = 1", "```python4 x = 1"],
         "UserWarning: something", ("plain text that goes",))
@example(["```python3 x = 1", "[rank1]: 1", "[rank12]: text 3"], "UserWarning: something", ())
@example(["[rank1]: text 3", "[rank1]: more 4", "[rank2]: other 5"], "[rank1]: RuntimeError: boom", ())
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_LINES + _RUN_LINES), min_size=1, max_size=30),
       st.sampled_from(["UserWarning: something", "[rank0]: RuntimeError: boom", "ValueError: v", "[rank12]: E: 1"]),
       st.sampled_from([(), ("plain text that goes",)]))
def test_the_run_memo_and_the_ending_line_parse_as_feeding_each_line(lines: list[str], first: str,
                                                                      known: tuple[str, ...]) -> None:
    """The same lines again with other digits (the memo's cuts reused), and without known literals (past the
    window where a line is searched for them, a plain line after a full message only ends it: not fed)."""
    shifted = [line.translate(_SHIFT_DIGITS) for line in lines]
    text = "\n".join([first, *lines, first, *shifted, first.translate(_SHIFT_DIGITS), *lines]) + "\n"
    docs = []
    for fast, memo in ((True, True), (True, False), (False, False)):
        stream.FAST_CONTINUATION, stream.RUN_MEMO = fast, memo
        try:
            errors = list(stream.parse(text.split("\n"), known, frozenset()))
        finally:
            stream.FAST_CONTINUATION, stream.RUN_MEMO = True, True
        docs.append([(e.type, e.message, e.line_no, e.rank, e.context, e.after, e.noise, e.repeats,
                      [(f.file, f.line, f.function, f.code) for f in e.frames]) for e in errors])
    assert docs[0] == docs[2] and docs[1] == docs[2]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["1", "23", "0", "a", "#", " ", "٣", "x9", "\n", "é"]), max_size=40).map("".join))
def test_the_repeat_key_is_the_text_with_digit_runs_made_hash(text: str) -> None:
    """parser._without_digits (memoised by the text's shape) equals the regex's sub, for the text and for the
    same text with other digits after it was memoised."""
    from kb.diagnose.parser import _DIGITS, _without_digits

    other = text.translate(_SHIFT_DIGITS)
    assert _without_digits(text) == _DIGITS.sub("#", text)
    assert _without_digits(other) == _DIGITS.sub("#", other)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_LINES + _RUN_LINES + ["RuntimeError: x `y`", "  ValueError: v", "E: not a type"]),
                min_size=1, max_size=3).map(" ".join))
def test_the_exception_memo_gives_what_the_patterns_give(line: str) -> None:
    from kb.diagnose import patterns
    from kb.diagnose.parser import _exception_in, search_embedded

    m = patterns.EXCEPTION_LINE.match(line.strip()) or search_embedded(line)
    expected = None if m is None else (m["type"], m["message"] or "", m.start())
    assert _exception_in(line, line.strip()) == expected
    assert _exception_in(line, line.strip()) == expected  # (from the memo)


# -- redaction's rule selection -------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abkeypassTOKEN_sig-=: \n\"'0123456789xyzAIzaghp")), max_size=200))
def test_the_rules_selected_by_keyword_hold_every_rule_that_applies(text: str) -> None:
    from kb.diagnose.redact import _applicable, _longest_word
    from kb.diagnose.redact.rules import table

    rules, _names = table()
    lowered, longest = text.lower(), _longest_word(text)
    chosen = _applicable(rules, lowered, longest)
    assert [r for r in rules if r.applies(lowered, longest)] == [r for r in chosen if r.applies(lowered, longest)]
    assert chosen == [r for r in rules if r in chosen]  # in the table's order


# -- textclean ------------------------------------------------------------------------------------------

def _clean_line_with_sub(raw: str) -> tuple[str, str | None]:
    """clean_line as it was: each prefix removed by its pattern's sub(count=1)."""
    from kb.diagnose import textclean as t

    line = (t.ANSI.sub("", raw) if "\x1b" in raw else raw).rstrip("\r\n")
    if "\r" in line:
        line = line.rsplit("\r", 1)[-1]
    if "\x00" in line:
        line = line.replace("\x00", "")
    if line[:1] in (">", " ") and t.QUOTE.match(line) and line.lstrip()[:1] == ">":
        line = t.QUOTE.sub("", line, count=1)
    worker = None
    if line.startswith(t.STREAM_NAMES):
        line = line[len("stderr: "):]
    elif line[:1] == "(" and t.RAY_PREFIX.match(line):
        line = t.RAY_PREFIX.sub("", line, count=1)
    elif line[:2] == "E " and t.PYTEST_PREFIX.match(line):
        line = t.PYTEST_PREFIX.sub("", line, count=1)
    elif not line.rstrip().endswith("|") and t.PIPE_PREFIX.match(line):
        line = t.PIPE_PREFIX.sub("", line, count=1)
    elif t.HOST_PREFIX.match(line):
        host = t.HOST_PREFIX.match(line)["host"]
        worker = host if host.isdigit() else None
        line = t.HOST_PREFIX.sub("", line, count=1)
    if "```" in line or "~~~" in line or "'''" in line or '"""' in line:
        if t.FENCE.match(line):
            return "", None
        line = t.INLINE_FENCE.sub("", line)
    m = t.LINE_NUMBER.match(line) if "[" in line else None
    if m:
        line = line[m.end():]

    def take_rank(line: str) -> tuple[str, str | None]:
        if "[" not in line and "rank" not in line:
            return line, None
        m = t.RANK_PREFIX.match(line)
        if m is None:
            return line, None
        return line[m.end():], m["rank"] or m["mpi"] or m["bare"]

    line, rank = take_rank(line)
    if line[:1] == "[" and t.GLOG.match(line):
        line = t.GLOG.sub("", line, count=1)
    if line[:1].isdigit() or line[:2] == " [" or line[:1] == "[":
        line = t.TIMESTAMP.sub("", line, count=1)
    if t.TORCH_LOG.match(line):
        line = t.TORCH_LOG.sub("", line, count=1)
    if rank is None and worker is not None:
        rank = worker
    if rank is None:
        line, rank = take_rank(line)
    if line[:1] == "[" and t.GLOG.match(line):
        line = t.GLOG.sub("", line, count=1)
    if line[:1].isupper() and t.LEVEL_PREFIX.match(line):
        line = t.LEVEL_PREFIX.sub("", line, count=1)
    if line and line[0] in t.BOX_CHARS:
        line = t._rich_box(line)
    if line[:1] == "`" or line[-1:] == "`":
        stripped = line.strip()
        if len(stripped) > 2 and stripped[0] == "`" and stripped[-1] == "`" and stripped.count("`") == 2:
            line = stripped[1:-1]
    if not line.isascii():
        line = line.translate(t.CURLY)
    return line, rank


_PIECES = ["[rank3]:", "[default0]:", "rank2: ", "[1,3]<stdout>:", "[1745] ", "2025-04-21 10:00:01,123 - INFO - ",
           "[2025-04-21 10:00:01] ", "18:57:53-195282 ERROR ", "[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] ",
           "[W ProcessGroupNCCL.cpp:737] ", "ERROR: ", "INFO:root:", "> ", "   ", "\t", "\u00a0", "\u2003", "```python ",
           "`", "│ ", "╭── Traceback ──╮", "\r", "\x1b[31m", "\x00", "RuntimeError: x", "text", " [", "[", "r", "rank",
           "(RayTrainWorker pid=2345, ip=10.0.0.1) ", "(pid=7)", "worker-1: ", "0: ", "localhost: ", "E   ", "E",
           "| ", "|", "trainer-1  | ", "Traceback (most recent call last):", "HTTP2Error: ", "stderr: ", "stdout: ",
           "E0822 16:10:35.525161 139625595627328 torch/x/api.py:833] ", "W1024 01:17:10.936000 1 a.py:9]",
           "2024-09-26 07:59:39.732000: ", "[01:17:10.938]: "]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=8))
def test_clean_line_equals_the_sub_version(pieces: list[str]) -> None:
    from kb.diagnose.textclean import clean_line

    raw = "".join(pieces)
    assert clean_line(raw) == _clean_line_with_sub(raw)


def test_clean_line_on_the_dev_set() -> None:
    from kb.diagnose.textclean import clean_line

    for path in FIXTURES:
        for raw in path.read_text(encoding="utf-8", errors="replace").split("\n"):
            assert clean_line(raw) == _clean_line_with_sub(raw), (path.name, raw)


# -- python -m kb diagnose's exit without teardown ------------------------------------------------------

@pytest.mark.parametrize("text, code", [
    ("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n", 0),
    ("nothing kb knows about here\n", 1),
])
def test_the_fast_exit_writes_everything_and_keeps_the_exit_code(tmp_path: Path, text: str, code: int) -> None:
    """kb/__main__.py ends `kb diagnose` with os._exit: the output must be whole, the exit code kept, and the
    exit handlers run (the regex cache is written by one)."""
    log = tmp_path / "in.txt"
    log.write_text(text * 2000)  # a long answer: more than one buffer of output
    env = {**os.environ, "KB_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-m", "kb", "diagnose", str(log), "--format", "json"], env=env, cwd=REPO,
                         capture_output=True)
    assert out.returncode == code, out.stderr
    document = json.loads(out.stdout)
    assert bool(document["matches"]) == (code == 0)
    assert list((tmp_path / "cache").glob("regex-*.bin"))  # written at exit
    inline = subprocess.run([sys.executable, "-c", "import sys; from kb.cli import main; sys.exit(main(sys.argv[1:]))",
                             "diagnose", str(log), "--format", "json"], env=env, cwd=REPO, capture_output=True)
    assert inline.stdout == out.stdout and inline.returncode == code


# -- the message memo (a repeat of a remembered message counted without being parsed) -------------------------

# No dev-set pass with the message memo off: no fixture of the dev set repeats a remembered message, so such a pass
# read the same state as the default reading for every fixture and could not fail (turn 48's finding). The memo is
# guarded by the tests below: a real training log's shape that the memo must count, and a property test.


def _parsed(text: str, known: tuple[str, ...], memo: bool) -> list[tuple[object, ...]]:
    stream._MESSAGE_MEMO.clear()
    stream.MESSAGE_MEMO = memo
    try:
        errors = list(stream.parse(text.split("\n"), known, frozenset()))
    finally:
        stream.MESSAGE_MEMO = True
    return [(e.type, e.message, e.line_no, e.rank, e.context, e.after, e.noise, e.repeats, e.chained,
             e.cause_of_previous, [(f.file, f.line, f.function, f.code) for f in e.frames]) for e in errors]


def test_a_log_of_repeated_warnings_is_counted_the_same_by_the_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    """A training log's shape: a warning, its `warnings.warn(` line, progress bars with other numbers each time. The
    memo must count repeats without parsing them (else the test below proves little) and as parsing does."""
    counted = []
    repeated = stream._repeated

    def counting(*args: object) -> int:
        end = repeated(*args)  # type: ignore[arg-type]
        if end != -1:
            counted.append(end)
        return end

    monkeypatch.setattr(stream, "_repeated", counting)
    block = ["/x/checkpoint.py:90: UserWarning: None of the inputs have requires_grad=True", "  warnings.warn("]
    lines = []
    for step in range(300):
        lines.append(f"[rank{step % 4}]: {step:>5}/1000 [01:{step % 60:02d}<9:59:00]\r{step + 1:>5}/1000 loss=2.{step}")
        lines.append(f"2025-11-21 10:00:{step % 60:02d},123 - INFO - trainer - step {step} epoch 0.{step:03d}")
        if step % 7 == 0:
            lines.extend(block)
        if step % 50 == 3:
            lines.append(f"ValueError: could not convert string to float: 'n/a' (skipping sample {step})")
    text = "\n".join(lines) + "\n"
    with_memo = _parsed(text, (), True)
    assert len(counted) > 20, "the memo counted few repeats"
    without = _parsed(text, (), False)
    assert with_memo == without
    assert sum(e[7] for e in with_memo) >= len(counted)  # each repeat the memo counted is on an error


@example(["  warnings.warn(", "[rank1]: 1"], "UserWarning: something", ())
@example(["```python3 x = 1", "```"], "UserWarning: something", ())  # a fence's language tag: its digits are read
@example(["", "[rank1]: 1", "x 2"], "UserWarning: something", ())
@example(["more 3", "The above exception was the direct cause of the following exception:"], "ValueError: v 1", ())
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_LINES + _RUN_LINES), min_size=1, max_size=12),
       st.sampled_from(["UserWarning: something", "[rank0]: RuntimeError: boom", "ValueError: v 1", "X: not an error",
                        "/x/a.py:9: FutureWarning: soon 12", "CUDA error: device-side assert 3"]),
       st.sampled_from([(), ("plain text that goes",)]))
def test_the_message_memo_parses_as_feeding_each_line(lines: list[str], first: str, known: tuple[str, ...]) -> None:
    """A message with any lines after it, again and again with other digits: the same errors, repeats, context and
    following lines with and without the memo."""
    shifted = [line.translate(_SHIFT_DIGITS) for line in lines]
    head = first.translate(_SHIFT_DIGITS)
    text = "\n".join([first, *lines, first, *shifted, first, *lines, first, *shifted, head, *lines, first, *lines,
                      first, *shifted]) + "\n"
    assert _parsed(text, known, True) == _parsed(text, known, False)


@pytest.mark.parametrize("fence", stream._FENCES)
def test_the_message_memo_keeps_no_shape_with_a_fence(fence: str) -> None:
    """stream._fenced spells _FENCES out (a generator over them cost ~0.1 s on the 200 MB log): every fence counts."""
    assert stream._shape([f"{fence}python3", "x = 1"]) is None
    assert stream._shape(["x = 1", "y = 2"]) == b"x = 0\ny = 0"


def test_the_cache_file_is_searched_not_indexed_when_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(turn 44) Opening the regex cache builds nothing per pattern it holds (a dict of every hash cost ~0.1 ms per
    1,000 patterns on every run; a machine's file holds up to MAX_PATTERNS): a run's lookups search the sorted hashes.
    Keys whose hashes are equal (here every key of one length) are each found, whatever their number and place."""
    monkeypatch.setattr(precompiled, "_hash", lambda key: len(key) % 7)  # collisions: runs of equal hashes
    sources = [f"a{'b' * n}c{i}" for n in range(12) for i in range(5)]
    _fresh(monkeypatch, tmp_path)
    for source in sources:
        precompiled.pattern(source)
    precompiled.save()
    _fresh(monkeypatch)
    opened = precompiled._open()
    assert opened is not None and not any(isinstance(part, dict) for part in opened)
    for source in [*sources, "abbbbbbbbbbbbbbbbbbbc0"]:  # (the last: a hash present, its key not)
        fields = precompiled._lookup(source)
        assert (fields is not None and fields[0] == source) == (source in sources), source
    assert not precompiled._new
    precompiled._close()
    for hashes in ([], [5], [1, 1, 1], [1, 2, 2, 2, 3, 9], list(range(0, 100, 3))):
        view = memoryview(array("I", hashes))
        for wanted in range(-1, 102):
            assert precompiled.first_at_least(view, wanted) == sum(1 for h in hashes if h < wanted), (hashes, wanted)

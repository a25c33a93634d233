"""kb/tidy and `kb check`: each rule fails, with its precise message, on exactly the defect seeded for it.

A small knowledge root (the dtype-mismatch family, the three cases its triage names, the example that
points at one of them) is built once; each test copies it, seeds one defect and expects that problem
and no other. The dev set is left out (Roots(..., dev_manifest=None)), so a check takes a fraction of
a second. `kb check` on the whole knowledge is tests/test_registry.py's.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kb.cli import main
from kb.knowledge.paths import CHECKOUT_ROOT
from kb.tidy import Problem, Report, Roots, check
from kb.tidy.examples import MANIFEST

REPO = Path(CHECKOUT_ROOT)
FAMILY = "dtype-mismatch"
CASES = ("KB0001-dtype-double-vs-float", "KB0019-loss-target-long-vs-float", "KB0020-half-weights-fp32-inputs-no-autocast")
EXAMPLE = "dtype-double-vs-float.txt"
EXAMPLE_ENTRY = (f'[[entry]]\nfile = "{EXAMPLE}"\nsource = "../shared/incidents/ohlora-stylegan-llm-issues.md"\n'
                 'expect = "dtype-double-vs-float"\nfamily = "dtype-mismatch"\n')


def _allow(path: Path, signature: str, reason: str = "a test's") -> None:
    """Give the signature named ``signature`` in ``path``'s front matter an ``unexercised`` reason."""
    text = path.read_text(encoding="utf-8")
    line = f'name = "{signature}"\n'
    at = text.index(line) + len(line)
    path.write_text(text[:at] + f"unexercised = {json.dumps(reason)}\n" + text[at:], encoding="utf-8")


def _roots(root: Path) -> Roots:
    return Roots(root / "cases", root / "families", root / "examples", None)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small root, with an ``unexercised`` reason on each signature its few outputs leave unexercised (so it
    is clean)."""
    root = tmp_path_factory.mktemp("knowledge")
    for name in CASES:
        shutil.copytree(REPO / "cases" / name, root / "cases" / name)
    (root / "families").mkdir()
    shutil.copy(REPO / "families" / f"{FAMILY}.md", root / "families")
    shutil.copy(REPO / "families" / "exception-types.toml", root / "families")
    (root / "examples").mkdir()
    shutil.copy(REPO / "examples" / EXAMPLE, root / "examples")
    (root / "examples" / MANIFEST).write_text(EXAMPLE_ENTRY, encoding="utf-8")
    for p in check(_roots(root)).problems:
        assert p.rule == "signature" and "exercised by no" in p.message, p.line()
        _allow(Path(p.path), p.message.split("'")[1])
    return root


@pytest.fixture
def root(template: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "knowledge"
    shutil.copytree(template, copy)
    return copy


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path} lacks {old!r}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _line(path: Path, text: str) -> int:
    return path.read_text(encoding="utf-8").splitlines().index(text) + 1


def _problems(root: Path) -> list[tuple[str, str, str]]:
    """(path relative to the root, rule, message) of every problem."""
    report: Report = check(_roots(root))
    return [(str(Path(p.path).relative_to(root)), p.rule, p.message) for p in report.problems]


def case_md(n: int) -> str:
    return f"cases/{CASES[n]}/case.md"


def test_the_small_knowledge_is_clean(root: Path) -> None:
    report = check(_roots(root))
    assert report.problems == []
    assert (report.cases, report.families, report.examples) == (3, 1, 1) and report.inputs > 10


def test_schema_violations_are_reported_and_the_other_files_still_checked(root: Path) -> None:
    _edit(root / case_md(2), "hints = [", "hintz = [")
    _edit(root / "families" / f"{FAMILY}.md", 'title = "', 'titel = "')
    _edit(root / case_md(1), "## Why it happens", "## Why it happens\n\nTODO: say more.\n")  # a second file, still checked
    line = _line(root / case_md(1), "TODO: say more.")
    assert _problems(root) == [
        (case_md(1), "placeholder", f"placeholder left from `kb new`: 'TODO' on line {line} (write the real text)"),
        (case_md(2), "schema", "signatures[0]: unknown key 'hintz' (a signature takes: class_base, class_capture, compare, environment, exception, "
         "excludes, frames, hints, member_capture, message, model_type_capture, model_type_known, name, param_capture, requires_frame, "
         "requires_type, "
         "specific, unexercised)"),
        (f"families/{FAMILY}.md", "schema", "unknown key 'titel' (a family takes: api_history, fix, libraries, name, "
         "signatures, sources, summary, title, triage)"),
    ]


def test_a_placeholder_left_in_a_program(root: Path) -> None:
    fixed = root / "cases" / CASES[1] / "fixed.py"
    _edit(fixed, "import torch\n", "import torch  # TODO: and OWNER/REPO\n")
    line = _line(fixed, "import torch  # TODO: and OWNER/REPO")
    assert _problems(root) == [(f"cases/{CASES[1]}/fixed.py", "placeholder",
                                f"placeholder left from `kb new`: 'TODO' on line {line}; 'OWNER/REPO' on line {line} "
                                "(write the real text)")]


def test_a_reproduction_without_its_fixed_run(root: Path) -> None:
    (root / "cases" / CASES[1] / "evidence" / "tried-float-in-map.fixed.cpu.json").unlink()
    assert _problems(root) == [(case_md(1), "runs", "reproduction 'tried-float-in-map' has no failing and fixed run "
                                "recorded on one profile (cpu: no fixed run): kb reproduce KB0019 --variant "
                                "tried-float-in-map --record and kb reproduce KB0019 --variant tried-float-in-map "
                                "--fixed --record")]


def test_an_evidence_file_not_written_by_the_runner(root: Path) -> None:
    path = root / "cases" / CASES[1] / "evidence" / "default.fixed.cpu.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["date"]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert _problems(root) == [(case_md(1), "runs", "reproduction 'default' has no failing and fixed run recorded on "
                                "one profile (cpu: no fixed run): kb reproduce KB0019 --record and kb reproduce KB0019 "
                                "--fixed --record"),
                               (f"cases/{CASES[1]}/evidence/default.fixed.cpu.json", "runs",
                                "lacks date (evidence is written by kb reproduce --record, not by hand)")]


def test_a_fix_snippet_calling_what_the_fixed_program_does_not(root: Path) -> None:
    _edit(root / case_md(1), 'dataset = dataset.cast_column("labels", Sequence', 'dataset = dataset.cast("labels", Sequence')
    assert _problems(root) == [(case_md(1), "snippet", "[fix] snippet uses cast, which fixed.py never uses: the snippet "
                                "must be the fix the recorded run verified")]


def test_a_fix_snippet_using_a_name_only_the_reproduction_defines(root: Path) -> None:
    """kb/tidy/snippets.py: a snippet runs as pasted into a user's script; ``ds`` is the program's own name."""
    _edit(root / case_md(1), 'dataset = dataset.cast_column("labels", Sequence', 'dataset = ds.cast_column("labels", Sequence')
    assert _problems(root) == [(case_md(1), "snippet", "[fix] snippet: uses ds, which it neither defines nor imports "
                                "before (a user's script has only what it imports, builtins and model, tokenizer, "
                                "dataset, args, trainer)")]


def test_fix_code_that_does_not_compile_or_imports_the_helpers(root: Path) -> None:
    _edit(root / case_md(1), "## Fix\n", "## Fix\n\n```python\nfrom kb.fixtures import tiny\nmodel = tiny.causal_lm(tokenizer)\n"
                                         "```\n\n```python\nfp16=True,\n```\n")
    assert _problems(root) == [
        (case_md(1), "snippet", "## Fix, python block 1: imports kb.fixtures, the case programs' helpers (write out "
                                "what they do)"),
        (case_md(1), "snippet", "## Fix, python block 2: line 1 is a keyword-argument fragment (fp16=...,): write the "
                                "call it belongs to"),
    ]


def test_a_family_template_whose_code_uses_an_undefined_name(root: Path) -> None:
    family = root / "families" / f"{FAMILY}.md"
    _edit(family, "dtype the model computes in:\n", "dtype the model computes in:\n    x = x.to(model.dtype)\n")
    assert _problems(root) == [(f"families/{FAMILY}.md", "snippet", "[fix] template, code 1: uses x, which it neither "
                                "defines nor imports before (a user's script has only what it imports, builtins and "
                                "model, tokenizer, dataset, args, trainer)")]


def test_a_template_placeholder_without_fallback(root: Path) -> None:
    """kb/tidy/templates.py: a captured value the output did not show would print as ``{dtype_a}``."""
    family = root / "families" / f"{FAMILY}.md"
    _edit(family, "One operand is {dtype_a|of one dtype}", "One operand is {dtype_a}")
    _edit(family, "dtype the model computes in:\n", "dtype the model computes in (`{argument|}`):\n")
    assert _problems(root) == [
        (f"families/{FAMILY}.md", "template", "[fix] template: {dtype_a} has no fallback, so it prints as written "
                                              "when the output does not show dtype_a: write {dtype_a|what to say then}"),
        (f"families/{FAMILY}.md", "template", "[fix] template: `{argument|}` prints as `` when the output shows none "
                                              "of them: give the last one a fallback"),
    ]


def test_a_signature_nothing_exercises(root: Path) -> None:
    _edit(root / case_md(1), "[fix]\n", "[[signatures]]\nname = \"never-seen\"\nexception = [\"RuntimeError\"]\n"
                                        "message = 'no output holds this wording'\n\n[fix]\n")
    problems = _problems(root)
    assert problems == [(case_md(1), "signature", "signatures[5] 'never-seen': exercised by no recorded output, example "
                         "or dev-set output (record a run that raises it, add a real output holding it to examples/, or "
                         "say why in the signature's `unexercised`)")]


def test_an_allowance_no_longer_needed(root: Path) -> None:
    _allow(root / case_md(0), "matmul-dtype")  # the example and KB0001's recorded runs exercise it
    ((path, rule, message),) = _problems(root)
    assert (path, rule) == (case_md(0), "signature")
    assert message.startswith("signatures[0] 'matmul-dtype' is exercised by ")
    assert message.endswith(": remove its `unexercised`")


def test_a_recorded_failure_not_recognised_as_its_case(root: Path) -> None:
    log = root / "cases" / CASES[1] / "evidence" / "default.failing.cpu.log"
    log.write_text("Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n"
                   "ValueError: nothing any signature knows\n", encoding="utf-8")
    rel = f"cases/{CASES[1]}/evidence/default.failing.cpu.log"
    assert _problems(root) == [
        (rel, "recorded", f"kb diagnose answers nothing first, not within the case's family {FAMILY}"),
        (rel, "recorded", "among the cases, none answers first, not KB0019 (its own recorded failure)"),
    ]


def test_an_example_not_recognised_as_its_manifest_says(root: Path) -> None:
    _edit(root / "examples" / MANIFEST, 'expect = "dtype-double-vs-float"', 'expect = "loss-target-long-vs-float"')
    assert _problems(root) == [(f"examples/{EXAMPLE}", "example", "kb diagnose answers case KB0001 "
                                "dtype-double-vs-float first, not case KB0019 loss-target-long-vs-float "
                                "(examples/manifest.toml entry[0])")]


def test_an_example_without_a_manifest_entry(root: Path) -> None:
    shutil.copy(root / "examples" / EXAMPLE, root / "examples" / "another.txt")
    assert _problems(root) == [("examples/another.txt", "example", "no [[entry]] in examples/manifest.toml says "
                                "what kb diagnose should answer (file, source, expect, family)")]


@pytest.mark.parametrize("empty", [False, True], ids=["no-triage-key", "empty-triage"])
def test_a_family_without_triage(root: Path, empty: bool) -> None:
    path = root / "families" / f"{FAMILY}.md"
    text = path.read_text(encoding="utf-8")
    front, prose = text.split("\n+++\n", 1)
    kept = [block for block in front.split("\n[[") if not block.startswith("triage]]")]
    front = "\n[[".join(kept)
    if empty:
        front = front.replace(f'name = "{FAMILY}"\n', f'name = "{FAMILY}"\ntriage = []\n', 1)
    path.write_text(front + "\n+++\n" + prose, encoding="utf-8")
    message = "triage lists no cause" if empty else "lacks the required key 'triage' (the causes, most frequent first)"
    assert _problems(root) == [(f"families/{FAMILY}.md", "schema", message)]


def test_a_family_without_its_prose(root: Path) -> None:
    path = root / "families" / f"{FAMILY}.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: text.index("## What it means")], encoding="utf-8")
    assert _problems(root) == [(f"families/{FAMILY}.md", "schema", "prose lacks the section(s) ## What it means")]


def test_a_triage_entry_naming_no_case(root: Path) -> None:
    _edit(root / "families" / f"{FAMILY}.md", 'case = "loss-target-long-vs-float"', 'case = "loss-target-gone"')
    assert _problems(root) == [(f"families/{FAMILY}.md", "family", "triage[4].case 'loss-target-gone' names no case")]


def test_a_registry_rule(root: Path) -> None:
    shutil.copy(root / "cases" / CASES[1] / "failing.py", root / "cases" / CASES[1] / "fixed.py")
    problems = _problems(root)
    assert (case_md(1), "registry", "reproduction 'default': failing.py and fixed.py are the same program") in problems


# ---- `kb check`, the command --------------------------------------------------------------------------------


def _kb_check(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str,
              **env: str) -> tuple[int, str, str]:
    for name in ("KB_KNOWLEDGE_DIR", "KB_CASES_DIR", "KB_FAMILIES_DIR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_kb_check_fails_on_an_untouched_scaffold(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`kb new`'s scaffold in the small root (its three cases clean) fails `kb check`, each placeholder named. A dev
    set of one fixture (the root's example again) stands for the checkout's, so that the signature rule is judged as in
    a checkout. (It was a copy of every case beside the repository's families and dev set: a whole `kb check`, ~30 s,
    whose other half, that the knowledge's cases are clean, is tests/test_registry.py's.)"""
    dev = root / "dev-set" / "manifest.toml"
    dev.parent.mkdir()
    shutil.copy(root / "examples" / EXAMPLE, dev.parent)
    dev.write_text(EXAMPLE_ENTRY, encoding="utf-8")
    monkeypatch.setattr("kb.tidy.devset_manifest", lambda: dev)
    monkeypatch.setenv("KB_KNOWLEDGE_DIR", str(root))
    for name in ("KB_CASES_DIR", "KB_FAMILIES_DIR"):
        monkeypatch.delenv(name, raising=False)
    assert main(["new", "x", "--family", FAMILY]) == 0
    capsys.readouterr()
    scaffold = next((root / "cases").glob("KB*-x"))
    monkeypatch.chdir(root)
    code, out, err = _kb_check(monkeypatch, capsys, KB_KNOWLEDGE_DIR=str(root))
    lines = out.splitlines()
    where = f"cases/{scaffold.name}/"
    assert code == 1 and err == ""
    assert all(line.startswith(where) for line in lines[:-1]), "\n".join(lines)  # the copied cases are clean
    assert lines[-1].startswith(f"kb check: {len(lines) - 1} problems in 3 files (")
    assert f"{where}case.md: placeholder left from `kb new`: 'TODO' on lines 5, 6, 9, " in out
    assert f"{where}failing.py: placeholder left from `kb new`: 'TODO' on line 8 (write the real text)" in lines
    assert f"{where}fixed.py: placeholder left from `kb new`: 'TODO' on line 8 (write the real text)" in lines
    case_id = scaffold.name[:6]
    assert (f"{where}case.md: reproduction 'default' has no failing and fixed run recorded on one profile (cpu: no "
            f"failing run, no fixed run): kb reproduce {case_id} --record and kb reproduce {case_id} --fixed --record"
            in lines)
    assert f"{where}case.md: [fix] snippet: does not compile: invalid syntax (line 1: 'TODO: " in out
    assert "[fix] template" not in out  # the scaffold's placeholder shows a fallback: {name|what to say without it}
    assert f"{where}case.md: signatures[0] 'x': exercised by no recorded output" in out


def test_kb_check_json_and_exit_codes(root: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("kb.tidy.devset_manifest", lambda: root / "no-dev-set" / "manifest.toml")  # as in a wheel
    code, out, _ = _kb_check(monkeypatch, capsys, "--format", "json", KB_KNOWLEDGE_DIR=str(root))
    assert code == 0 and json.loads(out) == {"ok": True, "problems": [], "checked": {
        "cases": 3, "families": 1, "examples": 1, "outputs": json.loads(out)["checked"]["outputs"], "signatures": False}}
    code, out, _ = _kb_check(monkeypatch, capsys, KB_KNOWLEDGE_DIR=str(root))
    assert code == 0 and out.endswith("diagnosed; signatures not judged: no dev set (a checkout's "
                                      "tests/fixtures/diagnose/))\n")
    _edit(root / case_md(1), "## Why it happens", "## Why it happens\n\nTODO\n")
    code, out, _ = _kb_check(monkeypatch, capsys, "--format", "json", KB_KNOWLEDGE_DIR=str(root))
    doc = json.loads(out)
    line = _line(root / case_md(1), "TODO")
    assert code == 1 and doc["ok"] is False
    assert doc["problems"] == [{"path": str(root / case_md(1)), "rule": "placeholder",
                                "message": f"placeholder left from `kb new`: 'TODO' on line {line} (write the real text)"}]
    code, out, err = _kb_check(monkeypatch, capsys, KB_KNOWLEDGE_DIR=str(root), KB_CASES_DIR=str(root / "nowhere"))
    assert (code, out) == (2, "") and err == f"kb: $KB_CASES_DIR={root / 'nowhere'} is not a folder\n"


def test_problem_paths_are_relative_below_the_working_directory(tmp_path: Path) -> None:
    problem = Problem(str(tmp_path / "cases" / "x" / "case.md"), "schema", "bad")
    assert problem.line(str(tmp_path)) == "cases/x/case.md: bad"
    assert problem.line(str(tmp_path / "elsewhere")) == f"{tmp_path}/cases/x/case.md: bad"


def test_a_program_setting_the_environment_without_fresh_python(root: Path) -> None:
    fixed = root / "cases" / CASES[1] / "fixed.py"
    _edit(fixed, "import torch\n", "import os\nos.environ[\"HF_HUB_OFFLINE\"] = \"1\"\nimport torch\n")
    problems = _problems(root)
    assert [(p, r) for p, r, _ in problems] == [(case_md(1), "registry")] * len(problems) and problems
    assert all("fixed.py sets the environment (os.environ[...), which libraries read at import: say "
               "fresh_python = true" in m for _, _, m in problems)
    _edit(root / case_md(1), 'family = "dtype-mismatch"\n', 'family = "dtype-mismatch"\nfresh_python = true\n')
    assert _problems(root) == []


def test_the_dev_inputs_leave_out_a_set_whose_first_score_is_pending(tmp_path) -> None:
    """kb check diagnoses the dev set for its signature rules; a set still to be first-scored is not read, so no
    check's message tells how kb answers it before its score (kb.knowledge.examples.pending_sets)."""
    from kb.tidy.outputs import dev_inputs

    (tmp_path / "dev").mkdir()
    for name in ("a-1", "b-1"):
        (tmp_path / "dev" / f"{name}.txt").write_text("RuntimeError: x\n", encoding="utf-8")
    (tmp_path / "manifest.toml").write_text(
        '[[entry]]\nfile = "dev/a-1.txt"\nsource = "https://example.org/a"\nexpect = "none"\nset = "a"\n\n'
        '[[entry]]\nfile = "dev/b-1.txt"\nsource = "https://example.org/b"\nexpect = "none"\nset = "b"\n',
        encoding="utf-8")
    (tmp_path / "b-sampling.txt").write_text("FIRST SCORE PENDING (end of session)\n", encoding="utf-8")
    (tmp_path / "a-sampling.txt").write_text("FIRST SCORE TAKEN\n", encoding="utf-8")
    inputs, problems = dev_inputs(tmp_path / "manifest.toml")
    assert problems == []
    assert [i.path.name for i in inputs] == ["a-1.txt"]
    (tmp_path / "b-sampling.txt").write_text("FIRST SCORE TAKEN at the end\n", encoding="utf-8")
    assert sorted(i.path.name for i in dev_inputs(tmp_path / "manifest.toml")[0]) == ["a-1.txt", "b-1.txt"]


def test_a_fixture_file_is_told_to_a_pending_set_by_its_name() -> None:
    from kb.knowledge.examples import in_pending_set

    assert in_pending_set("tests/fixtures/diagnose/dev/drift-48-instructlab-3456.txt", {"drift-48"})
    assert not in_pending_set("tests/fixtures/diagnose/dev/drift-49-instructlab-3456.txt", {"drift-48"})
    assert not in_pending_set("dev/drift-480-x.txt", {"drift-48"}) and not in_pending_set("dev/a.txt", set())

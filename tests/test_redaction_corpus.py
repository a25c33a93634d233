"""No secret of the corpus is printed, and nothing but secrets and personal paths is masked (issues 23 and 26).

Leaks: every form of tests/fixtures/secrets/forms.toml (a FAKE secret of a known shape, put where kb
prints input text: the error line, a user frame, a quoted hint, the headline, after a JSON or URL
escape, in an env dump, as a keyword or attribute name (the drift section), wrapped across two lines;
values beside secret-like names) goes through `kb diagnose`'s pipeline, its JSON document and its text
rendering; some through the CLI in a subprocess; config values through `kb env --config`. A leak is
any 8 characters of a secret's private part in an output. A control run with redaction switched off
shows that each context does carry its secret to the output.

False redactions: over the dev set (tests/fixtures/diagnose, examples/), every span redaction masks
is a user name in a home path or an e-mail address (personal, documented); any other is a false one.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import kb.diagnose.redact as redaction
from kb.knowledge.examples import in_pending_set, pending_sets
from kb.render.diagnosis import format_diagnosis
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.diagnose.redact import redact, secret_spans
from kb.knowledge.index import load_index
from secret_corpus import Form, forms

REPO = Path(__file__).resolve().parent.parent
FORMS = [f for f in forms() if f.turn < 38]  # turn 38's (7,000 more): tests/test_hostile_turn38.py, for the run's time
# The dev set's real reports and the examples, less a set whose first score is pending (a sealed batch: a failure's
# message would print its text) and runtime-38, the output of kb's own generated programs (one passes the placeholder
# token use_auth_token="hf_xxx", which the key-name rule masks, rightly), not users' reports.
_PENDING = pending_sets(REPO / "tests" / "fixtures" / "diagnose" / "manifest.toml")
DEV_SET = sorted(p for p in [*(REPO / "tests" / "fixtures" / "diagnose").rglob("*.txt"), *(REPO / "examples").rglob("*.txt")]
                 if "runtime-38" not in p.parts and not in_pending_set(p, _PENDING))


@pytest.fixture(scope="module")
def knowledge():
    return load_index()


def outputs(text: str, knowledge) -> tuple[str, str]:
    """(text output, JSON output) of `kb diagnose` on ``text``, in process."""
    doc = diagnosis_document(diagnose_lines(text.splitlines(keepends=True), knowledge))
    shown = format_diagnosis(doc) + format_diagnosis(doc, full=True)  # one screen and the whole story
    return shown, json.dumps(doc, ensure_ascii=False)


def json_strings(value) -> str:
    """Every string of a JSON value, joined: the JSON text escapes newlines, a reader sees them."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(json_strings(k) + "\n" + json_strings(v) for k, v in value.items())
    if isinstance(value, list):
        return "\n".join(json_strings(v) for v in value)
    return ""


def leaks(form: Form, out: str, js: str) -> list[str]:
    """The pieces of the form's secret in the text output, the JSON text or the JSON's strings: read in one pass
    over the three joined by NUL (no secret holds one, so no piece is found across two of them)."""
    return form.leaks("\0".join((out, js, json_strings(json.loads(js)))))


def test_the_corpus_has_200_forms_or_more() -> None:
    assert len(FORMS) >= 200
    assert len({f.id for f in FORMS}) == len(FORMS)


PARTS = 4  # the forms in 4 items of ~1,650 (~5 CPU s each), which pytest-xdist spreads over its workers (one item of
# all 6,622 took 119 s of one worker in CI, turn 48)


@pytest.mark.parametrize("part", range(PARTS))
def test_no_secret_of_the_corpus_is_printed_by_diagnose(knowledge, part: int) -> None:
    chosen = FORMS[part::PARTS]  # every form is in one part
    leaked = {}
    for form in chosen:
        out, js = outputs(form.text, knowledge)
        found = leaks(form, out, js)
        if found:
            leaked[form.id] = found
    assert not leaked, f"{len(leaked)} of {len(chosen)} forms leak: {sorted(leaked.items())[:10]}"


def test_each_context_carries_its_secret_to_the_output_without_redaction(knowledge, monkeypatch) -> None:
    """The control: with redaction off, every context's secret reaches the output (else the test above
    would prove nothing for it)."""
    monkeypatch.setattr(redaction, "secret_spans", lambda text: [])
    import tomllib

    from secret_corpus import CORPUS

    # contexts whose secret kb's own cleaning keeps out of the output (forms.toml's `control = false`)
    uncontrolled = {c["id"] for c in tomllib.loads(CORPUS.read_text(encoding="utf-8"))["context"] if c.get("control") is False}
    by_context: dict[str, bool] = {}
    for form in FORMS:
        shape, context = form.id.split("@")
        if shape not in ("github-pat", "kwarg-api-key", "env-kaggle", "weak-json-token") or context in uncontrolled:
            continue
        out, js = outputs(form.text, knowledge)
        by_context[context] = by_context.get(context, False) or bool(leaks(form, out, js))
    assert by_context and all(by_context.values()), by_context


def test_the_drift_section_shows_no_token_used_as_a_keyword(knowledge) -> None:
    """A token passed as a keyword argument reaches the API-history section, which names the keyword. kb/diagnose/
    quoted.py leaves a field whose own redaction hides the token (a keyword whole in the message) as it is, so the
    keyword still reads as one and the drift section is given, redacted where it is printed."""
    form = next(f for f in FORMS if f.id == "github-pat@keyword-name")
    doc = diagnosis_document(diagnose_lines(form.text.splitlines(keepends=True), knowledge))
    assert not form.leaks(json.dumps(doc))
    drifts = [m["drift"] for m in doc["matches"] if m.get("drift")]
    assert drifts, "the keyword-name context should give a drift section"
    assert not form.leaks(json.dumps(drifts))


@pytest.mark.parametrize("fid", ["slack-bot@line-wrap", "env-kaggle@dump-after-error", "pem-rsa@error-line",
                                 "azure-sas@url-escape", "json-password-spaces@message"])
@pytest.mark.parametrize("mode", [[], ["--format", "json"]], ids=["text", "json"])
def test_the_cli_prints_no_secret(tmp_path: Path, fid: str, mode: list[str]) -> None:
    form = next(f for f in FORMS if f.id == fid)
    log = tmp_path / "err.log"
    log.write_text(form.text, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "kb", "diagnose", str(log), *mode], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    assert not form.leaks(proc.stdout + proc.stderr), proc.stdout


@pytest.mark.parametrize("mode", [[], ["--format", "json"]], ids=["text", "json"])
def test_kb_env_config_prints_no_secret(tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: list[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """`kb env --config` prints config values; its header says the report is safe to share."""
    import kb.env.report as env_report
    import kb.env.risks as env_risks
    from kb.cli import main

    # Each `kb env` reads the installed packages' versions and loads every case (~0.2 CPU s, 95% of a run, the same
    # for every config): read once here and handed to each of the runs below, whose configs, checks, redaction and
    # rendering run as they do for a user
    versions, sources = env_report.read_versions()
    problems: list[str] = []
    cases = env_risks.load_cases_leniently(problems)
    monkeypatch.setattr(env_report, "read_versions", lambda: (dict(versions), dict(sources)))
    monkeypatch.setattr(env_risks, "load_cases_leniently", lambda found: (found.extend(problems), list(cases))[1])

    keys = ("torch_dtype", "mixed_precision", "dtype")
    tokens = [f for f in FORMS if f.id.endswith("@error-line")]
    leaked = []
    for i in range(0, len(tokens), len(keys)):
        batch = tokens[i:i + len(keys)]
        values = {}
        for key, form in zip(keys, batch):
            values[key] = re.search(r"client (.*) failed", form.text, re.S).group(1)
        config = tmp_path / f"args{i}.json"
        config.write_text(json.dumps({"per_device_train_batch_size": 4, **values}))
        assert main(["env", "--config", str(config), *mode]) == 0
        out = capsys.readouterr().out
        leaked += [f.id for f in batch if f.leaks(out)]
    assert not leaked, leaked


# --------------------------------------------------------------------------------- false redactions

_PERSONAL_PATH = re.compile(r"(?:/home/|/Users/|\\Users\\)$", re.IGNORECASE)
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")


def false_redactions(text: str) -> list[str]:
    """The spans redaction masks in ``text`` that are neither a home path's user name nor an e-mail address."""
    out = []
    for start, end, _mask, _wrapped in secret_spans(text):
        piece = text[start:end]
        personal = (_PERSONAL_PATH.search(text[max(0, start - 10):start].replace("\\\\", "\\")) and "/" not in piece
                    or _EMAIL.fullmatch(piece))
        if not personal:
            out.append(text[max(0, start - 30):end + 10])
    return out


def test_redaction_masks_nothing_but_personal_paths_in_the_dev_set(monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(DEV_SET) > 300
    # secret_spans remembers the spans of a text of SEEN_TEXT_CHARS or fewer (a diagnosis redacts the same texts):
    # here of any length, so that redact() and false_redactions() read the spans the first call found instead of
    # finding them twice more in each file longer than that (two thirds of this test's time)
    monkeypatch.setattr(redaction, "SEEN_TEXT_CHARS", sys.maxsize)
    found = {}
    for path in DEV_SET:
        text = path.read_text(encoding="utf-8", errors="replace")
        spans = secret_spans(text)
        rebuilt = text
        for start, end, mask, _ in reversed(spans):
            rebuilt = rebuilt[:start] + mask + rebuilt[end:]
        assert redact(text) == rebuilt, path  # redact() masks exactly these spans
        bad = false_redactions(text)
        if bad:
            found[path.name] = bad
    assert not found, f"{sum(map(len, found.values()))} false redactions: {found}"


@pytest.mark.parametrize("code", [
    "max_new_tokens=512", "generate(max_new_tokens=128, num_beams=4)", "tokenizer=tokenizer,",
    "tokenizer.pad_token = tokenizer.eos_token", "use_auth_token=False", "token=<your_token>",
    "new_num_tokens:106072", "model, tokenizer = load_model_and_tokenizer(model_args)",
    "https://github.com/org/repo/blob/3b5683bef7ee902dc205a8cd93572b05b88dbad5/train.py",
    "password = getpass.getpass()", "api_key=os.environ['OPENAI_API_KEY']", "PWD=/workspace",
    "key_states = self.k_proj(hidden_states)", "sort(key=len)", "secret_sauce = 3", "num_key_value_heads: 8",
    "eos_token_id=2, pad_token_id=0", "auth: None", "revision=main", "api_key=api_key",
])
def test_code_is_never_masked(code: str) -> None:
    assert redact(code) == code


# ------------------------------------------------------------------------------------ the rule set

def test_the_rule_set_is_data_validated_and_named_by_its_source() -> None:
    from kb.knowledge.tables import read_table_file, table_path

    data = read_table_file(table_path("secrets"), "secrets")
    assert len(data["rule"]) >= 60
    assert all(rule["source"] for rule in data["rule"])
    assert "gitleaks v8.24.2" in data["source"]


def test_a_bad_rule_is_refused(tmp_path: Path) -> None:
    from kb.knowledge.model import KnowledgeError
    from kb.knowledge.tables import read_table_file, table_path

    text = Path(table_path("secrets")).read_text(encoding="utf-8")
    for wrong, says in ((text.replace("regex = '''AIza", "regex = '''(AIza", 1), "does not compile"),
                        (text.replace('keywords = ["aiza"]', 'keywords = ["AIza"]', 1), "lower case"),
                        (text.replace('id = "npm-access-token"', 'id = "gcp-api-key"', 1), "used twice")):
        bad = tmp_path / "secrets.toml"
        bad.write_text(wrong, encoding="utf-8")
        with pytest.raises(KnowledgeError, match=says):
            read_table_file(str(bad), "secrets")


def test_rules_compile_only_for_text_that_holds_their_keywords() -> None:
    """Start-up: a plain error message compiles none of the token rules."""
    import subprocess as sp

    code = ("import kb.diagnose.redact as r; r.redact('RuntimeError: expected mat1 and mat2 to have the same dtype'); "
            "print(sum(x._compiled is not None for x in r.table()[0]))")
    out = sp.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True,
                 env={**os.environ, "PYTHONPATH": str(REPO)}).stdout
    assert out.strip() == "0"


@pytest.mark.parametrize("fragment", ['key:"\\"', "password='\\'", '--token "\\"', "api_key: ", "a=b:", "sig=",
                                      "hf_" + "a" * 20 + "\n", "x" * 45 + "\n", "%41", "\\n", "-----BEGIN PRIVATE KEY-----",
                                      # issue 26: the new rules, entities, colour sequences, wraps and prefixes
                                      "mysql -p", "curl -u a:", "Authorization: ", "Cookie: ", "auth=('a', ",
                                      "- name: A_TOKEN\n", "setx A_KEY ", "&quot;", "&#", "\x1b[", "\x1b]8;;",
                                      "[rank0]: " + "aB3" * 15 + "\n", "aB3" * 15 + " \n", "aB3dE5" * 20,
                                      "password: \"ab\n", "1234567:", "Signature=", "-us1 ", "://u" + "x" * 30 + ":",
                                      "ENV A_TOKEN ", "QUJDREVGR0hJSktM ", "aGZfMTIzNDU2Nzg5MGFi ", "dXNlcjpodW50ZXIy "])
def test_the_key_name_rule_views_and_wraps_are_linear(fragment: str) -> None:
    """64 KiB of a fragment the new parts key on (a quoted value that never closes, escapes, wrapped lines):
    no dearer a CPU second a MB than the dev set's own reports (tests/timing_support.py: measured in the same
    process, so a contended machine moves both), or than 3 s/MB where that is more."""
    from timing_support import assert_cheap

    text = fragment * (64 * 1024 // len(fragment))
    redact(fragment * 4)  # the rules the fragment wakes are compiled once, outside the timing (a fresh worker's first
    # call compiled them inside it: 11 s/MB for "mysql -p" in a loaded full run)
    assert_cheap(redact, text)

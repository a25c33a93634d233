"""Issue 26, turn 40's held-out red team: the classes its forms found, as properties and regressions.

The forms stay in tests/fixtures/secrets/forms.toml (entries with ``turn = 40``) and benchmarks/hostile_io_t40.py (the
command line); the first score and what was fixed are in benchmarks/results/hostile-turn40.txt. Here: every turn-40
form through redact() (the known gaps named one by one) and a fixed sample through `kb diagnose`; a token cut across a
container runtime's partial records (Kubernetes CRI ``P``/``F`` lines, Docker json-file records); a rule whose lookahead
wants the character a wrap moved (the wrapped view's class: a match that ends at a join); a quoted value that is a
quoted name in turn; an open-quoted value cut by an ellipsis; bash's ``$'...'``; the turn's vendor shapes and the words
near them kept; the new constructs linear; `kb env` and `kb show` printing no turn-40 token.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hostile_support import (CUTTABLE, SETTINGS, alone, cut_token, diagnose_leaks, redact_leaks, run_kb, sample,
                             turn_forms)
from kb.diagnose.redact import redact
from test_redaction_properties import SHAPES, shown, tokens
from timing_support import assert_linear

T40 = turn_forms(40)
NEW = [s for s in SHAPES if s.get("turn") == 40]

# Turn 40's forms still leaking after its fixes (benchmarks/results/hostile-turn40.txt, "Known gaps"): listed so that a
# new leak fails this test and a gap closed is noticed (then take it off the list).
GAPS = {  # (turn 49 closed the forms of this list that tests/test_redaction_leaks49.py names)
    # a shape without a prefix or with a slash (an AWS secret, a W&B key, a Neptune or Artifactory or Grafana token, Google's 4/0A
    # code, a bare PEM body, Cohere/Mistral keys) as a URL path's segment or a URL's user, wrapped right after itself or not: where kb reads a path
    # (turn 38's and 39's known gap; leaks45 closed those with a fixed prefix and a whole random segment: left, an AWS
    # secret with a `/` inside, a W&B key's 40 hex digits (a commit's shape), a PEM body's lines, a password's %40 under
    # colour codes)
    # (turn 48 closed the bare PEM body in a path: tests/test_redaction_leaks48.py)
    "wandb@urllib3-path-t40", "wandb@wrap-after-token-rank-t40", "wandb@wrap-after-token-rich-t40",
    "wandb@wrap-after-token-t40",
    # a positional command's value or an unquoted one cut by a pandas cell's ellipsis (the token rule wants the whole
    # length; the open-quoted value of a name is masked)
    # (fuzz43: 14 more closed by _ellipsis_cuts, a random head before pandas' `...`; these are left: a head of letters
    # alone shorter than 20, of one case, of hex digits, or one whose word a `-` splits)
    # values beside names wrapped under W&B's prefix, a CRI record or a Docker json-file split whose rest does not read as a
    # token's rest (FTP PASS, SMTP AUTH, curl -u KEY:, WireGuard's base64, gh secret set, a Go struct)
    # two encodings or contexts at once (a JSON log of a positional command, quoted-printable, base64 twice, bytes with a
    # look-alike name, %q over a here-string, a soft wrap through `hf auth login --token`, bash's $'...' escaped)
}


def test_every_turn40_form_is_redacted_but_the_named_gaps() -> None:
    leaked = set(redact_leaks(T40))
    assert len(T40) > 10000
    assert leaked <= GAPS, f"{len(leaked - GAPS)} new leaks: {sorted(leaked - GAPS)[:10]}"
    assert GAPS <= {f.id for f in T40}, sorted(GAPS - {f.id for f in T40})
    closed = GAPS - leaked
    assert not closed, f"gaps closed, take them off GAPS: {sorted(closed)}"


def test_a_sample_of_turn40_forms_prints_no_secret_through_diagnose() -> None:
    """One form in twelve (fixed by its id's CRC), every class represented, through the pipeline, text and JSON."""
    chosen = sample(T40, 12, GAPS)  # (turn 42: its three pipeline gaps closed, kb/diagnose/quoted.py)
    assert {f.cls for f in chosen} == {"S1", "S2", "S3", "S4", "S5"}
    leaked = diagnose_leaks(chosen)
    assert not leaked, f"{len(leaked)} of {len(chosen)} leak: {sorted(leaked.items())[:8]}"


@given(token=tokens(CUTTABLE), cut=st.floats(0.0, 1.0), stream=st.sampled_from(["stdout", "stderr"]),
       nanos=st.integers(0, 999_999_999))
@SETTINGS
def test_a_token_cut_across_cri_partial_records_never_shows(token: tuple[str, str], cut: float, stream: str,
                                                             nanos: int) -> None:
    """kubelet's CRI log: a long line written as records tagged P, the last one F, each with its own time."""
    tok, body = token
    text = f"2026-11-27T05:00:01.000000001Z {stream} P RuntimeError: upload failed for client {tok} (status 401)\n"
    text = cut_token(text, tok, body, cut, f"\n2026-11-27T05:00:01.{nanos:09d}Z {stream} F ")
    assert not shown(body, redact(text))


@given(token=tokens(CUTTABLE), cut=st.floats(0.0, 1.0))
@SETTINGS
def test_a_token_cut_across_docker_json_file_records_never_shows(token: tuple[str, str], cut: float) -> None:
    """Docker's json-file driver: a line of more than 16 KiB written as records, each but the last without its \\n."""
    tok, body = token
    text = '{"log":"RuntimeError: upload failed for client ' + tok + ' (status 401)\\n","stream":"stderr","time":"x"}\n'
    text = cut_token(text, tok, body, cut,
                     '","stream":"stderr","time":"2026-11-27T05:00:01.123456789Z"}\n{"log":"')
    assert not shown(body, redact(text))


def test_kb_reads_container_runtime_records_as_their_text() -> None:
    """kb's line cleaning takes a CRI record's stream and tag off with its time, and reads a Docker json-file record as
    the text it holds (its escapes decoded), so that a message split into records continues on the next line."""
    from kb.diagnose.textclean import clean_line

    assert clean_line("2026-11-27T05:00:01.123456789Z stderr P RuntimeError: upload failed\n")[0] == (
        "RuntimeError: upload failed")
    assert clean_line('{"log":"\\u001b[31mRuntimeError: upload \\"x\\" failed\\n","stream":"stderr","time":"t"}\n')[0] == (
        'RuntimeError: upload "x" failed')
    for line in ('{"log": 3, "stream": "stderr"}', '{"log":"x","stream":', "stderr P not a record"):
        assert clean_line(line)[0] == line


def test_records_that_end_their_line_are_not_joined() -> None:
    """A CRI record tagged F and a json-file record whose "log" ends in \\n end their line: the next record's first
    word is not the rest of a token."""
    from kb.diagnose.redact.views import identity, joined

    cri = ("2026-11-27T05:00:01.1Z stderr F RuntimeError: upload failed for client abcdefghij1234567890\n"
           "2026-11-27T05:00:01.2Z stderr F Xyz123abc is next\n")
    docker = ('{"log":"RuntimeError: upload failed for client abcdefghij1234567890\\n","stream":"stderr",'
              '"time":"2026-11-27T05:00:01.1Z"}\n{"log":"Xyz123abc is next\\n","stream":"stderr",'
              '"time":"2026-11-27T05:00:01.2Z"}\n')
    for text in (cri, docker):
        view = joined(identity(text))
        assert view is None or "1234567890Xyz" not in view.text


@given(after=st.sampled_from(["/", "@", ":", "."]), brk=st.sampled_from(["\n", "\r", "\r\n", "\n[rank0]: ",
                                                                     "\x1b[0m\n\x1b[31m"]),
       token=st.text("abcdefghijkmnopqrstuvwxyz0123456789", min_size=24, max_size=40))
@SETTINGS
def test_a_rule_whose_lookahead_wants_what_the_wrap_moved_still_matches(after: str, brk: str, token: str) -> None:
    """The class of turn 39's conda fix, in the wrapped view: a match that ends where a line was joined counts (the
    token on one line, the character its rule's lookahead wants at the start of the next)."""
    from kb.diagnose.redact import _plain_prefixes, _wrapped, name_rule, token_rules
    from kb.diagnose.redact.rules import Rule
    from kb.diagnose.redact.views import decoded, identity

    _plain_prefixes(token_rules())  # (its cache holds the table's rules, as in any other call)
    rule = Rule({"id": "lookahead", "keywords": ["/t/"], "min_word": 0, "mask": "***", "wraps": True,
                 "regex": r"(?<=/t/)(?P<secret>[a-z0-9]{24,40})(?=" + "\\" + after + ")"})
    prefix = "[rank0]: " if "rank0" in brk else ""
    text = f"{prefix}RuntimeError: upload failed for https://conda.example.test/t/{token}{brk}{after}private (401)\n"
    base = identity(text)
    spans = _wrapped(decoded(base) or base, (rule,), name_rule())  # (the colours decoded away, as redaction's last view)
    start = text.index(token)
    assert any(s <= start and start + len(token) <= e for s, e, _mask, _w in spans), spans


@pytest.mark.parametrize("text", [
    'settings: "password": "{v}",', "headers: {{'X-Amz-Security-Token': '{v}', 'User-Agent': 'Boto3/1.35.0'}}",
    'ValueError: could not load the run\'s settings: "SessionToken": "{v}+/abc",',
    '0      42  {{"user": "trainer", "password": "{v}...', "0   42  client = OpenAI(api_key='{v}\u2026",
    "declare -- DB_PASSWORD=$'{v}\\n'", "fs.azure.account.key.trainstore.dfs.core.windows.net={v}+Ab==",
    "spark-submit --conf spark.hadoop.fs.azure.sas.runs.trainstore.blob.core.windows.net={v} prep.py",
])
def test_the_turns_names_are_masked(text: str) -> None:
    value = "Qw7Er5Ty3Ui1Op9As8Df6Gh"
    assert not shown(value, redact(text.format(v=value)))


def test_new_shapes_alone() -> None:
    assert len(NEW) >= 14
    for shape in NEW:
        text, body = alone(shape)
        assert not shown(body, redact(text)), shape["id"]


@pytest.mark.parametrize("text", [
    "Loading checkpoint shards: 100%|... \"done...", "x = \"see the docs...\"\n", 'password: "..."',
    "process-group sess-ion", "st.session_state['model']", "dosage 3", "re_search(pattern)", "ls__init__.py",
    "loss 0.5123 lr 2e-05", "model.fs.azure", "napi_version", "llx-", "CFPAT-", "hcaik_",
    "2026-11-27T05:00:01.1Z stderr F done", '{"log":"done\\n","stream":"stdout","time":"x"}',
])
def test_words_near_the_new_shapes_and_names_are_kept(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("fragment", [
    "2026-11-27T05:00:01.1Z stderr P aB3" + "x" * 20 + "\n", '{"log":"aB3cd","stream":"stderr","time":"x"}\n',
    '"a": "', "'b': '", 'password: "' + "aB3" * 5 + "...\n", "$'", "fs.azure.account.key.", "0.", "eyJhIjoi",
    "re_", "st.", "dose", "x" * 27 + "_" + "Ab1" * 7 + " ",
])
def test_the_turns_constructs_stay_linear(fragment: str) -> None:
    """64 KiB and 256 KiB of each: under 3 CPU seconds a MB, the larger not more than 6 times the smaller."""
    assert_linear(redact, fragment)


def test_kb_prints_no_turn40_token(tmp_path) -> None:
    tokens_ = {"MASTER_ADDR": "CFPAT-Qw7Er5Ty3Ui1Op9As8Df6Gh4Jk2Lz0Xc5Vb7Nm3Qw1",
               "ACCELERATE_MIXED_PRECISION": "bce-v3/ALTAK-K7M2Q9X4B8N3V6C1Z5L0P/9f2c4a7e1b3d5f609f2c4a7e1b3d5f609f2c4a7e",
               "RANK": "hcaik_9f2c4a7e1b3d5f609f2c4a7e1b3d5f609f2c4a7e1b3d5f609f2c4a7e1b"}
    env = {**tokens_, "KB_CACHE_DIR": str(tmp_path / "cache")}
    secrets = ("Qw7Er5Ty3Ui1Op9As8Df", "K7M2Q9X4B8N3V6C1Z5L0", "9f2c4a7e1b3d5f60")
    for args in (["env", "--format", "text"], ["env", "--format", "json"], ["show", tokens_["RANK"]],
                 ["plan", "--model", tokens_["ACCELERATE_MIXED_PRECISION"]],
                 ["diagnose", str(tmp_path / tokens_["MASTER_ADDR"] / "train.log")]):
        proc = run_kb(args, env, timeout=120)
        out = (proc.stdout + proc.stderr).decode("utf-8", "replace")
        assert proc.returncode in (0, 1, 2) and "Traceback" not in out
        assert not any(shown(s, out) for s in secrets), (args, out[-300:])


def test_an_input_file_truncated_while_read_is_a_one_line_error(tmp_path) -> None:
    """logrotate's copytruncate cut the log while kb read it through mmap: a page past the new end killed kb with
    SIGBUS (exit 135, no message; found by benchmarks/hostile_io_t40.py). Run in a subprocess: the old failure kills
    the process that reads."""
    import subprocess
    import sys

    from hostile_support import REPO

    log = tmp_path / "train.log"
    log.write_text(("step 1 loss 2.31 lr 2e-05 " * 8 + "\n") * 40_000)  # ~8 MB: several mapped blocks
    program = (
        "import sys\n"
        "from kb.diagnose.input import UnusableInput, _mapped, BLOCK_BYTES\n"
        f"handle = open({str(log)!r}, 'rb')\n"
        "mapped = _mapped(handle)\n"
        "assert mapped is not None\n"
        "blocks = mapped.line_blocks(handle.read(BLOCK_BYTES))\n"
        "next(blocks)\n"
        "next(blocks)\n"
        f"open({str(log)!r}, 'wb').close()\n"
        "try:\n"
        "    for block in blocks:\n"
        "        pass\n"
        "except UnusableInput as exc:\n"
        "    print('unusable:', exc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", program], cwd=REPO, capture_output=True, timeout=120)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-500:])
    assert b"unusable: the input file shrank" in proc.stdout

"""Issue 26, turn 39's held-out red team: the classes its forms found, as properties and regressions.

The forms stay in tests/fixtures/secrets/forms.toml (entries with ``turn = 39``) and benchmarks/hostile_io_t39.py (the
command line); the first score and what was fixed are in benchmarks/results/hostile-turn39.txt. Here: every turn-39
form through redact() (the known gaps named one by one) and a fixed sample through `kb diagnose`; a token cut by a
backspace or by ESC's other two-character forms (save/restore cursor, keypad modes, character sets); a secret found
once masked wherever it recurs (inside a longer word, ``Did you mean: 'TOKENs'?``); a shell's backslash escapes,
quoted-printable, a CSV field's doubled quotes, base64url; the turn's vendor shapes and the words near them kept;
names: a pair's value that is a name (configparser.set), terraform's ``old -> new``, long letter-only values, FTP/SMTP
commands, X-Honeycomb-Team and SharedKey; random bytes sniffed as binary; the new constructs linear.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hostile_support import (CUTTABLE, PREFIXED, SETTINGS, alone, cut_token, diagnose_leaks, redact_leaks, run_kb, sample,
                             turn_forms)
from kb.diagnose.redact import redact
from test_redaction_properties import SHAPES, shown, tokens
from timing_support import assert_linear, assert_linear_on

T39 = turn_forms(39)  # (turn 40's forms: tests/test_hostile_turn40.py)
NEW = [s for s in SHAPES if s.get("turn") == 39]

# Turn 39's forms still leaking after its fixes (benchmarks/results/hostile-turn39.txt, "Known gaps"): listed so that a
# new leak fails this test and a gap closed is noticed (then take it off the list).
GAPS: set[str] = set(  # (turn 49 closed the last forms of this list: tests/test_redaction_leaks49.py)
    # (turn 48 closed a bare PEM body in a URL's user and folded at 80: tests/test_redaction_leaks48.py)
    # a whole log folded at 80/100 columns (or rich's soft wrap) through a multi-line or URL-bound shape, or through a
    # value beside a name whose next piece does not read as a token's rest
)


def test_every_turn39_form_is_redacted_but_the_named_gaps() -> None:
    leaked = set(redact_leaks(T39))
    assert len(T39) > 12000
    assert leaked <= GAPS, f"{len(leaked - GAPS)} new leaks: {sorted(leaked - GAPS)[:10]}"
    assert GAPS <= {f.id for f in T39}, sorted(GAPS - {f.id for f in T39})
    closed = GAPS - leaked
    assert not closed, f"gaps closed, take them off GAPS: {sorted(closed)}"


def test_a_sample_of_turn39_forms_prints_no_secret_through_diagnose() -> None:
    """One form in twelve (fixed by its id's CRC), every class represented, through the pipeline, text and JSON."""
    chosen = sample(T39, 12, GAPS)
    assert {f.cls for f in chosen} == {"S1", "S2", "S3", "S4", "S5"}
    leaked = diagnose_leaks(chosen)
    assert not leaked, f"{len(leaked)} of {len(chosen)} leak: {sorted(leaked.items())[:8]}"


BREAKS = ["x\b", "ab\b\b", "\x1b7\x1b8", "\x1b=", "\x1b>", "\x1bc", "\x1b(0", "\x1b(B", "\x1b F", "\x1b[?25l",
          "\x9b0m", "\x1b[0m\x1b[31m"]


@given(token=tokens(CUTTABLE), brk=st.sampled_from(BREAKS), cut=st.floats(0.0, 1.0), lead=st.sampled_from(
    ["upload to ", "Error: ", "(", "'"]))
@SETTINGS
def test_a_token_cut_by_a_backspace_or_an_escape_never_shows(token: tuple[str, str], brk: str, cut: float,
                                                            lead: str) -> None:
    full, body = token
    at = len(full) - len(body) + 4 + int(cut * (len(body) - 8))
    text = cut_token(f"RuntimeError: expected mat1 and mat2 to have the same dtype; {lead}{full} failed\n", full, body,
                     cut, brk)
    assert not shown(body, redact(text), text.replace(full[:at], "").replace(full[at:], ""))


@given(token=tokens(PREFIXED), before=st.text("abcdefgXYZ_", max_size=3), after=st.text("sxyz_0123", min_size=1,
                                                                                           max_size=3))
@SETTINGS
def test_a_secret_found_once_is_masked_wherever_it_recurs(token: tuple[str, str], before: str, after: str) -> None:
    full, body = token
    text = (f"  File \"/w/t.py\", line 9, in <module>\n    model.{full}()\nAttributeError: no attribute '{full}'. "
            f"Did you mean: '{before}{full}{after}'?\n")
    assert not shown(body, redact(text))


@given(value=st.text("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789", min_size=16, max_size=32).filter(
    # a value of digits only is a number, which kb masks only beside a name whose numbers are secrets (a PIN, a
    # password: tables/secrets.toml `numeric`); hypothesis found HF_TOKEN="2222222222222222" (no HF token is digits)
    lambda v: any(c.isdigit() for c in v) and any(c.isalpha() for c in v)),
    name=st.sampled_from(["HF_TOKEN", "DB_PASSWORD", "api_key", "MY_SECRET"]),
    quoted=st.booleans())
@SETTINGS
def test_a_shell_escaped_assignment_never_shows(value: str, name: str, quoted: bool) -> None:
    """`set -x` and `printf %q` write `NAME\\=value` and `\\"value\\"`."""
    shown_value = f'\\"{value}\\"' if quoted else value
    text = f"+ env {name}\\={shown_value} python train.py\nRuntimeError: CUDA error: device-side assert triggered\n"
    assert not shown(value, redact(text))


def test_new_shapes_alone() -> None:
    assert len(NEW) >= 30
    for shape in NEW:
        text, body = alone(shape)
        assert not shown(body, redact(text)), shape["id"]


@pytest.mark.parametrize("text", [
    "fc-layer 3 of 12 has 4096 units", "see sl.no 4 of the table", "4/0 examples skipped", "p8e-",
    "https://discuss.huggingface.co/t/importerror-for-function-find-pruneable-heads-and-indices/1743",
    "PASS tests/test_model.py::test_forward", "--- PASS: TestForward (0.01s)", "PASS src/app.test.js",
    "tvly-", "rpa_cluster", "ddp_model = DDP(model)", "e2b_sandbox.run()",
    "config.set('train', 'epochs', '3')", "setattr(args, 'output_dir', 'out/run-3')",
    "~ instance_type = \"t3.small\" -> \"t3.large\"", "api-key: <your key>", "X-Honeycomb-Dataset: training-runs",
])
def test_words_near_the_new_shapes_and_names_are_kept(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("template", [
    'config.set("hub", "password", "{v}")', 'setattr(args, "hub_token", "{v}")',
    '  ~ db_password = "old-password-1" -> "{v}"', "*cmd* 'PASS {v}'", "send: 'AUTH PLAIN {v}\\r\\n'",
    "X-Honeycomb-Team: {v}", "Authorization: SharedKey trainstore:{v}=",
])
def test_the_turns_names_are_masked(template: str) -> None:
    value = "Qw7Er5Ty3Ui1Op9As8Df6Gh"
    assert not shown(value, redact(template.format(v=value)))


def test_a_long_random_letters_only_value_beside_a_weak_name_is_masked_and_words_are_not() -> None:
    value = "hjxNvtEgzNoCqQrkZRdiNnoNYsvopMQeMt"
    assert not shown(value, redact(f'setattr(args, "hub_token", "{value}")'))
    for words in ("TrainingArgumentsConfiguration", "LlamaForCausalLMWithValueHead", "transformersmodelsllama"):
        assert redact(f'setattr(args, "hub_token", "{words}")').count(words) == 1


def test_quoted_printable_csv_and_base64url_views() -> None:
    import base64
    import quopri

    secret = "Zq8Wm2Lp5Rt9Xv3Bn7Kc1Hd4"
    form = f"HF_TOKEN=hf_{secret}abcdefghij"
    qp = quopri.encodestring(("x" * 70 + " " + form).encode()).decode()
    assert "=\n" in qp and not shown(secret, redact(f"Content-Transfer-Encoding: quoted-printable\n\n{qp}\n"))
    csv = '42,failed,"{""user"": ""ci"", ""password"": ""' + secret + '""}"\n'
    assert not shown(secret, redact(csv))
    word = base64.urlsafe_b64encode(f"DB_PASSWORD={secret}".encode()).decode().rstrip("=")
    assert not shown(word[16:32], redact(f"state={word}&x=1"))


def test_random_bytes_are_sniffed_as_binary_and_latin1_text_is_not() -> None:
    from kb.diagnose.input import _looks_binary

    rng = random.Random(39)
    for _ in range(200):
        assert _looks_binary(bytes(rng.randrange(256) for _ in range(4096)))
    latin1 = ("Fehler: caf\xe9 na\xefve \xfcber Gr\xf6\xdfe\n" * 200).encode("latin-1")
    assert not _looks_binary(latin1)


@pytest.mark.parametrize("fragment", ["a\b", "\x1b7\x1b8", "\x1b(0", "x\\=", "=3D", '""', "PASS ", "AUTH PLAIN ",
                                      "eyJrIjoi" + "A" * 20 + "-_ ", "sl." + "a" * 140 + " ", "hf_" + "aB3" * 12 + " "])
def test_the_turns_constructs_stay_linear(fragment: str) -> None:
    """64 KiB and 256 KiB of each: under 3 CPU seconds a MB, the larger not more than 6 times the smaller."""
    assert_linear(redact, fragment)


def test_many_distinct_recurring_secrets_stay_linear() -> None:
    """Each of RECUR_MAX secrets looked for again: 64 KiB and 256 KiB of distinct tokens, each twice."""
    rng = random.Random(7)
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
    texts = []
    for size in (64 * 1024, 256 * 1024):
        parts = []
        while sum(map(len, parts)) < size:
            token = "ghp_" + "".join(rng.choice(alphabet) for _ in range(36))
            parts.append(f"{token} x{token}y ")
        texts.append("".join(parts))
    assert_linear_on(redact, *texts)


def test_kb_env_prints_no_turn39_token(tmp_path) -> None:
    token = "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"
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"hub_token: |-\n  {token}\noptim: adamw_torch\n")
    env = {"MASTER_ADDR": token, "KB_CACHE_DIR": str(tmp_path / "cache")}
    for fmt in ("text", "json"):
        proc = run_kb(["env", "--config", str(cfg), "--format", fmt], env, timeout=120)
        out = proc.stdout.decode() + proc.stderr.decode()
        assert proc.returncode in (0, 1)
        assert not shown(token[5:], out)


@pytest.mark.parametrize("debris", ["ab\b\b", "a\b", "abc\b\b\b", "ab\b\bc\b"])
def test_backspaces_in_a_row_erase_as_many_characters(debris: str) -> None:
    """Found by hypothesis at the merge: ``ab\\b\\b`` inside an FCM key erased only the ``b``, so the view kept ``a``
    inside the token and the rule missed it."""
    from kb.diagnose.redact.views import erased, identity

    token = ("Z6xOyuo:APA91bvflRGcD1RqF57QVdTGdh1563g6pfczIimcGGQ475kYM8xGGA3kjHo8_etvxOtLK8tfP8gX3u7F4Bc5_KyV4c3EmAmCh"
             "oDdsc3-2dBBqfeXihObmclVhKfJk8HUAOv1xjaDZfVS")
    text = "upload to AAAA" + token[:4] + debris + token[4:] + " failed\n"
    assert erased(identity(text)).text == "upload to AAAA" + token + " failed\n"
    assert token[6:20] not in redact(text)


def test_a_quoted_value_wrapped_under_a_python_prompt_is_judged_as_typed() -> None:
    """Found by hypothesis at the merge (test_hostile_turn38's prompt form): a Neptune key (base64 JSON) beside the weak
    name ``token``, cut by the REPL's ``... `` prompt; the value with ``\\n... `` inside did not look random, so only the
    head (a token rule's) was masked."""
    key = ("eyJhcGlfYWRkcmVzcyI6Imh0dHBzOi8vYXBwLm5lcHR1bmUuYWkiLCJhcGlfdXJsIjoiaHR0cHM6Ly9hcHAubmVwdHVuZS5haSIsImFwaV9rZ"
           "XkiOiIMq2zdYHZX4qUxXPruSnpIrDOsruBwaozIjsVCm4c455mtdIKIn0=")
    cut = key.index("m4c")
    for prompt in ("... ", "> ", "    "):
        text = f">>> client = Client(token='{key[:cut]}\n{prompt}{key[cut:]}')\nValueError: rejected\n"
        assert "mtdIKIn0" not in redact(text), prompt


def test_a_conda_channel_token_wrapped_right_after_it_shows_nothing() -> None:
    """Found by hypothesis in the merged suite: the rule's lookahead wanted the `/` the wrap had moved to the next
    line (a match that ends at the join does not cross it, so the joined view did not count it either)."""
    text = ("RuntimeError: upload failed for   https://conda.anaconda.org/t/m3-c3cbab79-4170-d4a1-ee45-74178deed8ea\r"
            "/private-channel (status 401)\n")
    assert "c3cbab79" not in redact(text)

"""Issue 26, turn 46 (leaks46): redaction's leftovers from turn 45's review, its remaining leak classes and its cost
(benchmarks/results/hostile-turn46-leaks.txt).

- A password flag's ``-p`` belongs to the command right before it: after a login, another command's ``-p`` (ssh's
  port, docker run's published port, mkdir's parents) is no password, nor is anything after a shell's separator; and
  prose that names the flag (``the -p flag``, ``--password option``) holds no value.
"""

from __future__ import annotations

import pytest

from kb.diagnose.redact import redact
from test_redaction_properties import shown

# a login, then another command whose -p is no password (tables/secrets.toml: password-short-flag, login-command-secret)
NOT_A_PASSWORD = [
    "sshpass -f ~/.pw ssh -p 2222 trainer@gpu-box",
    "kubectl login then ssh -p 2222 gpu-box",
    "az login && ssh -p 2222 trainer@gpu-box",
    "docker login registry.example.com; docker run -p 8080:80 trainer:latest",
    "gcloud auth login; mkdir -p /workspace/checkpoints",
    "mysql -u trainer -h db; scp -P 2200 model.bin gpu-box:/data",
    "docker login -u trainer && docker run -p 127.0.0.1:6006:6006 tensorboard",
]
PROSE = [
    "after docker login, use the -p flag to pass the password",
    "docker login -p flag is insecure, use --password-stdin",
    "docker login --password option is deprecated",
    "huggingface-cli login --token argument is read from HF_TOKEN when omitted",
    "mysql -p option prompts for the password",
]


@pytest.mark.parametrize("text", NOT_A_PASSWORD + PROSE)
def test_another_commands_p_or_prose_naming_the_flag_stays(text: str) -> None:
    assert redact(text) == text


# and the password each of those rules exists for is still masked, the same command lines with a password
SECRETS = [
    ("sshpass -p Tr0ub4dorX3 ssh -p 2222 trainer@gpu-box", "Tr0ub4dorX3", "-p 2222"),
    ("docker login -u trainer -p Tr0ub4dorX3 registry.io && docker run -p 8080:80 img", "Tr0ub4dorX3", "-p 8080:80"),
    ("docker login -p flagpole77 registry.io", "flagpole77", None),
    ("mysql -u root -pS3cretPw7 training_db", "S3cretPw7", None),
    ("hf auth login --token hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", None),
    ("az login -u trainer -p correcthorse", "correcthorse", None),
]


@pytest.mark.parametrize(("text", "secret", "kept"), SECRETS)
def test_the_login_password_is_still_masked(text: str, secret: str, kept: str | None) -> None:
    out = redact(text)
    assert secret not in out
    if kept is not None:
        assert kept in out



# ------------------------------------------------------------------------------------------------------------------
# The secret corpus's leak classes closed this turn (benchmarks/results/hostile-turn46-leaks.txt)

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from secret_corpus import closed_forms_test  # noqa: E402

CLOSED = [
    # base64 of base64: a decoded word's own base64 words are decoded once more (kb/diagnose/redact BASE64_DEPTH)
    "argv-list-repr-t39@base64-twice-t39", "gcp-private-key-json@base64-twice-t39",
    "kubectl-docker-password-t40@base64-twice-t39", "x-amz-security-token-t40@base64-twice-t39",
    # a row's value (`db.password VALUE`) followed by more on its line: a C0 control, a request's ` HTTP/1.1`, a
    # command's next word, a panel's border
    "java-properties-space-t41@osc-title-t38", "java-properties-space-t41@shell-q-t39",
    "java-properties-space-t41@url-encoded-t38", "java-properties-space-t41@url-lower-t41",
    "java-properties-space-t41@rich-locals-t38",
    # a named value's rest alone on the next line; a command that begins with a keyword is no wrap's rest of prose
    "mot-de-passe-t41@dump-wrapped", "htpasswd-b-t42@dump-wrapped",
    # a CSV field's doubled quotes that open a value after `=` (doubled_quotes)
    "env-quoted-spaces@csv-field-t39",
]
test_the_corpus_forms_this_turn_closed_show_no_secret = closed_forms_test(CLOSED)

_RANDOM = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
SECRET = st.text(_RANDOM, min_size=16, max_size=40).filter(
    lambda v: any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(c.islower() for c in v))


LONG_PLAIN = ["the run finished after 3 epochs on 2 x T4; the adapter was saved to ./out/checkpoint-500 and the "
              "evaluation loss was 1.84, within the budget of the notebook's 12 hours; nothing else to report here.",
              "model card: llama 3 8b, 4 bit nf4 quantisation, lora rank 16, alpha 32, dropout 0.05, target modules "
              "q_proj k_proj v_proj o_proj, learning rate 2e-4, cosine schedule, warmup 100 steps, batch 4, accum 8."]


def _b64(text: str) -> str:
    import base64

    return base64.b64encode(text.encode()).decode()


@settings(max_examples=60, deadline=None)
@given(SECRET, st.sampled_from(["HF_TOKEN={s}", "password: {s}", "--api-key {s}", '{{"auth": "trainer:{s}"}}']),
       st.sampled_from(["data.settings: {w}", "echo {w} | base64 -d | base64 -d", "  config: {w}"]))
def test_a_secret_encoded_twice_in_base64_never_shows(secret: str, form: str, place: str) -> None:
    word = _b64(_b64(LONG_PLAIN[0] + "\n" + form.format(s=secret)))  # (a first decoding too long for a token rule)
    out = redact("kubernetes.client.exceptions.ApiException: (422) " + place.format(w=word) + "\n")
    assert word not in out and word[:24] not in out


@pytest.mark.parametrize("plain", LONG_PLAIN)
def test_words_encoded_twice_in_base64_stay(plain: str) -> None:
    """A long text of words encoded twice (its first decoding too long a word for a token rule): decoded twice, it holds
    no secret, and stays (a short one's first decoding reads as a random token, and was masked before this turn too)."""
    text = f"data.settings: {_b64(_b64(plain))}\n"
    assert len(_b64(plain)) > 200
    assert redact(text) == text


@settings(max_examples=80, deadline=None)
@given(SECRET, st.sampled_from(["db.password", "spring.datasource.password", "app.secret_key", "DB_PASSWORD"]),
       st.sampled_from([" HTTP/1.1", "\x07RuntimeError: CUDA error", " \u2502", " python train.py --epochs 3",
                        "\x1b[0m done"]),
       st.sampled_from(["", "+ env ", "GET /report?text=", "\x1b]2;"]))
def test_a_rows_random_value_followed_by_more_text_never_shows(secret: str, name: str, after: str, before: str) -> None:
    out = redact(f"{before}{name} {secret}{after}\n")
    assert not shown(secret, out)


ROW_PROSE = ["see db.password section for details", "the api_key argument is required", "config.secret_key value is set",
             "db.password hunter2 is wrong", "torch.cuda.session_id 12345 ok", "model.config.pad_token_id 128001 is set",
             "tokenizer.eos_token </s> added", "self.access_token None, refreshing"]


@pytest.mark.parametrize("text", ROW_PROSE)
def test_a_rows_wordy_or_short_value_followed_by_more_text_stays(text: str) -> None:
    assert redact(text) == text


@settings(max_examples=80, deadline=None)
@given(st.text(_RANDOM, min_size=8, max_size=12).filter(
    lambda v: any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(c.islower() for c in v)), st.text("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", min_size=8,
                                                          max_size=14).filter(lambda v: any(c.isupper() for c in v[1:])
                                                                              and any(c.islower() for c in v)),
       st.sampled_from(["mot_de_passe=", "password=", "DB_PASSWORD=", "export HF_TOKEN="]))
def test_a_named_values_rest_alone_on_the_next_line_never_shows(head: str, rest: str, setting: str) -> None:
    out = redact(f"RuntimeError: CUDA error: device-side assert triggered\n{setting}{head}\n{rest}\nPATH=/usr/bin\n")
    assert rest not in out and head not in out
    assert "PATH=/usr/bin" in out


@pytest.mark.parametrize("text", ["password=hunter22\nFinished\n", "DB_PASSWORD=abc123\nDone\n",
                                  "api_key = abcdefgh12\nTraceback\n"])
def test_a_word_after_a_named_value_stays(text: str) -> None:
    assert redact(text).endswith(text.split("\n")[1] + "\n")


@settings(max_examples=60, deadline=None)
@given(st.lists(SECRET.map(lambda v: v[:8]), min_size=2, max_size=4),
       st.sampled_from(["DATABASE_PASSWORD", "HF_TOKEN", "db_password", "API_KEY"]))
def test_a_value_in_doubled_quotes_after_a_name_in_a_csv_field_never_shows(words: list[str], name: str) -> None:
    value = " ".join(words)
    out = redact(f'run_id,status,settings\n42,failed,"{name}=""{value}"""\n')
    assert not any(word in out for word in words)


@pytest.mark.parametrize("text", ['x=""\nnext "line" here\n', 'run,"cmd=""python train.py"" --epochs 3"\n',
                                  'HF_TOKEN="" python x.py "a"\n', 'row,"settings=""{password_file: /x}"""\n'])
def test_an_empty_or_code_value_in_doubled_quotes_stays(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("command", ["htpasswd -b -c /etc/nginx/.htpasswd trainer {h}", "sshpass -p {h}"])
def test_a_command_that_begins_with_a_keyword_is_not_joined_to_the_prose_line_before(command: str) -> None:
    head, rest = "5A34QZC8gD", "2GavuMsOux"
    out = redact(f"RuntimeError: CUDA error: device-side assert triggered\n{command.format(h=head)}\n{rest}\n")
    assert head not in out and rest not in out
    assert "device-side assert triggered\n" in out


# ------------------------------------------------------------------------------------------------------------------
# Redaction's cost (kb/diagnose/redact: _Runs, _join_lines, _applicable; kb/knowledge/regex_reach.py). Each cut is a
# scan of less text that finds the same matches: these tests hold each to the whole scan it replaced.

from kb.diagnose.redact import RUN_MIN, _applicable, _join_lines, _Runs, token_rules  # noqa: E402
from kb.diagnose.redact.views import identity, joined  # noqa: E402
from kb.knowledge.regex_reach import regex_reach  # noqa: E402


@pytest.mark.parametrize(("source", "width", "one_word", "one_line"), [
    (r"[A-Za-z0-9]{24,200}", 24, True, True),
    (r"(?<![A-Za-z0-9 ])x{5}(?![A-Za-z0-9])", 5, True, True),  # a lookbehind may read a space: the text before a window
    (r"a\s", 2, False, False), (r"[^x]", 1, False, False), (r"[^\s\"']{3}", 3, True, True),
    (r"ab[^\n]", 3, False, False), (r"x(?=\s\S)", 3, False, False), (r"x$", 1, False, False),
    (r"(?=[a-z]{40})[a-z]", 40, True, True), (r"(?:abc|d)e", 2, True, True), (r"x*", 0, False, False),
    (r"(?a)\S+", 1, False, True), (r"\W", 1, False, False), (r"(?i:login)[ \t]-p", 8, False, True),
])
def test_regex_reach_reads_what_a_match_can_span(source: str, width: int, one_word: bool, one_line: bool) -> None:
    assert regex_reach(source) == (width, one_word, one_line)


def test_the_index_remembers_each_rules_reach_as_the_regex_gives_it() -> None:
    from kb.diagnose.redact.rules import secrets_table
    from kb.knowledge.index import load_index, remembered_reach

    load_index()
    remembered = remembered_reach(secrets_table())
    assert remembered is not None
    assert [tuple(r) for r in remembered] == [regex_reach(rule.regex) for rule in token_rules()]


def _corpus_sample() -> list[str]:
    from secret_corpus import forms

    return [f.text * 3 for f in forms()[::97]]  # (three times: each text over the window threshold's sizes too)


WORD = st.text("AbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/_-.=:@", min_size=1, max_size=70)
SEP = st.sampled_from([" ", "  ", "\n", "\t", "/", "\r\n", " \\\n", "=", ": ", "\u00a0", "\x1c", "\u3000"])
TEXT = st.lists(st.tuples(WORD, SEP), min_size=1, max_size=60).map(lambda parts: "".join(w + s for w, s in parts))


def _same_by_words(text: str) -> None:
    runs = _Runs(text)
    for rule in token_rules():
        windows = runs.windows(rule)
        if windows is not None:
            assert rule.matches(text, windows) == rule.matches(text), rule.id


def test_a_rule_scanned_on_long_words_finds_what_a_whole_scan_finds_in_the_corpus() -> None:
    windowed = 0
    for text in _corpus_sample():
        _same_by_words(text)
        windowed += 1
    assert windowed > 500
    assert sum(_Runs("x").windows(rule) is not None for rule in token_rules()) >= 30  # (the cut applies to many rules)


@settings(max_examples=150, deadline=None)
@given(TEXT)
def test_a_rule_scanned_on_long_words_finds_what_a_whole_scan_finds(text: str) -> None:
    _same_by_words(text)


def _same_by_joined_lines(text: str) -> None:
    view = joined(identity(text))
    if view is None:
        return
    lines = _join_lines(view)
    for rule in token_rules():
        if not rule.wraps or not rule.reach()[2]:
            continue
        whole = rule.matches(view.text)
        inside = [m for m in whole if any(a <= m[0] and m[1] <= b for a, b in lines)]
        assert rule.matches(view.text, lines) == inside, rule.id
        for start, end, _spans in whole:  # every match that touches a join lies in a window
            if any(start <= j <= end for j in view.joins):
                assert any(a <= start and end <= b for a, b in lines), rule.id


def test_a_wrapped_rule_scanned_on_the_joined_lines_finds_every_match_across_a_join_in_the_corpus() -> None:
    from secret_corpus import forms

    wrapped = [f.text for f in forms() if f.cls == "S4"][::23]
    assert len(wrapped) > 300
    for text in wrapped:
        _same_by_joined_lines(text)


@settings(max_examples=100, deadline=None)
@given(TEXT)
def test_a_wrapped_rule_scanned_on_the_joined_lines_finds_every_match_across_a_join(text: str) -> None:
    _same_by_joined_lines(text)


def _keywords() -> list[str]:
    return sorted({k for rule in token_rules() for k in rule.keywords})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_keywords()), st.text("abcdefghijklmnopqrstuvwxyz_-:/. 0123", max_size=6)),
                max_size=120))
def test_the_applicable_rules_are_those_whose_keyword_the_text_holds(pieces: list[str]) -> None:
    """_applicable's one scan of the screen (each hit's overlapping keywords) against each rule's own ``in``."""
    text = "".join(pieces)
    longest = max(map(len, text.split()), default=0)
    rules = token_rules()
    assert _applicable(rules, text, longest) == [rule for rule in rules if rule.applies(text, longest)]


# one long line (no line end) of what the cuts key on: every keyword of the table; long random-looking words (each a
# window); long words inside paths
LONG_LINE = [
    " ".join(f"{k}x1" for k in _keywords()) + " ",
    "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7b ",
    "/data/aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5/ckpt ",
    "key=aB3dE5fG7hI9 key=cD4eF6gH8iJ0 token=kL2mN4oP6qR8sT0u ",
]


@pytest.mark.parametrize("fragment", LONG_LINE, ids=["keywords", "long-words", "path-segments", "weak-names"])
def test_one_long_line_costs_what_ordinary_text_costs(fragment: str) -> None:
    """64 and 256 KiB on one line: no dearer a CPU second a MB than the dev set's reports, and linear."""
    from timing_support import assert_linear

    assert_linear(redact, fragment)


def test_the_run_threshold_is_below_the_keywordless_rules_widths() -> None:
    """Each rule without keywords (the ones every long text runs) is scanned by words: its width is RUN_MIN or more."""
    from kb.diagnose.redact import keywordless_rules

    assert all(rule.reach()[1] and rule.reach()[0] >= RUN_MIN for rule in keywordless_rules())

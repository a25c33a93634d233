"""Issue 26, turn 42's held-out red team (hostile42: the classes but wrapped tokens and line prefixes), as properties and
regressions.

The forms stay in tests/fixtures/secrets/forms.toml (entries with ``turn = 42``) and benchmarks/hostile_io_t42.py (the
command line); the first score and what was fixed are in benchmarks/results/hostile-turn42-other.txt. Here: every turn-42
form but the wrapped ones through redact() (the known gaps named one by one) and a fixed sample through `kb diagnose`;
the turn's token shapes (tables/secrets.toml vendor-prefixed-keys-t42, kubeadm-bootstrap-token) alone, anywhere in
text, and beside the words they must not take; a password given by its place (positional-credentials-t42) and a
crypt(3) hash (crypt-password-hash); the escapes kb/diagnose/redact/spellings.py reads (Perl's \\x{..}, Python's
\\U........, an HTML entity without its semicolon, Markdown's \\_, a form body's +); the new constructs linear; a cache
path that holds a control character.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from hostile_support import SETTINGS, alone, diagnose_leaks, redact_leaks, sample, turn_forms
from kb.diagnose.redact import redact
from kb.diagnose.redact.spellings import respelled
from kb.diagnose.redact.views import identity
from secret_corpus import _escaped42, fill
from test_redaction_properties import SHAPES, shown
from timing_support import assert_linear

T42 = [f for f in turn_forms(42) if f.cls != "S4"]  # (S4, the earlier wrap contexts over the new forms: wrap42's class)
NEW = [s for s in SHAPES if s.get("turn") == 42]

# Turn 42's forms (but S4) still leaking after its fixes (benchmarks/results/hostile-turn42-other.txt, "Known gaps"),
# listed so that a new leak fails this test and a gap closed is noticed. By class: a value that a CDATA section's `]]>`
# ends (the value rules want a space, a quote or the line's end after it); `net use` right after a colour (`36mnet`: no
# word start) or with a `\r` in its share's name that the JSON decoding reads as a carriage return; a 40-hex wandb key
# as a pip requirement's revision (a git commit's shape: masking it would mask every pinned commit); a value that pandas
# cut with "..." after a positional name (mc alias set's last word, a prompt's `[None]:`, a call's second argument);
# the earlier turns' names in the new escapes where the name's own context breaks (`::add-mask::` and `echo "..."`
# spelled with \U, `? api_key` and a NUL-separated argv with zero-padded entities, setattr's quoted name with &#34,
# mlflow's `key='db_password' ... value='...'` with &#X27;, a form body of a JSON string or of wandb's spaced row)
GAPS = {
    # (turn 48 closed json-escaped-inner@form-body-plus-t42: decoded to the end; turn 49 closed the rest but the W&B
    # key in a pip freeze, a commit's shape: tests/test_redaction_leaks49.py)
    # (turn 48 closed setattr-t39@html-no-semicolon-t42: rule huggingface-token-body-named)
    "wandb@pip-freeze-url-t42",
}


def test_every_turn42_form_is_redacted_but_the_named_gaps() -> None:
    leaked = set(redact_leaks(T42))
    assert len(T42) > 7000
    assert leaked <= GAPS, f"{len(leaked - GAPS)} new leaks: {sorted(leaked - GAPS)[:10]}"
    closed = GAPS - leaked
    assert not closed, f"gaps closed, take them off GAPS: {sorted(closed)}"


PIPELINE_GAPS: set[str] = set()


def test_a_sample_of_turn42_forms_prints_no_secret_through_diagnose() -> None:
    """One form in twelve (fixed by its id's CRC), every class but S4 represented, through the pipeline, text and JSON."""
    chosen = sample(T42, 12, GAPS | PIPELINE_GAPS)
    assert {f.cls for f in chosen} == {"S1", "S2", "S3", "S5"}
    leaked = diagnose_leaks(chosen)
    assert not leaked, f"{len(leaked)} of {len(chosen)} leak: {sorted(leaked.items())[:8]}"


def test_new_shapes_alone() -> None:
    assert len(NEW) >= 30
    for shape in NEW:
        text, body = alone(shape)
        assert not shown(body, redact(text)), shape["id"]


_AROUND = st.sampled_from(["", " ", "\t", "'", '"', "(", "[", "=", ": ", "/", "`", "\u00a0", "\n", "\\n", "%20", "&#39;"])


@SETTINGS
@given(shape=st.sampled_from(NEW), seed=st.text(min_size=1, max_size=6), before=_AROUND, after=_AROUND,
       head=st.text(st.characters(exclude_categories=("Cs",)), max_size=30),
       tail=st.text(st.characters(exclude_categories=("Cs",)), max_size=30))
def test_a_new_shape_anywhere_never_shows(shape: dict, seed: str, before: str, after: str, head: str, tail: str) -> None:
    """A token of each turn-42 shape (a fresh body each example) between any text and the usual separators."""
    body = fill(shape["body"], seed)
    token = shape["prefix"] + body + shape.get("suffix", "")
    text = f"{head} {before}{token}{after} {tail}"
    assert not shown(body, redact(text), head, tail), (shape["id"], text)


_SECRET = st.text(st.sampled_from("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"), min_size=14, max_size=30).filter(
    lambda s: any(c.isdigit() for c in s) and any(c.isupper() for c in s) and any(c.islower() for c in s)
    and len(set(s)) >= 10)  # (a key is random: a weak name's value must look it, 222222222222Aa does not)
POSITIONAL = [
    "net use \\\\fileserver\\runs {s} /user:CORP\\trainer", "net use Z: \\\\nas\\share {s}",
    'var c = new NetworkCredential("trainer", "{s}");', '$pw = ConvertTo-SecureString "{s}" -AsPlainText -Force',
    "$pw = ConvertTo-SecureString -String '{s}' -AsPlainText -Force", "htpasswd -b -c /etc/nginx/.htpasswd trainer {s}",
    "htpasswd -bc users.txt ci {s}", 'db.auth("trainer", "{s}")', 'server.login(user, "{s}")',
    "conn.simple_bind_s('cn=admin,dc=example,dc=test', '{s}')", 'requests.get(url, auth=HTTPBasicAuth("ci", "{s}"))',
    "http -a trainer:{s} GET https://api.example.test/runs", "https --auth=ci:{s} POST api.example.test/x",
    "smbclient //fileserver/runs -U trainer%{s}", "rpcclient -U 'CORP/ci%{s}' 10.0.0.5",
    "CREATE USER 'trainer'@'%' IDENTIFIED BY '{s}';", "ALTER ROLE trainer WITH LOGIN PASSWORD '{s}';",
    'CREATE USER ci IDENTIFIED BY "{s}"', '[{{"keyName": "key1", "permissions": "FULL", "value": "{s}"}}]',
    '{{"Name": "/prod/db", "Type": "SecureString", "Value": "{s}", "Version": 3}}',
]


@SETTINGS
@given(template=st.sampled_from(POSITIONAL), secret=_SECRET, escape=st.sampled_from([None, "json", "html"]))
def test_a_password_given_by_its_place_never_shows(template: str, secret: str, escape: str | None) -> None:
    import html
    import json

    text = template.format(s=secret)
    if escape == "json":
        text = '{"msg": ' + json.dumps(text) + "}"
    elif escape == "html":
        text = "<pre>" + html.escape(text) + "</pre>"
    assert not shown(secret, redact("ValueError: could not load the settings: " + text + "\n")), text


@pytest.mark.parametrize("text", [
    "trainer:$apr1$x8Kq2mZ1$Qw7Er5Ty3Ui1Op9As8Df6G\n", "root:$6$rounds=5000$saltsalt$Qw7Er5Ty3Ui1Op9As8Df6Gh4Jk2Lz0Xc:19000:0:99999:7:::",
    "ci:$2y$10$Qw7Er5Ty3Ui1Op9As8Df6Gh4Jk2Lz0XcVbNm1Qw2Er3Ty4Ui5Op6As7D\n", "u:$y$j9T$F5Jx5fExrKuPp53xLKQ..1$Qw7Er5Ty3Ui1Op9As8Df6G",
])
def test_a_crypt_hash_never_shows(text: str) -> None:
    assert not shown("Qw7Er5Ty3Ui1Op9As8Df6G", redact(text))


_ESCAPES42 = ["html-no-semicolon", "md-escape", "perl-hex-brace", "py-U8", "url-plus"]
_NAMED = ["DB_PASSWORD={s}", "--hub_token {s}", '{{"api_key": "{s}"}}', "export HF_TOKEN='{s}'", "db.password: {s}",
          "UPLOAD_SECRET = {s}"]


@SETTINGS
@given(how=st.sampled_from(_ESCAPES42), template=st.sampled_from(_NAMED), secret=_SECRET)
def test_a_value_beside_its_name_in_the_turns_escapes_never_shows(how: str, template: str, secret: str) -> None:
    """Masked when the text as written is (a weak name's value must look random either way)."""
    plain = template.format(s=secret)
    assume(not shown(secret, redact(f"ValueError: could not load the run's settings: {plain}\n")))
    text = _escaped42(plain, how)
    if how == "url-plus":  # (quote_plus writes a form body's or a query's value; a flag glued to its `=`,
        text = "POST /report\n\ntext=run+" + text  # text=--hub_token, is no flag to the name rule, encoded or not)
    assert not shown(secret, redact(f"ValueError: could not load the run's settings: {text}\n")), text


@pytest.mark.parametrize(("text", "plain"), [
    ("a\\x{3d}b", "a=b"), ("\\U0000003d!", "=!"), ("x&#61y &#611 &#x3Da", "x=y =1 =a"), ("HF\\_TOKEN", "HF_TOKEN"),
    ("text=a+b%3Dc", "text=a b%3Dc"), ("&#x1F600", "\U0001f600"), ("\\U0010ffff \\x{d800}", "\U0010ffff \\x{d800}"),
])
def test_respelled_decodes_and_maps_back(text: str, plain: str) -> None:
    view = respelled(identity(text))
    assert view is not None and view.text == plain
    assert view.original_span(0, len(plain)) == (0, len(text))


@pytest.mark.parametrize("text", [
    "a + b = c", "1e+03", "x+y=z", "step=1 loss=2.31+0.1", "cafe&#233", "snake\\_case in a markdown note", "pk_12",
    "md-file-name-generator-x", "oauth:none", "cs_rank_index", "ck_pt", "version 1.2.3.4", "torch.nn.functional.softmax",
    "module1.submodule2abcdef", "net use is blocked by policy", "login(user, password)", 'auth("user", pw)',
    "IDENTIFIED BY PASSWORD", "http -a", "the password '' is empty", "sec-c-", "GOOG1E", "DO00", "K10",
])
def test_words_near_the_new_shapes_and_names_are_kept(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("fragment", [
    "net use \\\\a ", "http -a ", "htpasswd -b ", "NetworkCredential(\"a\", ", "IDENTIFIED BY '", '"keyName": "k" ',
    '"SecureString" ', "smbclient -U ", "$apr1$", "=" + "a" * 300 + "+", "&#61", "&#6", "\\x{3d}", "\\U0000003d", "\\_",
    "abc123.", "a1b2c3.d4e5f6g7h8i9j0k1", "_|WARNING:-DO-NOT-SHARE-THIS.", "AAAAAAAAAA", "md-", "6L",
])
def test_the_turns_constructs_stay_linear(fragment: str) -> None:
    """64 KiB and 256 KiB of each: under 3 CPU seconds a MB, the larger not more than 6 times the smaller."""
    assert_linear(redact, fragment)


@pytest.mark.parametrize("env", [{"XDG_CACHE_HOME": "/tmp/kb-t42-nl\n"}, {"KB_CACHE_DIR": "/tmp/kb\x1b]0;t\x07"},
                                 {"XDG_CACHE_HOME": "/tmp/a\tb"}])
def test_a_cache_path_with_a_control_character_means_no_cache(monkeypatch, env: dict[str, str]) -> None:
    from kb.knowledge.index import _cache_dir

    for name in ("KB_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert _cache_dir() is None
    monkeypatch.setenv(next(iter(env)), "/tmp/kb-t42-fine")
    assert _cache_dir() is not None

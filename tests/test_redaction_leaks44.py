"""Issue 26, turn 44 (leaks44): the secret corpus's wrapped forms (S4) that still leaked through redact() after turn 43
(benchmarks/results/hostile-turn44-leaks.txt), one test per class:

- a shape whose rule was not looked for across a wrap (tables/secrets.toml's ``wraps``): an FTP ``PASS`` or SMTP ``AUTH
  PLAIN`` a client's debug log quotes, a crypt(3) hash of an .htpasswd or /etc/shadow line, cut by a terminal's width,
  under a launcher's prefix, a timestamp or a CRI record;
- a base64 value beside a secret's name (a WireGuard ``PrivateKey = ...=``) wrapped before its padding ``=``: the rest
  on the next line holds an ``=`` and was read as the next line's setting (``NAME=value``).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kb.diagnose.redact import redact
from secret_corpus import closed_forms_test
from test_redaction_properties import SETTINGS, shown

# the corpus's forms each class closed (their ids: tests/fixtures/secrets/forms.toml's named form @ placement)
CLOSED = [
    "ftp-pass-t39@dump-wrapped", "ftp-pass-t39@message-wrapped-rank", "ftp-pass-t39@journalctl-wrap-t38",
    "ftp-pass-t39@shell-continuation-wrap-t38", "ftp-pass-t39@cri-partial-t40", "ftp-pass-t39@docker-json-split-t40",
    "ftp-pass-t39@wandb-wrap-t40", "ftp-pass-t39@mpirun-prefix-wrap-t41", "ftp-pass-t39@srun-label-wrap-t41",
    "ftp-pass-t39@pdsh-prefix-wrap-t42", "ftp-pass-t39@compose-prefix-wrap-t42", "ftp-pass-t39@gha-timestamp-wrap-t42",
    "smtp-auth-plain-t39@cri-partial-t40", "smtp-auth-plain-t39@wandb-wrap-t40", "smtp-auth-plain-t39@srun-label-wrap-t41",
    "htpasswd-line-t42@dump-wrapped", "htpasswd-line-t42@message-wrapped-rank", "htpasswd-line-t42@journalctl-wrap-t38",
    "htpasswd-line-t42@shell-continuation-wrap-t38", "htpasswd-line-t42@cri-partial-t40",
    "htpasswd-line-t42@docker-json-split-t40", "htpasswd-line-t42@wandb-wrap-t40", "htpasswd-line-t42@mpirun-prefix-wrap-t41",
    "htpasswd-line-t42@srun-label-wrap-t41", "htpasswd-line-t42@gha-timestamp-wrap-t42",
    "htpasswd-line-t42@tab-continuation-t42",
    "wireguard-privatekey-t39@dump-wrapped", "wireguard-privatekey-t39@message-wrapped-rank",
    "wireguard-privatekey-t39@journalctl-wrap-t38", "wireguard-privatekey-t39@wandb-wrap-t40",
    "wireguard-privatekey-t39@srun-label-wrap-t41", "wireguard-privatekey-t39@tab-continuation-t42",
    "wireguard-privatekey-t39@srun-fold-40-t42",
]


test_the_corpus_forms_this_turn_closed_show_no_secret = closed_forms_test(CLOSED)


# what starts the line after a wrap: a launcher's prefix both lines carry, W&B's, a timestamp, a shell's continuation
WRAPS = [("[rank0]: ", "\n[rank0]: "), ("wandb: ", "\nwandb: "), ("0: ", "\n0: "), ("", "\n"), ("", "\r\n"),
         ("2026-11-27T05:00:01.1234567Z ", "\n2026-11-27T05:00:01.1235012Z "), ("", "\n\t")]
MESSAGE = "ValueError: could not load the run's settings: "
# a random secret whose first 8 characters are not lower-case letters alone: a line that ends in such a word reads as
# a sentence's end (``triggered``), which joined() leaves alone by design
_RANDOM = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
SECRET = st.text(_RANDOM, min_size=16, max_size=40).filter(
    lambda v: any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(c.islower() for c in v)
    and not v[:8].islower())
COMMANDS = ["*cmd* 'PASS {s}'", "> PASS {s}", "trainer:$apr1$x8Kq2mZ1${s}", "root:$6$rounds=5000$saltsalt${s}:19000:0:99999:7:::",
            "alice:$y$j9T$F5Jx5fExrKuPp53xLKQ..1${s}", "*cmd* 'AUTH PLAIN {s}'"]


@given(command=st.sampled_from(COMMANDS), secret=SECRET, wrap=st.sampled_from(WRAPS), cut=st.integers(8, 32))
@SETTINGS
def test_a_protocol_credential_or_a_password_hash_cut_by_a_wrap_never_shows(command: str, secret: str,
                                                                           wrap: tuple[str, str], cut: int) -> None:
    """A rule that was not looked for across a wrap (FTP PASS, SMTP AUTH, a crypt hash): its secret cut anywhere,
    8 characters or more on the first line, under any continuation."""
    cut = min(cut, len(secret) - 8)
    line = wrap[0] + MESSAGE + command.format(s=secret)
    at = line.index(secret) + cut
    text = "RuntimeError: CUDA error: device-side assert triggered\n" + line[:at] + wrap[1] + line[at:] + "\n"
    out = redact(text)
    assert not shown(secret, out), (text, out)


BASE64 = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", min_size=42, max_size=43).filter(
    lambda v: any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(c.islower() for c in v))
SETTINGS_LINES = ["PrivateKey = {s}", "PresharedKey = {s}", "password: {s}", "api_key={s}", "client_secret = '{s}'",
                  "HF_TOKEN={s}"]


@given(setting=st.sampled_from(SETTINGS_LINES), body=BASE64, wrap=st.sampled_from(WRAPS), cut=st.integers(8, 34))
@SETTINGS
def test_a_base64_value_wrapped_before_its_padding_never_shows(setting: str, body: str, wrap: tuple[str, str],
                                                               cut: int) -> None:
    """A value beside a secret's name, base64 with its padding (43 or 42 characters and ``=`` or ``==``), cut by a wrap:
    the rest on the next line ends in ``=``, which is no setting's ``NAME=``."""
    secret = body + "=" * (44 - len(body))
    line = wrap[0] + MESSAGE + setting.format(s=secret)
    at = line.index(secret) + min(cut, len(body) - 8)
    text = "RuntimeError: CUDA error: device-side assert triggered\n" + line[:at] + wrap[1] + line[at:] + "\n"
    out = redact(text)
    assert not shown(secret.rstrip("="), out), (text, out)


@pytest.mark.parametrize("text", [
    # the next line's setting after a value that ends a line: still a setting (its name has no padding's shape)
    "ValueError: could not load the run's settings: PrivateKey = AbC3dEfG5hIjK7lMnO9pQrS1tUvW3xYz5a\nWANDB_MODE=offline\n",
    "[rank0]: ValueError: could not load the run's settings: password: Xy7Kp2Lm9Qw3Rt5Vb8Nc\n[rank0]: retries=3\n",
])
def test_the_next_lines_setting_after_a_value_stays(text: str) -> None:
    out = redact(text)
    assert "WANDB_MODE=offline" in out or "retries=3" in out, out


@pytest.mark.parametrize("text", [
    "ftp.login(): 230 Login successful\n*cmd* 'PASV'\n*resp* '227 Entering Passive Mode (127,0,0,1,4,1)'\n",
    "Traceback (most recent call last):\n  File \"train.py\", line 5, in <module>\n    passes = compute_pass_count(config)\n",
])
def test_logs_with_no_credential_stay_whole(text: str) -> None:
    assert redact(text) == text


# ------------------------------------------------- a quoted value cut at (or one before) its end: the quote wraps
CLOSED_QUOTED = [
    "auth-tuple@wrap-after-value-t40", "az-keys-sibling-value-t42@wrap-after-value-t40",
    "configparser-set-t39@compose-prefix-wrap-t42", "configparser-set-t39@dump-wrapped",
    "configparser-set-t39@wrap-after-value-t40", "dotnet-network-credential-t42@wrap-after-value-t40",
    "http-basic-auth@wrap-after-value-t40", "java-builder-t41@wrap-one-before-end-t40",
    "k8s-env-json@wrap-after-value-t40", "mongo-db-auth-t42@wrap-after-value-t40", "php-define-t42@wrap-after-value-t40",
    "php-define-t42@wrap-one-before-end-t40", "powershell-securestring-t42@wrap-after-value-t40",
    "setattr-t39@rich-soft-wrap-t39", "setattr-t39@wrap-after-value-t40", "setattr-t39@wrap-one-before-end-t40",
    "smtp-login-t42@wrap-after-value-t40", "sql-identified-by-t42@rich-soft-wrap-t39",
    "sql-identified-by-t42@wrap-after-value-t40", "sql-with-password-t42@wrap-after-value-t40",
    "sshpass@wrap-after-value-t40", "terraform-old-new-name-t39@wrap-after-value-t40",
    "terraform-old-new-name-t39@wrap-one-before-end-t40", "xml-element@wrap-after-value-t40",
]


test_the_corpus_forms_with_a_quote_after_the_wrap_show_no_secret = closed_forms_test(CLOSED_QUOTED)


QUOTED = ['setattr(args, "hub_token", "{s}")', "auth=('trainer', '{s}')", 'config.set("hub", "password", "{s}")',
          "sshpass -p '{s}' ssh trainer@gpu-box", "<credentials><password>{s}</password></credentials>",
          '{{"name": "WANDB_API_KEY", "value": "{s}"}}', "CREATE USER 'trainer'@'%' IDENTIFIED BY '{s}';",
          'db.auth("trainer", "{s}")', "define( 'DB_PASSWORD', '{s}' );"]


@given(form=st.sampled_from(QUOTED), secret=SECRET, wrap=st.sampled_from(WRAPS), back=st.integers(0, 7))
@SETTINGS
def test_a_quoted_value_cut_at_its_end_never_shows(form: str, secret: str, wrap: tuple[str, str], back: int) -> None:
    """A value between quotes (or an XML element's text) beside a secret's name, cut by a wrap at its end or a few
    characters before it: the next line starts with the closing quote or tag, or a rest shorter than a token's look."""
    line = wrap[0] + MESSAGE + form.format(s=secret)
    at = line.index(secret) + len(secret) - back
    text = "RuntimeError: CUDA error: device-side assert triggered\n" + line[:at] + wrap[1] + line[at:] + ", retrying\n"
    out = redact(text)
    assert not shown(secret, out), (text, out)


@pytest.mark.parametrize("text", [
    # a sentence that ends a line before a quoted word on the next: no value, nothing masked
    "[rank0]: ValueError: could not load the run's settings from the file configuration\n[rank0]: 'train.yaml'\n",
    "    print(\"Loading the checkpoint shards of the model from disk\n\")\n",
    "<config><name>llama-3-8b-instruct-finetuned-on-alpaca</name>\n</config>\n",
])
def test_a_quote_or_a_tag_that_starts_a_line_joins_no_prose(text: str) -> None:
    assert redact(text) == text


# ------------------------------------------------- a fold whose every piece after the first starts with srun -l's prefix
CLOSED_FOLDS = ["camel-account-key@srun-fold-40-t42", "configparser-set-t39@srun-fold-40-t42",
                "flag-api-key@srun-fold-40-t42", "json-password-spaces@srun-fold-40-t42", "ruby-hash-rocket@srun-fold-40-t42",
                "smbclient-user-percent-t42@srun-fold-40-t42", "value-with-spaces-in-repr@srun-fold-40-t42"]


test_the_corpus_forms_folded_under_a_prefix_show_no_secret = closed_forms_test(CLOSED_FOLDS)


FOLDED = ['{{"user": "trainer", "password": "{s}"}}', "accelerate launch train.py --api-key {s}",
          "storage = BlobClient(accountKey='{s}')", '{{:user => "trainer", :password => "{s}"}}',
          'config.set("hub", "password", "{s}")', "HF_TOKEN={s} python train.py"]


@given(form=st.sampled_from(FOLDED), secret=SECRET, width=st.integers(24, 64), prefix=st.sampled_from(["0: ", "1: "]))
@SETTINGS
def test_a_setting_folded_under_a_launchers_prefix_never_shows(form: str, secret: str, width: int, prefix: str) -> None:
    """`srun -l` over a narrow pane: the line (its prefix within the width) cut every ``width`` characters, each piece
    after the first under the prefix again, so that a name or a value is cut anywhere."""
    from hypothesis import assume

    from secret_corpus import _folded

    line = prefix + MESSAGE + form.format(s=secret)
    # two full pieces at least: a line cut once, its rest shorter, reads as two lines of a log (unfolded()'s measure: a
    # line as long as the one before or after it), as before this turn
    assume(len(line) > 2 * width)
    text = _folded(line + "\n", width, prefix=prefix)
    out = redact(text)
    assert not shown(secret, out), (text, out)


# ------------------------------------------------- quoted-printable with no encoded `=`, or a name's UTF-8 bytes encoded
CLOSED_QP = ["aws-configure-set-t39@quoted-printable-t39", "conda-token-path-t39@quoted-printable-t39",
             "contrasena-t41@quoted-printable-t39", "homoglyph-name@quoted-printable-t39",
             "npm-config-set-space-t40@quoted-printable-t39"]


test_the_corpus_forms_in_quoted_printable_show_no_secret = closed_forms_test(CLOSED_QP)


QP_FORMS = ["aws_secret_access_key = {s} --profile train", "contraseña={s}", "pаssword = {s}",
            "npm config set //registry.npmjs.org/:_authToken {s}", "clé_api: {s}", "HF_TOKEN {s}"]


@given(form=st.sampled_from(QP_FORMS), secret=SECRET, header=st.booleans(), pad=st.integers(0, 40))
@SETTINGS
def test_a_setting_in_quoted_printable_never_shows(form: str, secret: str, header: bool, pad: int) -> None:
    """A log quoted by a mail (quopri: soft line breaks at 76 characters, non-ASCII letters as their UTF-8 bytes),
    with or without its MIME header, whether or not the text held an `=` that the encoding wrote as ``=3D``."""
    import quopri

    line = "ValueError: could not load the run's settings: " + "x" * pad + " " + form.format(s=secret)
    encoded = quopri.encodestring(line.encode()).decode()
    from hypothesis import assume

    # (the encoding is what is tested: the line as written masks the secret; a QP text with no mark of its encoding,
    # neither an encoded `=`, a header, nor a soft break at full width, is read as it is)
    assume(not shown(secret, redact(line)))
    assume(header or "=3D" in encoded or "=\n" in encoded)
    text = ("Content-Transfer-Encoding: quoted-printable\n\n" if header else "") + encoded + "\n"
    out = redact(text)
    assert not shown(secret, out), (text, out)


@pytest.mark.parametrize("fragment", [
    "[rank0]: ValueError: could not load the run's settings: password '" + "aB3dE5gH7jK9" + "\n[rank0]: '\n",
    "'a" * 300 + "\n'", "<password>" + "aB3d" * 10 + "\n</password>\n", "0: " + "x" * 40 + "\n", "0:  " + "y" * 40 + "\n",
    "y" * 75 + "=\n", "=D0=\n=B0" + "x" * 66 + "=\n", "Content-Transfer-Encoding: quoted-printable\n=C3=B1=3D",
])
def test_the_turns_constructs_stay_linear(fragment: str) -> None:
    """64 and 256 KiB of a fragment the new parts key on (a quote or a closing tag after a wrap, a fold under a
    launcher's prefix, quoted-printable's soft breaks and UTF-8 bytes): no dearer a CPU second a MB than the dev set's
    own reports, and linear (tests/timing_support.py)."""
    from timing_support import assert_linear

    assert_linear(redact, fragment)

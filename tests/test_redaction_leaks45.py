"""Issue 26, turn 45 (leaks45): the secret corpus's forms that still leaked through redact() after turn 44
(benchmarks/results/hostile-turn45-leaks.txt), closed by class, one test (a property where it fits) per class:

- a token shape kb read only by how random it looks, which a path hides: Grafana's legacy API key (``eyJrIjoi``),
  Artifactory's reference token (``cmVmdGtu``), neptune.ai's token (``eyJhcGlfYWRkcmVzcyI6``), Google's ``4/0A`` code
  after a ``/``; and a random key that is a whole segment of a URL's path or a file path (an AWS secret, a Cohere or
  Mistral key), or a URL's user, wrapped right after itself or not;
- a UTF-8 character's escaped bytes (a bytes repr's ``contrase\\xc3\\xb1a``, C's octal ``\\357\\274\\232``) and a
  shell's backslash before full-width punctuation (``password\\：``): a non-ASCII name read as it is written;
- key contexts kb knew nothing of (a random-looking value was masked, a wordy one printed): a flag's value as argv's
  next item (NUL-separated, or a list's quoted item), YAML's explicit key, make's ``?=``, GitHub's ``::add-mask::``, a
  value echoed or here-string'd into ``--password-stdin``/``--with-token``, ``mc alias set``'s secret key;
- (leaks44's known limit) a value beside a secret's name whose first characters are letters of one case, cut by a wrap
  right after them (``PrivateKey = aaaaaaab`` / ``1234...=``): the line read as a sentence's end.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from kb.diagnose.redact import redact
from kb.diagnose.redact.rules import random_word
from secret_corpus import closed_forms_test
from secret_corpus import form as corpus_form
from test_redaction_properties import SETTINGS, shown

# the corpus's forms this turn closed (tests/fixtures/secrets/forms.toml's shape or named form @ context or placement)
CLOSED = [
    "artifactory-reference@urllib3-path-t40", "aws-secret-access-key@urllib3-path-t40",
    "aws-secret-slash-first@urllib3-path-t40", "cohere-bare@urllib3-path-t40", "google-oauth-code@git-remote-v-t39",
    "google-oauth-code@urllib3-path-t40", "grafana-api-key-legacy@urllib3-path-t40", "mistral-bare@urllib3-path-t40",
    "neptune-api-token@git-remote-v-t39", "neptune-api-token@urllib3-path-t40", "pem-body-bare-ec@git-remote-v-t39",
    "pem-body-bare-ec@urllib3-path-t40", "argv-list-repr-t39@buildkit-step-t40",
    "java-properties-space-t41@cr-only-t41", "mc-alias-set-t42@cdata-t42", "net-use-t42@gitlab-section-t40",
    "add-mask-t39@py-u8-t42", "contrasena-t41@bytes-repr-t39", "contrasena-t41@http-send-bytes-t40",
    "echo-password-stdin-t39@py-u8-t42", "fullwidth-colon@bytes-repr-t39", "fullwidth-colon@http-send-bytes-t40",
    "fullwidth-colon@octal-t41", "fullwidth-colon@shell-q-t39", "gh-with-token-herestring-t40@shell-q-t39",
    "hf-auth-login-t40@html-named-t41", "hf-auth-login-t40@json-log-t38", "homoglyph-name@bytes-repr-t39",
    "homoglyph-name@http-send-bytes-t40", "makefile-qmark-t41@dotnet-json-t41", "markdown-row-t41@html-hex-t39",
    "mc-alias-set-t42@go-json-t38", "mc-alias-set-t42@html-dec-zeropad-t42", "net-use-t42@sgr-kv-t38",
    "proc-cmdline-nul-t40@html-dec-zeropad-t42", "yaml-explicit-key-t39@html-dec-zeropad-t42",
    "yaml-explicit-key-t39@php-json-t39", "argv-list-repr-t39@shell-continuation-wrap-t38",
    "artifactory-reference@wrap-after-token-rank-t40", "artifactory-reference@wrap-after-token-rich-t40",
    "artifactory-reference@wrap-after-token-t40", "aws-secret-access-key@wrap-after-token-rank-t40",
    "aws-secret-access-key@wrap-after-token-rich-t40", "aws-secret-access-key@wrap-before-at-t40",
    "aws-secret-slash-first@wrap-after-token-rank-t40", "aws-secret-slash-first@wrap-after-token-rich-t40",
    "aws-secret-slash-first@wrap-after-token-t40", "aws-secret-slash-first@wrap-before-at-t40",
    "basic-auth-url-symbols@wrap-after-token-rich-t40", "gcp-private-key-json@rich-soft-wrap-t39",
    "gh-with-token-herestring-t40@wrap-after-value-t40", "google-oauth-code@wrap-after-token-rank-t40",
    "google-oauth-code@wrap-after-token-rich-t40", "google-oauth-code@wrap-after-token-t40",
    "google-oauth-code@wrap-before-at-t40", "grafana-api-key-legacy@wrap-after-token-rank-t40",
    "grafana-api-key-legacy@wrap-after-token-rich-t40", "grafana-api-key-legacy@wrap-after-token-t40",
    "helm-set-t39@rich-soft-wrap-t39", "hf-auth-login-t40@rich-soft-wrap-t39", "hf-auth-login-t40@zwsp-break-t41",
    "mc-alias-set-t42@docker-json-split-t40", "neptune-api-token@wrap-after-token-rank-t40",
    "neptune-api-token@wrap-after-token-rich-t40", "neptune-api-token@wrap-after-token-t40",
    "neptune-api-token@wrap-before-at-t40", "pem-body-bare@fold-40-t42", "pem-body-bare@fold-80-crlf-t39",
    "pem-rsa@fold-40-t42", "proc-cmdline-nul-t40@cri-partial-t40", "xml-element@rich-soft-wrap-t39",
    "artifactory-reference@file-path", "artifactory-reference@hub-repo-id", "google-oauth-code@file-path",
    "google-oauth-code@hub-repo-id", "grafana-api-key-legacy@file-path", "grafana-api-key-legacy@hub-repo-id",
    "neptune-api-token@file-path", "neptune-api-token@hub-repo-id",
]


test_the_corpus_forms_this_turn_closed_show_no_secret = closed_forms_test(CLOSED)


ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _mixed(v: str) -> bool:
    return any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(c.islower() for c in v)


# where kb reads a path: a URL's path, a file's path, a repository id in a hub URL, a URL's user; and each wrapped right
# after the token (the next line starts with the path's rest or the host)
PLACES = [
    'DEBUG:urllib3.connectionpool:https://api.example.test:443 "POST /v1/uploads/{t}/complete HTTP/1.1" 401 52',
    "FileNotFoundError: [Errno 2] No such file or directory: '/data/{t}/train.jsonl'",
    "Repository Not Found for url: https://huggingface.co/api/models/trainer/{t}/revision/main.",
    "origin\thttps://{t}@git.example.test/team/sft.git (fetch)",
    "RuntimeError: upload failed for https://api.example.test/u/{t}\n/files (status 401)",
    "[rank0]: RuntimeError: upload failed for https://api.example.test/u/{t}\n[rank0]: /files (status 401)",
    "fatal: unable to access 'https://{t}\n@git.example.test/team/sft.git/': The requested URL returned error: 403",
]
NEPTUNE = "eyJhcGlfYWRkcmVzcyI6Imh0dHBzOi8vYXBwLm5lcHR1bmUuYWkiLCJhcGlfdXJsIjoiaHR0cHM6Ly9hcHAubmVwdHVuZS5haSIsImFwaV9rZXkiOiI"


@st.composite
def prefixed_tokens(draw: st.DrawFn) -> tuple[str, str]:
    """(token, its secret part) of a shape with a fixed prefix that kb read only by chance in a path."""
    kind = draw(st.sampled_from(["grafana", "artifactory", "neptune", "google"]))
    if kind == "grafana":
        body = draw(st.text(ALNUM, min_size=70, max_size=120).filter(_mixed))
        return "eyJrIjoi" + body, body
    if kind == "artifactory":
        body = draw(st.text(ALNUM, min_size=56, max_size=56).filter(_mixed))
        return "cmVmdGtu" + body, body
    if kind == "neptune":
        body = draw(st.text(ALNUM + "+", min_size=44, max_size=60).filter(_mixed))
        return NEPTUNE + body + "In0=", body
    body = draw(st.text(ALNUM + "_-", min_size=40, max_size=90).filter(_mixed))
    return "4/0A" + body, body


@given(token=prefixed_tokens(), place=st.sampled_from(PLACES))
@SETTINGS
def test_a_prefixed_token_in_a_path_or_a_urls_user_never_shows(token: tuple[str, str], place: str) -> None:
    whole, secret = token
    text = place.format(t=whole) + "\n"
    out = redact(text)
    assert not shown(secret, out), (text, out)


# a random key as a whole segment: what the class means by random is the key-name rule's measure (random_word, as
# generic-high-entropy-token's min_entropy applies it); ~1.5 % of drawn keys read as words and are not this class
RANDOM_KEYS = st.text(ALNUM + "+", min_size=32, max_size=64).filter(lambda v: _mixed(v) and random_word(v, 3.9))


@given(key=RANDOM_KEYS, place=st.sampled_from(PLACES))
@SETTINGS
def test_a_random_key_as_a_whole_path_segment_never_shows(key: str, place: str) -> None:
    text = place.format(t=key) + "\n"
    out = redact(text)
    assert not shown(key, out), (text, out)


@pytest.mark.parametrize("text", [
    # a commit, a digest, a cache's hash (one case), a model's or a class's name (words), a file's random stem: kept
    "OSError: https://huggingface.co/meta-llama/Llama-2-7b-hf/resolve/8cca527612d856d7d32bd94f8103728d614eb852/config.json",
    "blob: /root/.cache/huggingface/hub/models--gpt2/blobs/sha256-6c0e1f8ab9f1a0c8d3ffd0a1b2c3d4e5f60718293a4b5c6d7e8f9",
    "cache: /root/.triton/cache/FKZ3QYJ2W6XPE4TLDQ2N7LQ5K3JHVYQX6AMN2RJ6UYTQAJ6DA3ZA/matmul_kernel.cubin",
    "Loading https://huggingface.co/api/models/TheBloke/Llama2Chat7BGPTQModelForCausalLM4bit/revision/main",
    "saved to /workspace/runs/Qwen2VLForConditionalGenerationWithLoRA2Adapters/checkpoint-500",
    "FileNotFoundError: '/data/uploads/AbC3dEfG5hIjK7lMnO9pQrS1tUvW3xYz5a.safetensors'",
])
def test_a_path_segment_of_words_or_hex_or_a_file_name_is_kept(text: str) -> None:
    assert redact(text) == text


# a secret-like name written with non-ASCII letters (Spanish, a Cyrillic а, Swedish) or a full-width separator
NAMES = ["contraseña=", "pаssword = ", "lösenord: ", "password：", "hasło="]


def _octal(text: str) -> str:
    return "".join(c if c.isascii() else "".join(f"\\{b:03o}" for b in c.encode()) for c in text)


ENCODINGS = {
    "bytes-repr": lambda t: "b'" + repr(t.encode())[2:-1] + "'",
    "http-send": lambda t: "send: b'POST /v1/runs HTTP/1.1\\r\\nHost: api.example.test\\r\\n" + repr(t.encode())[2:-1]
                           + "\\r\\n\\r\\n'",
    "octal": lambda t: '"' + _octal(t) + '"',
    "shell-q": lambda t: "".join("\\" + c if not (c.isalnum() or c in "_-./:@%+,") else c for c in t),
}
VALUES = st.text(ALNUM, min_size=12, max_size=32).filter(lambda v: any(c.isalpha() for c in v) and any(
    c.isdigit() for c in v))


@given(name=st.sampled_from(NAMES), value=VALUES, how=st.sampled_from(sorted(ENCODINGS)))
@SETTINGS
def test_a_non_ascii_name_in_escaped_bytes_never_shows_its_value(name: str, value: str, how: str) -> None:
    text = "ValueError: could not load the run's settings: " + ENCODINGS[how](name + value) + "\n"
    out = redact(text)
    assert not shown(value, out), (text, out)


# contexts that say a value is a secret, whatever it looks like (a value with a letter and a digit: not code, not a number)
CONTEXTS = [
    "subprocess.CalledProcessError: Command '['python', 'upload.py', '--hub-credential', '{v}', '--private']' returned "
    "non-zero exit status 1.",
    "cmdline: python\x00train.py\x00--db-password\x00{v}\x00--epochs\x003\x00",
    "? api_key\n: {v}",
    "DB_PASSWORD ?= {v}",
    "::add-mask::{v}",
    'echo "{v}" | docker login registry.example.test -u ci --password-stdin',
    "echo {v} | helm registry login registry.example.test --username ci --password-stdin",
    "gh auth login --with-token <<< {v}",
    "mc alias set local http://127.0.0.1:9000 trainer {v}",
    "hf auth login --token {v} --add-to-git-credential",
    "huggingface-cli login --token={v}",
    "docker login --username ci --password {v} registry.example.test",
    # a row of a name and its value that a CR-only line end or an HTML tag closes
    "ValueError: could not load the run's settings: db.password {v}\rRuntimeError: giving up\r",
    "<td>| DB_PASSWORD | {v} |</td>",
]
FRAMES = {
    "plain": lambda t: "RuntimeError: CUDA error: device-side assert triggered\n" + t + "\n",
    "quoted": lambda t: "ValueError: could not load the run's settings: '" + t.replace("\n", "\\n") + "'\n",
    "json-log": lambda t: json.dumps({"log": t, "stream": "stderr"}) + "\n",
    "html-entities": lambda t: "<pre>" + "".join(c if c.isalnum() else f"&#{ord(c):05d};" for c in t) + "</pre>\n",
}
WORDY_VALUES = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=10, max_size=32).filter(
    lambda v: any(c.isalpha() for c in v) and any(c.isdigit() for c in v))


@given(context=st.sampled_from(CONTEXTS), value=st.one_of(VALUES, WORDY_VALUES), frame=st.sampled_from(sorted(FRAMES)))
@SETTINGS
def test_a_value_in_a_secret_context_never_shows_whatever_it_looks_like(context: str, value: str, frame: str) -> None:
    text = FRAMES[frame](context.format(v=value))
    out = redact(text)
    # (pieces the frame holds without the value are not the value's: `&#00000;` shows 00000000)
    assert not shown(value, out, FRAMES[frame](context.format(v=""))), (text, out)


@pytest.mark.parametrize("text", [
    # the contexts' variables, the next flag, settings that are not secrets: kept
    "+ echo $REGISTRY_PASSWORD | docker login registry.example.test -u ci --password-stdin\n",
    "+ gh auth login --with-token <<< \"$GH_TOKEN\"\n",
    "::add-mask::${{ secrets.HF_TOKEN }}\n",
    "Command '['python', 'train.py', '--no-password', '--output_dir', 'out-2024-01', '--epochs', '3']' returned 1.\n",
    "cmdline: python\x00train.py\x00--output_dir\x00runs/llama-7b\x00--max_steps\x00500\x00\n",
    "? model_name\n: llama-2-7b-hf\n",
    "DEBUG ?= 1\nCUDA_VISIBLE_DEVICES ?= 0,1\n",
    "mc alias set local http://127.0.0.1:9000 $MINIO_ACCESS_KEY $MINIO_SECRET_KEY\n",
    "+ huggingface-cli login --token $HF_TOKEN --add-to-git-credential\n",
    "usage: hf auth login [--token TOKEN] [--add-to-git-credential]\n",
    "Loading checkpoint shards: 100%\rdb.name llama_sft\rRuntimeError: giving up\r",
])
def test_the_contexts_variables_and_other_settings_are_kept(text: str) -> None:
    assert redact(text) == text


# a command whose first word follows a colour (structlog's, rich's key=value colours): read without the colours, nothing
# decoded (a Windows path's backslashes are not escapes there)
COLOURED = ["net use \\\\fileserver\\runs {v} /user:CORP\\trainer", "mc alias set local http://127.0.0.1:9000 trainer {v}",
            "hf auth login --token {v}", 'echo "{v}" | docker login registry.example.test -u ci --password-stdin']


@given(command=st.sampled_from(COLOURED), value=st.one_of(VALUES, WORDY_VALUES), colour=st.sampled_from(
    ["\x1b[36m", "\x1b[1;35m", "\x1b[0m\x1b[2m"]))
@SETTINGS
def test_a_command_after_a_colour_never_shows_its_secret(command: str, value: str, colour: str) -> None:
    text = "2024-05-01 12:00:00 [error    ] settings loaded " + colour + command.format(v=value) + "\x1b[0m\n"
    out = redact(text)
    assert not shown(value, out), (text, out)


@given(head=VALUES, tail=VALUES, escape=st.sampled_from(["%40", "%21", "%23", "%2F"]))
@SETTINGS
def test_a_urls_escaped_password_wrapped_under_colours_never_shows(head: str, tail: str, escape: str) -> None:
    """A password with a URL escape (``%40`` is an ``@``: the decoded view ends the password there), its URL cut by a
    wrap right before the ``@host`` under colour codes: read as the terminal shows it, without the colours."""
    password = head + escape + tail
    text = ("\x1b[31mRuntimeError: upload failed for https://ci-bot:" + password + "\x1b[0m\n\x1b[31m"
            "@artifacts.example.test/pypi/simple (status 401)\x1b[0m\n")
    out = redact(text)
    assert not shown(password, out) and not shown(tail, out), (text, out)


# a setting whose name or closing tag a soft wrap cut inside a word (rich: an SGR reset, a line end, the colour again)
CUT_SETTINGS = ["helm upgrade --install mlflow ./chart --set auth.adminPassword={v}", "<password>{v}</password>",
                "kubectl create secret generic hub --from-literal=hub_password={v}", "export DB_PASSWORD={v}"]


@given(setting=st.sampled_from(CUT_SETTINGS), value=VALUES, where=st.floats(0.0, 1.0),
       brk=st.sampled_from(["\x1b[0m\n\x1b[31m", "\n"]))
@SETTINGS
def test_a_setting_whose_name_or_closing_tag_a_wrap_cut_never_shows(setting: str, value: str, where: float,
                                                                    brk: str) -> None:
    line = "ValueError: could not load the run's settings from the environment of worker 3: " + setting.format(v=value)
    at = line.index(value)
    # inside the name's last word (before the value) or inside the closing tag (after `</`)
    name_start = max(line.rfind(c, 0, at) for c in " .-_<") + 1
    cuts = [k for k in range(name_start + 1, at) if line[k - 1].isalnum() and line[k].isalnum()]
    close = line.find("</", at + len(value))
    if close != -1:
        cuts += [close + 2 + k for k in range(1, len(setting) - setting.index("</") - 3)]
    cut = cuts[int(where * (len(cuts) - 1))]
    text = "\x1b[31m" + line[:cut] + brk + line[cut:] + "\x1b[0m\n"
    out = redact(text)
    assert not shown(value, out), (text, out)


@pytest.mark.parametrize("text", [
    # a line's last word and the next line's first after a launcher's prefix: no name and value across them
    "[default0]:Visit https://huggingface.co/google/gemma-2-2b-it to ask for access.\n"
    "[default1]:httpx2.HTTPStatusError: Client error '403 Forbidden' for url 'https://huggingface.co/api'\n",
])
def test_a_join_between_two_words_makes_no_setting(text: str) -> None:
    assert redact(text) == text


# (leaks44's known limit) a base64 value whose head is letters of one case, cut by a wrap right after the head
WRAPS = [("[rank0]: ", "\n[rank0]: "), ("wandb: ", "\nwandb: "), ("", "\n"), ("", "\r\n"), ("", "\n\t"),
         ("2026-11-27T05:00:01.1234567Z ", "\n2026-11-27T05:00:01.1235012Z ")]
SETTINGS_LINES = ["PrivateKey = {s}", "PresharedKey = {s}", "password: {s}", "api_key={s}", "client_secret = '{s}'",
                  "HF_TOKEN={s}", '"api_key": "{s}"']
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def random_length(head: str, rest: str) -> int:
    """42 or 43 characters (then ``==`` or ``=``), by the draw."""
    return 42 + len(head + rest) % 2


@given(head=st.one_of(st.text("abcdefghijklmnopqrstuvwxyz", min_size=8, max_size=14),
                      st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=8, max_size=14)),
       rest=st.text(B64, min_size=35, max_size=35).filter(lambda v: any(c.isdigit() for c in v)),
       setting=st.sampled_from(SETTINGS_LINES), wrap=st.sampled_from(WRAPS))
@SETTINGS
def test_a_value_with_a_head_of_one_case_wrapped_after_it_never_shows(head: str, rest: str, setting: str,
                                                                      wrap: tuple[str, str]) -> None:
    body = (head + rest)[:random_length(head, rest)]
    secret = body + "=" * (44 - len(body))
    line = wrap[0] + "ValueError: could not load the run's settings: " + setting.format(s=secret)
    # (the wrap is what is tested: a value the line as written shows, a weak name's value of low entropy, is not this class)
    assume(not shown(secret.rstrip("="), redact(line + "\n")))
    at = line.index(secret) + len(head)
    text = "RuntimeError: CUDA error: device-side assert triggered\n" + line[:at] + wrap[1] + line[at:] + "\n"
    out = redact(text)
    assert not shown(secret.rstrip("="), out), (text, out)


@pytest.mark.parametrize("text", [
    # a line that ends in a word after a secret's name, then the next line's prose or setting: both kept
    "ValueError: could not load the run's settings: password: missing\nRuntimeError: CUDA error: out of memory\n",
    "[rank0]: ValueError: the configuration names api_key = required\n[rank0]: retries=3\n",
    "UserWarning: client_secret: unset\nTraceback (most recent call last):\n",
])
def test_a_prose_word_after_a_name_joins_no_next_line(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("fragment", [
    "/aB3dE5gH7jK9mN2pQ4rS6tU8vW1xY3zA5", "/" + "aB3dE5" * 60, "4/0A", "eyJrIjoi/", "? api_key\n: x1\n",
    "--password\x00", "'--token', '", "echo x | --password-stdin <<< ", "mc alias set a b c ", "\\xc3\\xb1", "\\357\\274\\232",
    "password = aaaaaaab\n", "PrivateKey = " + "a" * 30 + "\n", "::add-mask::",
])
def test_the_turns_constructs_stay_linear(fragment: str) -> None:
    """64 and 256 KiB of a fragment the new rules key on: no dearer a CPU second a MB than the dev set's own reports,
    and linear (tests/timing_support.py)."""
    from timing_support import assert_linear

    assert_linear(redact, fragment)


def test_a_field_its_own_redaction_masks_in_part_is_masked_whole_through_diagnose() -> None:
    """kb/diagnose/quoted.py leaves a field to its own redaction where that hides every piece of a source's secret; a
    rule that masks a part of a piece (a random path segment after a `/` inside a wrapped token's rest) must not count
    as hiding it: the rest was shown in the JSON document's message."""
    from hostile_support import diagnose_leaks

    form = corpus_form("aws-bedrock-short-term@parallel-tag-wrap-t42")
    assert not diagnose_leaks([form])

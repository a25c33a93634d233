"""Issue 26, turn 37's held-out red team: the classes its forms found, as properties and regressions.

The forms themselves stay in tests/fixtures/secrets/forms.toml (the "turn 37" section: every one goes through
`kb diagnose` in tests/test_redaction_corpus.py) and benchmarks/hostile_io_t37.py (the command line). Here:
a token cut by an invisible character, a colour change or a line end of any kind (a lone carriage return; a
docker compose, timestamp, rich panel or indentation prefix on the next line); the base64 of a secret with a
line end (``echo ... | base64``) or in MIME lines; values beside names in forms the key-name rule did not read
(triple-quoted, string prefixes, ``passWord``, XML, ODBC braces, ``("NAME", "value")``); a capture or a quoted
match that starts inside a token; standard error redacted, and an error stream that cannot be written not
changing the exit code. And what must stay: code, lists of names, templates, plist keys.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.diagnose.redact import redact, redact_in
from secret_corpus import PIECE, fill
from test_redaction_properties import SHAPES, around, shown, tokens

REPO = Path(__file__).resolve().parent.parent
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LONG = [s for s in SHAPES if len(fill(s["body"], "x")) >= 2 * PIECE]
VALUE = st.text("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789", min_size=12, max_size=40).filter(
    lambda v: any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(c.islower() for c in v))
INVISIBLE = ["\u200b", "\u00ad", "\u2060", "\ufeff", "\u200c", "\x1b[0m", "\x1b[1;33m", "\x1b[0m\x1b[33m"]


@given(token=tokens(LONG), cut=st.floats(0.0, 1.0), mark=st.sampled_from(INVISIBLE),
       left=around.filter(lambda t: t[-1:] not in ("\x1b", "\x9b", "%", "&", "\\")))
@SETTINGS
def test_a_token_cut_by_an_invisible_character_or_a_colour_never_shows(token: tuple[str, str], cut: float, mark: str,
                                                                      left: str) -> None:
    """A soft hyphen or a zero width a web page left inside a pasted token, or a colour change, hides no token.
    (The text before it does not end in an escape's introducer, which with the space would take the token's
    first letter: test_redaction_properties's rule for the text beside a token.)"""
    whole, secret = token
    at = whole.index(secret) + int(cut * len(secret))
    text = left + " " + whole[:at] + mark + whole[at:] + " rejected\n"
    out = redact(text)
    assert not shown(secret, out, left), (text, out)


TIMES = ["2024-05-01T12:00:00.1234567Z ", "2024-05-01 12:00:01,250 ", "2025-01-31T23:59:59+01:00 "]


@given(token=tokens(LONG), cut=st.floats(0.0, 1.0), lead=st.integers(0, 40),
       style=st.sampled_from(["cr", "compose", "time", "indent", "tab"]), times=st.permutations(TIMES))
@SETTINGS
def test_a_token_wrapped_under_any_continuation_prefix_never_shows(token: tuple[str, str], cut: float, lead: int,
                                                                   style: str, times: list[str]) -> None:
    """The second line of a wrapped token may start after a prefix that differs from the first line's (a timestamp
    of another time, a log split at 16 KiB) or that is only an indentation; or the wrap is a lone CR."""
    whole, secret = token
    at = whole.index(secret) + int(cut * len(secret))
    first_prefix, next_prefix, brk = {
        "cr": ("", "", "\r"), "compose": ("trainer-1  | ", "trainer-1  | ", "\n"), "time": (times[0], times[1], "\n"),
        "indent": ("", "    ", "\n"), "tab": ("", "\t", "\n")}[style]
    head = first_prefix + "RuntimeError: upload failed for " + "x" * lead + " "
    head += "y" * max(0, 40 - len(head) - at) + " "
    text = head + whole[:at] + brk + next_prefix + whole[at:] + " (status 401)\n"
    out = redact(text)
    assert not shown(secret, out), (text, out)


def test_a_rich_frame_cut_at_the_box_edge_quotes_no_head_of_a_token() -> None:
    """rich cuts a long line of code at its box's edge; the frame's code kb quotes is that first line alone."""
    from kb.diagnose.textclean import _rich_box

    line = "│ ❱ 12 │   client = Client(eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.Sf │"
    assert "eyJzdWIiOiIxMjM0NTY3ODkwIn0" not in _rich_box(line)
    assert _rich_box(line).endswith("client = …")  # the word the edge cut is dropped whole
    short = "│ ❱ 12 │   model = AutoModel.from_pretrained(name)                               │"
    assert _rich_box(short).strip().endswith("from_pretrained(name)")  # padded by the box: not cut


@given(name=st.sampled_from(["HF_TOKEN", "WANDB_API_KEY", "password", "aws_secret_access_key", "OPENAI_API_KEY"]),
       secret=VALUE,
       mime=st.booleans(), left=st.sampled_from(["", "ValueError: bad credentials ", "data:\n  .env: "]))
@SETTINGS
def test_the_base64_of_a_secret_with_a_line_end_or_in_mime_lines_never_shows(name: str, secret: str, mime: bool,
                                                                             left: str) -> None:
    """`echo "NAME=value" | base64` (a line end inside) and `base64`'s 76-character lines."""
    form = f"PATH=/usr/bin\n{name}={secret}\nLANG=C.UTF-8\n" if mime else f"{name}={secret}\n"
    raw = form.encode()
    encoded = base64.b64encode(raw).decode()
    at = raw.index(secret.encode())
    inner = encoded[-(-at // 3) * 4:(at + len(secret)) // 3 * 4]
    if mime:
        encoded = "\n".join(encoded[i:i + 76] for i in range(0, len(encoded), 76))
    text = left + encoded + "\n"
    out = redact(text)
    assert not shown(inner, out, left), (text, out)


FORMS = ["password = '''{v}'''", 'api_key = """{v}"""', "{{'password': b'{v}'}}", 'token = rb"{v}"',
         '{{"userName": "t", "passWord": "{v}"}}', "<password>{v}</password>", '<entry key="api.key">{v}</entry>',
         "Server=db;Uid=sa;Pwd={{{v}}};", 'os.environ.setdefault("HF_TOKEN", "{v}")', "metadata=[('x-api-key', '{v}')]",
         "db.internal:5432:runs:trainer:{v}", "sqlplus trainer/{v}@orcl", "sqlcmd -S db -U sa -P {v}",
         "openssl enc -pass pass:{v}", "keytool -list -storepass {v}", "7z a -p{v} x.7z", "setenv HF_TOKEN {v}",
         "set -gx OPENAI_API_KEY {v}", "    client-key-data: {v}"]


@given(form=st.sampled_from(FORMS), value=VALUE, left=st.sampled_from(["", "ValueError: bad settings: ", "x\n"]))
@SETTINGS
def test_a_value_in_the_forms_turn_37_found_never_shows(form: str, value: str, left: str) -> None:
    text = left + form.format(v=value) + "\n"
    out = redact(text)
    assert not shown(value, out, left), (text, out)


@pytest.mark.parametrize("code", [
    'keys = ["password", "api_key", "token"]', 'f"Server=db;PWD={password};"', "<key>Label</key><string>x</string>",
    "password = '''", 'parser.add_argument("--token", "-t", help="the token")', "set -x", "setenv PATH /usr/bin",
    'os.environ.setdefault("HF_HOME", "/data/hf")', "12:00:00:123:456", "host:5432:db:user:12345678",
    "2024-05-01T12:00:00.1234567Z RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double\n"
    "2024-05-01T12:00:00.1234568Z float",
])
def test_code_and_lists_of_names_stay(code: str) -> None:
    assert redact(code) == code


def test_a_piece_of_a_message_is_redacted_as_part_of_it() -> None:
    """A signature's match or capture that starts inside a token (a token given as a model id)."""
    text = "OSError: eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..DmOhBxeVQvmuhDkD7DRF6v.rqHEV3xXhHT2JL_rM1KLFBVvwvv.mhQvjrahechyTYD2gXifFA is not a local folder"
    start = text.index("DmOh")
    assert "DmOhBxeV" not in redact_in(text, start, text.index(" is not"))
    pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\nk3Lq9Zr2Wp4Tn6Vb8Xc0Yd1Fe3Gh5Ij7Kl9M"
    last = pem.splitlines()[-1]
    assert last[:8] not in redact_in(last, before="\n".join(pem.splitlines()[:-1]))


def _kb(args: list[str], stderr: object = subprocess.PIPE) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "kb", *args], cwd=REPO, stdout=subprocess.PIPE, stderr=stderr,
                          env=env, timeout=120)


TOKEN = "hf_Zq8Wm2Lp5Rt9Xv3Bn7Kc1Hd4Fg6Jk0MnPq"


@pytest.mark.parametrize("args", [["diagnose", f"/nonexistent/{TOKEN}.log"], ["plan", "--model", TOKEN],
                                  ["plan", "--model", f"meta-llama/{TOKEN}", "--format", "json"]])
def test_standard_error_shows_no_token_of_an_argument(args: list[str]) -> None:
    proc = _kb(args)
    assert proc.returncode == 2
    assert TOKEN[3:11] not in proc.stderr.decode() + proc.stdout.decode()
    assert proc.stderr.decode().startswith("kb")


@pytest.mark.parametrize(("args", "code"), [(["diagnose", "/nonexistent.log"], 2), (["plan", "--model", "nope"], 2)])
def test_an_error_stream_that_cannot_be_written_keeps_the_exit_code(args: list[str], code: int) -> None:
    with open("/dev/full", "wb") as full:
        proc = _kb(args, stderr=full)
    assert proc.returncode == code

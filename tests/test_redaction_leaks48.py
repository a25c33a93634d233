"""Secrets that leaked through `kb diagnose`'s own output in turn 47's measurement (issue 26; benchmarks/results/
hostile-turn47-leaks.txt's "Pipeline pass", safe-turn48's file for the numbers), each closed by its class:

- S3, a numeric HTML reference without its ";" before a token that starts with a hex letter (``client&#x3ddckr_pat_``):
  the diagnosis's own HTML decoding (kb/diagnose/flatten.py, html.unescape) read ``&#x3dd`` as one code point, as a
  browser does, so the message lost the token's first letter and no rule knew the rest. Now a reference without ";"
  before more digits is read as the ASCII punctuation it starts, as redaction's own view reads it; a reference to NUL
  (``&#00000;``, argv's separator) as a space, not U+FFFD.
- a model id that is a piece of a secret a wrap cut over two lines or a PEM body's line (kb/diagnose/environment.py:
  the fact is checked with the lines around it, not its line alone);
- an answer that a prior made of the report's first lines (no parsed error, so no source lines of its own): the
  secrets of those lines are masked in it (kb/diagnose/quoted.py redact_with);
- a JSON escape of a control before a secret (``--db-password\\u0000value`` in a container's JSON log): the secret's
  piece is also taken without the escape the parser drops;
- redaction itself: a fold that cuts each line once (64-character PEM lines at 50: 50, 14, 50, 14: no two pieces of
  full width side by side), and a key body whose lines a fold's view joined (private-key-body takes the whole run), a
  key body after a `/` (a path's or a URL's segment), a BEGIN line cut in its dashes, an HF token's body (34 letters)
  beside hf_token, an escape or an entity a fold cut, a JSON string in a form's query (decoded to the end).
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from secret_corpus import forms

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.diagnose.redact import redact
from kb.knowledge.index import load_index
from kb.render.diagnosis import format_diagnosis

PIECE = 8


def shown(text: str) -> str:
    """Everything `kb diagnose` shows of ``text``: the one screen, the whole story and the JSON document."""
    doc = diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_index()))
    return format_diagnosis(doc) + format_diagnosis(doc, full=True) + json.dumps(doc, ensure_ascii=False)


def leaked(secret: str, output: str) -> list[str]:
    return sorted({secret[i:i + PIECE] for i in range(len(secret) - PIECE + 1)} & {
        output[i:i + PIECE] for i in range(len(output) - PIECE + 1)})


# tokens whose shape starts with a hex letter (the prefix the greedy decoding ate), the part that must not show
HEX_START = [
    ("dckr_pat_", "A", 27), ("dapi", "h", 32), ("AKIA", "U", 16), ("dckr_oat_", "A", 32),
]
_ALPHABETS = {"A": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "h": "0123456789abcdef",
              "U": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"}
# `=` spelled as a numeric reference without its ";" (hex in either case, decimal, zero-padded)
EQUALS = ["&#x3d", "&#x3D", "&#X3d", "&#61", "&#061", "&#x03d"]


@st.composite
def tokens(draw: st.DrawFn) -> tuple[str, str]:
    prefix, alphabet, n = draw(st.sampled_from(HEX_START))
    body = draw(st.text(alphabet=_ALPHABETS[alphabet], min_size=n, max_size=n))
    if alphabet != "h":  # (a random key of this length has letters and digits; the rules ask for them)
        body = body[:-2] + "a7" if alphabet == "A" else body[:-2] + "Q7"
    return prefix + body, body


@given(tokens(), st.sampled_from(EQUALS), st.sampled_from(["&#xa;", "<br>", "&lt;/p&gt;", "&quot;"]))
@settings(max_examples=40, deadline=None)
def test_a_token_after_a_reference_without_its_semicolon_is_never_shown(token: tuple[str, str], equals: str,
                                                                       after: str) -> None:
    whole, secret = token
    text = f"<pre>RuntimeError: upload failed&#x3a;&#xa;client{equals}{whole}{after}</pre>\n"
    assert not leaked(secret, shown(text)), text


def test_the_references_are_read_as_what_they_stand_for() -> None:
    from kb.diagnose.flatten import _markup

    assert _markup("client&#x3ddckr_pat_abc&#xa;") == "client=dckr_pat_abc\n"
    assert _markup("a&#61123 b&#x3d hf_ c&#x3dd;") == "a=123 b= hf_ c\u03dd"  # (with its ";": the code point it names)
    assert _markup("python&#00000;train&#00046;py&#0;--x&#x0;y") == "python train.py --x y"


@pytest.mark.parametrize("form", [f for f in forms() if f.id.endswith(("@html-hex-nosemi-t47",
                                                                      "@html-no-semicolon-t42"))][::7],
                         ids=lambda f: f.id)
def test_the_corpus_forms_of_the_class_show_nothing(form) -> None:  # type: ignore[no-untyped-def]
    assert not form.leaks(shown(form.text))


# ---- the other contexts, one form each (each leaked through kb diagnose at 193fde72)

CLOSED = ["pem-pkcs8-bare-t47@markdown-table-t41", "oracle-user-slash@ray-prefix-wrap-t47",
          "fstring-debug-t47@wandb-wrap-t40", "proc-cmdline-nul-t40@docker-json-split-t40",
          "proc-cmdline-nul-t40@html-dec-zeropad-t42", "pem-rsa@fold-60-t42", "pem-rsa@fold-50-t47",
          "pem-ec@fold-50-t47", "pem-body-bare@fold-50-t47", "pem-body-bare@fold-72-t47",
          "pem-pkcs8-bare-t47@fold-72-t47",
          # a key's body as a path's or a URL's segment (after a `/`), a PGP block whose BEGIN line a fold cut
          "pem-body-bare@git-remote-v-t39", "pem-body-bare@urllib3-path-t40", "pem-pkcs8-bare-t47@file-path",
          "pem-pkcs8-bare-t47@hub-repo-id", "pem-pkcs8-bare-t47@git-remote-v-t39", "pgp-private-key@fold-50-t47",
          # an HF token's body (34 letters) beside hf_token
          "fstring-debug-t47@dump-after-error", "fstring-debug-t47@csv-field-t39", "fstring-debug-t47@fold-80-t39",
          "fstring-debug-t47@html-br-wrap-t47",
          # an escape or an entity a fold cut (read once the lines are joined), a JSON string inside a form's query
          "nbsp-entity-t47@fold-20-t41", "json-escaped-inner@fold-20-t41", "json-escaped-inner@url-plus-json-t47",
          "json-escaped-inner@form-body-plus-t42", "setattr-t39@html-no-semicolon-t42"]


@pytest.mark.parametrize("fid", CLOSED)
def test_a_closed_form_shows_nothing(fid: str) -> None:
    form = next(f for f in forms() if f.id == fid)
    assert not form.leaks(shown(form.text))


# ---- redaction itself: a fold that cuts each line once


def _pem_body(rng: random.Random, lines: int) -> str:
    alphabet = _ALPHABETS["A"] + "+/"
    body = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + "".join(rng.choice(alphabet) for _ in range(32))]
    body += ["".join(rng.choice(alphabet) for _ in range(64)) for _ in range(lines - 1)]
    return "\n".join(body)


@given(st.integers(min_value=33, max_value=63), st.integers(min_value=2, max_value=9), st.booleans(),
       st.integers(min_value=0, max_value=2**32))
@settings(max_examples=30, deadline=None)
def test_a_key_folded_at_any_width_below_its_lines_is_masked(width: int, lines: int, begin: bool, seed: int) -> None:
    """A PEM body (64-character lines) folded at a width below 64: each line in two pieces, the full width's and
    its rest; with its BEGIN and END lines (which the fold may cut too) or without them."""
    body = _pem_body(random.Random(seed), lines)
    key = (f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----" if begin else body)
    text = f"RuntimeError: the upload of checkpoint-500 to {key} failed\n"
    folded = "\n".join(line[i:i + width] for line in text.split("\n") for i in range(0, max(len(line), 1), width))
    out = redact(folded)
    secret = body.replace("\n", "")[40:]  # (the DER header MIIEvQIBADANBgkqhkiG9w0BAQEFAASC is no secret)
    for piece in [p for p in body.split("\n")[1:]]:
        for k in range(0, len(piece) - PIECE + 1, 4):
            assert piece[k:k + PIECE] not in out, (width, folded, out)
    assert secret


@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", min_size=34, max_size=34),
       st.sampled_from(["hf_token='{}'", "HF_TOKEN: {}", "hub_token = \"{}\"", "--hf-token={}", "hf_token={}\n",
                        "setattr(args, 'hub_token', '{}')"]))
@settings(max_examples=30, deadline=None)
def test_an_hf_token_body_beside_its_name_is_masked(body: str, form: str) -> None:
    text = f"DEBUG {form.format(body)} repo='org/model'\n"
    assert not leaked(body, redact(text)), text


@given(st.sampled_from(["/data/", "https://", "/v1/uploads/", "huggingface.co/api/models/trainer/"]),
       st.integers(min_value=2, max_value=6), st.integers(min_value=0, max_value=2**32))
@settings(max_examples=20, deadline=None)
def test_a_key_body_after_a_slash_is_masked(before: str, lines: int, seed: int) -> None:
    body = _pem_body(random.Random(seed), lines)
    out = redact(f"FileNotFoundError: No such file or directory: '{before}{body}/train.jsonl'\n")
    for piece in body.split("\n")[1:]:
        assert piece[8:24] not in out


KEPT = [
    # alternating lines of one width with shorter ones: a log, not a fold of secrets
    "step 1/100 loss=2.3104 lr=1.0e-04 grad_norm=0.812\nok\nstep 2/100 loss=2.2981 lr=1.0e-04 grad_norm=0.797\nok\n",
    "Downloading shards: 100%|██████████| 2/2 [00:03<00:00]\n  done\nLoading checkpoint shards: 100%|████| 2/2\n  done\n",
    # a reference with its ";" to a character past ASCII, and a sentence with a hex-looking word after &#61
    "<p>x&#x3dd;y and a&#61;b</p>\n",
    # a Hub token's name beside what is no token: a placeholder, a path, an environment lookup
    "hf_token='<your token here>' hf_token=None HF_TOKEN: ${HF_TOKEN} hub_token=os.environ['HF_TOKEN']\n",
    "hf_token = notebook_login_required_for_this_model\n",  # (not 34 letters)
]


@pytest.mark.parametrize("text", KEPT)
def test_text_without_a_secret_is_kept(text: str) -> None:
    assert redact(text) == text

"""Properties of redaction (issue 26), over inputs hypothesis draws: a token of any shape the secret corpus
knows (tests/fixtures/secrets/forms.toml), with random characters for its secret part, put in random
surrounding text (any Unicode, escapes, newlines), never shows 8 characters of its secret; nor does a value
beside a random secret-like environment name, nor a token cut across two lines at any place, with or without
a launcher's ``[rank0]: `` prefix. Code made of ordinary words is never masked.

A token's boundaries must stay boundaries: the text beside it ends (or starts) with a separator, never with a
letter or digit (``abchf_...`` is another word), nor with ``%``, ``\\`` or ``&``, which would make an escape
out of the token's first characters.
"""

from __future__ import annotations

import re
import tomllib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.diagnose.redact import redact
from secret_corpus import CORPUS, PIECE, fill

DATA = tomllib.loads(CORPUS.read_text(encoding="utf-8"))
# keys with no prefix or context, found by how random they look (tables/secrets.toml's entropy rules): about
# 98.5 % to 99.5 % of random draws are; the corpus tests them on fixed draws, not here
STATISTICAL = {"cohere-bare", "mistral-bare", "aws-secret-access-key", "aws-secret-slash-first", "vault-legacy-service"}
SHAPES = [s for s in DATA["shape"] if not s.get("multiline") and s["id"] not in STATISTICAL]
MULTILINE = [s for s in DATA["shape"] if s.get("multiline")]
SEPARATORS = list(" \t\n\r\"'`=:,;()[]{}<>|«»“”：、→") + ["\u00a0", "\u3000", " — ", "\r\n"]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# surrounding text: any characters but surrogates (a log is text), short enough to keep the test fast
around = st.text(st.characters(exclude_categories=("Cs",)), max_size=60)


def shown(secret: str, output: str, *contexts: str) -> list[str]:
    """The 8-character pieces of ``secret`` that ``output`` shows and that the surrounding text did not hold."""
    pieces = {secret[i:i + PIECE] for i in range(len(secret) - PIECE + 1)}
    return sorted(p for p in pieces if "\n" not in p and p in output and not any(p in c for c in contexts))


@st.composite
def tokens(draw: st.DrawFn, shapes: list[dict]) -> tuple[str, str]:
    """(token, its secret part) of a shape the corpus knows, its random parts drawn anew."""
    shape = draw(st.sampled_from(shapes))
    seed = draw(st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=12))
    body = fill(shape["body"], seed)
    return shape["prefix"] + body + shape.get("suffix", ""), body


@given(token=tokens(SHAPES), left=around, right=around, sep_left=st.sampled_from(SEPARATORS),
       sep_right=st.sampled_from(SEPARATORS))
@SETTINGS
def test_a_token_in_random_text_never_shows_its_secret(token: tuple[str, str], left: str, right: str,
                                                        sep_left: str, sep_right: str) -> None:
    whole, secret = token
    text = left + sep_left + whole + sep_right + right
    out = redact(text)
    assert not shown(secret, out, left, right), (text, out)


@given(token=tokens(MULTILINE), left=around, right=around)
@SETTINGS
def test_a_private_key_in_random_text_never_shows_its_body(token: tuple[str, str], left: str, right: str) -> None:
    whole, secret = token
    text = left + "\n" + whole + "\n" + right
    out = redact(text)
    assert not shown(secret, out, left, right), (text, out)


ENV_WORDS = st.lists(st.sampled_from(["HF", "HUB", "OPENAI", "AZURE", "WANDB", "KAGGLE", "MY", "APP", "DB", "PROD",
                                      "GITHUB", "S3", "MODEL", "REGISTRY", "SERVICE", "CLIENT"]), min_size=0, max_size=3)
ENV_SUFFIX = st.sampled_from(["KEY", "TOKEN", "SECRET", "PASSWORD", "PWD", "PASS", "CREDENTIALS", "API_KEY",
                              "ACCESS_TOKEN", "SECRET_KEY", "AUTH_TOKEN", "PRIVATE_KEY"])
FORMS = st.sampled_from(["{name}={value}", "export {name}={value}", '{name}="{value}"', "{name}: {value}",
                         "{name} = '{value}'", '"{name}": "{value}"', "docker run -e {name}={value} img",
                         "set {name}={value}", '$env:{name} = "{value}"', "ENV {name} {value}",
                         "- name: {name}\n  value: {value}", "--{lower} {value}"])
VALUES = st.sampled_from(["A", "u", "b", "h"]).flatmap(
    lambda cls: st.integers(12, 48).map(lambda n: "{%s:%d}" % (cls, n)))
# (fix49) the suffixes of a password's name, and how a value of hex digits can read as a number (all decimal digits,
# `620957083541`, or with an exponent, `6209570835e1`: about 1 hex value of 12 digits in 200). By design a number is a
# secret only beside a password's name (docs/diagnose.md: "Numbers are masked only beside a password's name": no false
# redactions of counts, ids and sizes beside `KEY`, `TOKEN`, `SECRET`), so beside the other names such a value is no
# secret shape and is not drawn as one (hypothesis drew `KEY=620957083541` and failed the test on a design decision)
PASSWORD_SUFFIXES = frozenset({"PASSWORD", "PWD", "PASS"})
NUMBER = re.compile(r"[0-9]+(?:[eE][0-9]{1,3})?")
SECRET_VALUES = st.tuples(ENV_SUFFIX, VALUES, st.integers(0, 10**6)).map(
    lambda t: (t[0], fill(t[1], str(t[2])))).filter(
    lambda named: named[0] in PASSWORD_SUFFIXES or NUMBER.fullmatch(named[1]) is None)


@given(words=ENV_WORDS, named=SECRET_VALUES, form=FORMS, crlf=st.booleans(),
       after=st.sampled_from(["", "PATH=/usr/bin", "  File \"/w/x.py\", line 3", "Traceback"]))
@SETTINGS
def test_a_value_beside_a_secret_like_env_name_never_shows(words: list[str], named: tuple[str, str], form: str,
                                                            crlf: bool, after: str) -> None:
    suffix, value = named
    name = "_".join([*words, suffix])
    line = form.format(name=name, lower=name.lower().replace("_", "-"), value=value)
    text = f"RuntimeError: CUDA error: device-side assert triggered\n{line}\n{after}\n"
    if crlf:
        text = text.replace("\n", "\r\n")
    out = redact(text)
    assert not shown(value, out), (text, out)


# turn 42's shapes whose wrapped forms leaked (redfix42): the Bitbucket token cut less than 16 characters before its `=`
# (the rest, `<few>=<8 hex>`, reads as a short NAME=value setting) and the kubeadm bootstrap token (23 characters, no
# keyword) cut in its first six or last two; closed by fuzz43 (test_the_former_wrap_gaps_are_closed below): none left
WRAP_GAPS: set[str] = set()


def _two_lines(whole: str, at: int, prefix: str = "") -> str:
    head = prefix + "RuntimeError: upload failed for "
    head += "y" * max(0, 40 - len(head) - at) + " "
    return head + whole[:at] + "\n" + prefix + whole[at:] + " (status 401)\n"


@pytest.mark.parametrize(("whole", "secret", "ats"), [
    ("ATCTT3xFfGN0" + "aB3d" * 44 + "aB3d=C8A8148D", "aB3d" * 45 + "=C8A8148D", range(12 + 160, 12 + 181)),
    ("gvz761.zxuxpsidob0i85bt", "gvz761.zxuxpsidob0i85bt", [*range(1, 7), 21, 22]),
])
@pytest.mark.parametrize("prefix", ["", "[rank0]: "])
def test_the_former_wrap_gaps_are_closed(whole: str, secret: str, ats: range, prefix: str) -> None:
    """(fuzz43) The former WRAP_GAPS forms, cut at each place that leaked: the Bitbucket token's rest read as a setting
    (``__init__._setting_rests``), the kubeadm token's id cut before its dot (its lookbehind needed the line before) or
    its last two characters alone on the next line (``_fills_word``)."""
    for at in ats:
        text = _two_lines(whole, at, prefix)
        assert not shown(secret, redact(text)), text


@given(token=tokens([s for s in SHAPES if len(fill(s["body"], "x")) >= 2 * PIECE and s["id"] not in WRAP_GAPS]),
       lead=st.integers(0, 60),
       cut=st.floats(0.0, 1.0), prefix=st.sampled_from(["", "[rank0]: ", "[default3]:", "(RayTrainWorker pid=812) "]),
       crlf=st.booleans())
@SETTINGS
def test_a_token_cut_across_two_lines_never_shows_its_secret(token: tuple[str, str], lead: int, cut: float,
                                                             prefix: str, crlf: bool) -> None:
    """A terminal's width cuts the line anywhere in the token: the line before the cut is the width (at least
    40 characters), and a launcher that prefixes each line prefixes both."""
    whole, secret = token
    start = whole.index(secret)
    at = start + int(cut * len(secret))
    head = prefix + "RuntimeError: upload failed for " + "x" * lead + " "
    head += "y" * max(0, 40 - len(head) - at) + " "
    first = head + whole[:at]
    assert len(first) >= 40
    text = first + ("\r\n" if crlf else "\n") + prefix + whole[at:] + " (status 401)\n"
    out = redact(text)
    # the pieces that fit on one side of the cut are what a wrap can leak; a piece across it is not in the text
    assert not shown(secret, out), (text, out)


WORDS = ["model", "layer", "norm", "attn", "proj", "hidden", "states", "config", "batch", "size", "train", "eval",
         "loss", "grad", "step", "lora", "rank", "alpha", "dropout", "embed", "vocab", "head", "dim", "rope",
         "scaling", "cache", "device", "dtype", "Llama", "Qwen2", "Mistral", "For", "Causal", "Sequence",
         "Classification", "Conditional", "Generation", "Tokenizer", "Fast", "Wav2Vec2", "Bert", "Vision"]


@given(parts=st.lists(st.sampled_from(WORDS), min_size=1, max_size=8, unique=True), joiner=st.sampled_from(["", "_", "."]),
       value=st.sampled_from(["4096", "0.1", "True", "None", "bf16", "cuda:0", "[1, 2]", "self.config"]))
@SETTINGS
def test_code_made_of_words_is_never_masked(parts: list[str], joiner: str, value: str) -> None:
    name = joiner.join(parts)
    for text in (name, f"{name} = {value}", f"AttributeError: 'Trainer' object has no attribute '{name}'"):
        assert redact(text) == text


@given(token=tokens(SHAPES), user=st.sampled_from(["", "trainer:", "__token__:"]), left=around,
       sep=st.sampled_from([" ", "\n", '"', "'", "=", ": "]))
@SETTINGS
def test_a_token_in_base64_is_masked(token: tuple[str, str], user: str, left: str, sep: str) -> None:
    """``echo aGZf... | base64 -d``, a Docker config's ``"auth": "dXNlcjp..."``: the base64 of a token (or of
    ``user:token``) shows none of its own 8-character pieces."""
    import base64

    encoded = base64.b64encode((user + token[0]).encode()).decode()
    text = left + sep + encoded + " | base64 -d\n"
    out = redact(text)
    assert not shown(encoded, out, left), (text, out)

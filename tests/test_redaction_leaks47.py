"""Issue 26, turn 47 (leaks47): the secret corpus widened with other scanners' shapes and new contexts, and the
mechanisms that close what they found (benchmarks/results/hostile-turn47-leaks.txt).

- A token split in two string literals (Python's and C's adjacent literals, JavaScript's ``+``, a ``\\`` continuation)
  is one string for the wrap rules (kb/diagnose/redact/views.py: _glued_literal).
- An HTML line break (``<br>``, ``<br/>``, ``<BR />``) is a line end in the decoded view, so a wrap there is joined.
- A gutter after an indentation (``cat -n``'s ``     8<TAB>``, whose number differs line to line) goes with a wrap's
  break, as a launcher's prefix does.
- Rules (tables/secrets.toml): twitter-bearer-token from 20 to 24 A's, jwt-base64 (a JWT encoded once more),
  pydantic-input-value (a random-looking value pydantic echoes in a validation error, its field on the line before).
"""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.diagnose.redact import redact
from secret_corpus import closed_forms_test, forms
from timing_support import assert_linear_on

T47 = [f for f in forms() if f.turn == 47]

# turn 47's forms that leak through redact() (benchmarks/results/hostile-turn47-leaks.txt says why for each class):
# pandas' truncated cells; a value's rest after a launcher's prefix followed by more words; an entity a fold cut.
# (turn 48 closed the PEM bodies folded at 50 or 72 or in a path, fstring-debug's hf_token='<34 letters>', the entity
# a fold cut and a JSON string in a form body: tests/test_redaction_leaks48.py)
GAPS: set[str] = set(  # (turn 49 closed the last forms of this list: tests/test_redaction_leaks49.py)
)


def test_every_turn47_form_is_redacted_but_the_named_gaps() -> None:
    assert len(T47) > 8000
    leaked = {f.id for f in T47 if f.leaks(redact(f.text))}
    assert leaked <= GAPS, f"{len(leaked - GAPS)} new leaks: {sorted(leaked - GAPS)[:10]}"
    closed = GAPS - leaked
    assert not closed, f"gaps closed, take them off GAPS: {sorted(closed)}"


# forms each mechanism closed (each leaked at b0371c5a, main as handed out)
CLOSED = [
    "huggingface@py-concat-wrap-t47", "github-pat@py-concat-wrap-t47", "asana-pat-t41@py-concat-wrap-t47",
    "slack-bot@py-concat-wrap-t47",
    "huggingface@html-br-wrap-t47", "github-pat@html-br-wrap-t47", "stripe-live@html-br-wrap-t47",
    "huggingface@cat-n-wrap-t47", "huggingface-org@cat-n-wrap-t47", "stripe-live@cat-n-wrap-t47",
    "twitter-bearer-t47@error-line", "twitter-bearer-t47@json-escape",
    "jwt-base64-t47@error-line", "jwt-base64-t47@wrap-after-token-t40",
    "pydantic-loc-value-t47@message", "pydantic-loc-value-t47@message-wrapped-rank",
]
test_the_forms_turn47_closed_show_no_secret = closed_forms_test(CLOSED)


def _token(rng: random.Random, n: int) -> str:
    alphabet = string.ascii_letters + string.digits
    while True:
        body = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in body) and any(c.isupper() for c in body) and any(c.islower() for c in body):
            return body


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), cut=st.integers(2, 30), indent=st.integers(0, 16),
       quote=st.sampled_from(['"', "'"]), joiner=st.sampled_from(["", " +", " \\"]),
       prefix=st.sampled_from(["hf_", "ghp_", "sk_live_", "glpat-", "npm_", ""]))
def test_a_token_split_in_adjacent_literals_never_shows(seed: int, cut: int, indent: int, quote: str, joiner: str,
                                                        prefix: str) -> None:
    body = _token(random.Random(seed), 36)
    token = prefix + body
    cut = min(cut, len(token) - 2) + (len(prefix) if prefix else 0)
    cut = min(cut, len(token) - 8)
    text = (f"  File \"/w/train.py\", line 12, in <module>\n    client = Client(key={quote}{token[:cut]}{quote}{joiner}\n"
            f"{' ' * indent}{quote}{token[cut:]}{quote})\n")
    out = redact(text)
    shown = [body[i:i + 8] for i in range(len(body) - 7) if body[i:i + 8] in out]
    assert not shown, (text, out)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), at=st.integers(4, 30),
       brk=st.sampled_from(["<br>", "<br/>", "<BR />", "<br >"]),
       prefix=st.sampled_from(["hf_", "ghp_", "xoxb-1234567890-", "AKIA", "sk-proj-"]))
def test_a_token_wrapped_at_an_html_line_break_never_shows(seed: int, at: int, brk: str, prefix: str) -> None:
    body = _token(random.Random(seed), 36)
    text = f"<div class=\"output_error\">RuntimeError: upload failed for {prefix}{body[:at]}{brk}{body[at:]} (401)</div>\n"
    out = redact(text)
    assert not [body[i:i + 8] for i in range(len(body) - 7) if body[i:i + 8] in out], (text, out)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), at=st.integers(4, 30), number=st.integers(1, 99999))
def test_a_token_wrapped_in_a_numbered_listing_never_shows(seed: int, at: int, number: int) -> None:
    body = _token(random.Random(seed), 36)
    text = (f"{number:6d}\tRuntimeError: upload failed for client hf_{body[:at]}\n"
            f"{number + 1:6d}\t{body[at:]} (status 401)\n")
    out = redact(text)
    assert not [body[i:i + 8] for i in range(len(body) - 7) if body[i:i + 8] in out], (text, out)
    assert f"{number + 1:6d}\t" in out  # the next line's number is no piece of the token


@pytest.mark.parametrize("value", ["9f86d081884c7d659a2feaa0c55ad015a3bf4f1b", "AbC9dEf8GhI7jKl6MnO5pQr4StU3"])
def test_a_random_value_pydantic_echoes_is_masked(value: str) -> None:
    text = ("pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings\nopenai_api_key\n"
            f"  String should match pattern '^sk-' [type=string_pattern_mismatch, input_value='{value}', input_type=str]\n")
    assert value[:8] not in redact(text)


KEPT = [
    # adjacent literals of words, a message split over lines
    'raise ValueError("CUDA out of memory. Tried to allocate "\n                 "2.00 GiB (GPU 0; 14.75 GiB total)")\n',
    '    msg = ("expected scalar type Float but found "\n           "Half")\n',
    "parser.add_argument('--model', default='meta-llama/'\n                    'Llama-2-7b-hf')\n",
    # HTML line breaks in a notebook's output
    "<pre>Traceback (most recent call last):<br>  File \"train.py\", line 5, in &lt;module&gt;<br>"
    "RuntimeError: CUDA error: device-side assert triggered<br></pre>\n",
    # a numbered listing of code
    "     1\timport torch\n     2\tfrom transformers import AutoModelForCausalLM\n"
    "     3\tmodel = AutoModelForCausalLM.from_pretrained('Qwen/Qwen2.5-7B-Instruct', torch_dtype=torch.bfloat16)\n",
    # a base64 run of zero bytes; values pydantic echoes that are model ids, paths, class names
    # (54 A's: twitter-bearer-token's A{22} and 30 more masked it at b0371c5a)
    "state: " + "A" * 54 + "==\n",
    "1 validation error for ModelArgs\nmodel\n  Input should be a valid string [type=x, input_value='gpt-4o-mini-2024-07-18', input_type=str]\n",
    "1 validation error for ModelArgs\nmodel\n  Input should be ... [type=x, input_value='meta-llama/Llama-2-7b-hf', input_type=str]\n",
    "1 validation error for TrainArgs\noutput_dir\n  ... [type=x, input_value='checkpoints/run_2024_11_28/step_500', input_type=str]\n",
    "1 validation error for Config\narchitecture\n  ... [type=x, input_value='MistralForCausalLM_v0_3_instruct', input_type=str]\n",
]


@pytest.mark.parametrize("text", KEPT)
def test_code_html_listings_and_pydantic_echoes_of_names_stay(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("fragment", ['"hf_AbCdEfGh1234"\n    "IjKl"\n', "x<br>y", "     7\tab\n     8\tcd\n",
                                      "AAAAAAAAAAAAAAAAAAAAAAAA", "input_value='Ab1Cd2Ef3Gh4Ij5Kl6Mn7' "])
def test_the_turns_constructs_stay_linear(fragment: str) -> None:
    """64 KiB and 256 KiB of each construct repeated (one long text: literals, line breaks, gutters, a run of A's)."""
    small = fragment * (64 * 1024 // len(fragment))
    assert_linear_on(redact, small, small * 4)

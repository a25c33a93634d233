"""Issue 26 (fix49): a line end that an escape spells (a JSON string's ``\\n``, ``\\r\\n`` or ``\\u000a``, HTML's ``<br>``
or ``&#10;``) inside a token whose shape keeps URL escapes as its own characters: a Twitter bearer token, base64 whose
``+ / =`` are written ``%2B %2F %3D`` (rule twitter-bearer-token takes ``[A-Za-z0-9%]``, not ``+ / =``).

The text as given has the token cut by the escape; the decoded view has the line end, but reads ``%2B`` as ``+``, which
ends the token's shape there (20 characters in: shorter than the rule's 30), so no view joined the two pieces whole and
the piece after the cut up to the first escape showed (hypothesis's draw on main, kept as an @example in
tests/test_hostile_turn38.py: ``AAAA...AMq2z\\ndYHZX4qUxXPruSnp%2B...`` -> ``...Mq2z\\ndYHZX4qUxXPruSnp%***%***``).
"""

from __future__ import annotations

import random
from base64 import b64encode
from urllib.parse import quote

from hypothesis import example, given
from hypothesis import strategies as st

from hostile_support import SETTINGS
from kb.diagnose.redact import redact
from test_redaction_properties import shown

# the escapes that spell a line end in a text kb reads whole (a JSON log's message, a notebook's HTML output)
LINE_ENDS = ["\\n", "\\r\\n", "\\u000a", "<br>", "<br/>", "&#10;", "&#xa;"]
CONTEXTS = [
    "the upload of the checkpoint to the hub failed: client {t} was rejected",  # as the parser keeps a JSON message
    # (not `{t}: unauthorized`: a short rest before a colon reads as a setting's name, `Nh73B9wRCAnpb: ...`, with a
    # real line end too - another class, left: benchmarks/results/fix-turn49.txt)
    '{{"level": "error", "message": "HTTPError: 401 for the client {t} (unauthorized)"}}',
    "<pre>tweepy.errors.Unauthorized: 401 Unauthorized (bearer {t})</pre>",
]
_FIRST = "BCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"  # not an A: the run of A's is the prefix


@st.composite
def bearer_tokens(draw: st.DrawFn) -> tuple[str, str]:
    """(token, its rest): 20 to 24 A's, then base64 of random bytes URL-escaped, as a Twitter bearer token is (the
    bytes from a drawn seed: hypothesis's own bytes shrink to zeros, base64 A's, which the prefix's A's show anyway)."""
    raw = random.Random(draw(st.integers(0, 2**32))).randbytes(draw(st.integers(40, 75)))
    rest = draw(st.sampled_from(_FIRST)) + quote(b64encode(raw).decode(), safe="")
    return "A" * draw(st.integers(20, 24)) + rest, rest


@given(token=bearer_tokens(), cut=st.floats(0.0, 1.0), brk=st.sampled_from(LINE_ENDS), context=st.sampled_from(CONTEXTS))
@example(token=("AAAAAAAAAAAAAAAAAAAAAMq2zdYHZX4qUxXPruSnp%2BIrDOsruBwaozIjsVCm4c455m%3DtdIKOJDOQa3ycdbQdvU2pPjOtn1rmgZ7ERT"
                "ODDItcdcSMG", "Mq2zdYHZX4qUxXPruSnp%2BIrDOsruBwaozIjsVCm4c455m%3DtdIKOJDOQa3ycdbQdvU2pPjOtn1rmgZ7ERTODDItcdcSMG"),
         cut=0.0, brk="\\n", context=CONTEXTS[0])
@SETTINGS
def test_a_url_escaped_token_cut_by_an_escaped_line_end_never_shows(token: tuple[str, str], cut: float, brk: str,
                                                                    context: str) -> None:
    tok, rest = token
    whole = context.format(t=tok)
    assert not shown(rest, redact(whole), context), whole  # the control: the token unbroken is masked
    k = 1 + int(cut * (len(rest) - 2))  # 1 to len - 1 characters of the rest before the cut
    text = context.format(t=tok[:len(tok) - len(rest) + k] + brk + rest[k:])
    out = redact(text)
    assert not shown(rest, out, context), (text, out)


def test_the_draws_class_leaked_at_every_cut_before() -> None:
    """The draw's token cut at each place by each escaped line end (before fix49: 265 of the 665 leaked a piece, every
    cut 1 to 40 characters after the prefix)."""
    rest = "Mq2zdYHZX4qUxXPruSnp%2BIrDOsruBwaozIjsVCm4c455m%3DtdIKOJDOQa3ycdbQdvU2pPjOtn1rmgZ7ERTODDItcdcSMG"
    leaked = []
    for k in range(1, len(rest)):
        for brk in LINE_ENDS:
            text = f"client {'A' * 21}{rest[:k]}{brk}{rest[k:]} was rejected"
            if shown(rest, redact(text)):
                leaked.append((k, brk))
    assert not leaked, leaked


def test_texts_with_url_escapes_and_escaped_line_ends_are_kept() -> None:
    """No secret in these: a URL's escaped path, a base64 run of zero bytes, percentages, words after the line end."""
    for text in ("GET https://example.test/api/files%2Fmodel%2Fpytorch_model.bin failed\\nretrying in 5 s",
                 "data: AAAAAAAAAAAAAAAAAAAAAAAA\\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==",
                 "100%|##########| 50/50 [00:10<00:00]<br>Epoch 2: loss=0.25 accuracy=91%",
                 "saved to s3://bucket/run%201/checkpoint-500&#10;next: uploading optimizer.pt (12%)",
                 '{"msg": "query q=model%20card%20for%20llama\\r\\nstatus: 404 Not Found"}'):
        assert redact(text) == text, text

"""Redaction's false positives found by the review of turn 37: a path after a generic keyword at the end of a text
(`_cut_head` took the keyword's rule for any head) and an issue reference beside a weak name."""

from __future__ import annotations

import pytest

from kb.diagnose.redact import redact


@pytest.mark.parametrize("text", [
    "No such file or directory: 'runs/llama-v1.0-checkpoint-500'",  # v1.0-: Cloudflare's keys are hex
    "OSError: models/key-Value2Model",  # key-: Mailgun's keys are hex
    "so they may be tuned on this session: img2img-turbo#97, lincir#22,",  # an issue reference, not a session id
])
def test_names_and_paths_are_not_masked(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(("text", "secret"), [
    ("token = ghp_A1b2C3d4E5f6G7h8", "A1b2C3d4E5f6G7h8"),  # a head cut at the text's end, in the rule's alphabet
    ("x = xoxb-12345678901-Ab", "12345678901-Ab"),
    ("session: 8f3a9c2e1d4b7a6f5e0d", "8f3a9c2e1d4b7a6f5e0d"),  # a weak name's random value is still masked
])
def test_secret_heads_and_weak_values_are_still_masked(text: str, secret: str) -> None:
    assert secret not in redact(text)



def test_a_block_of_base64_lines_is_searched_from_its_first_line_only() -> None:
    """Each line start of a block was a start of its own (2,100 lines of 76 characters that a longer line ends took
    7.2 s at the review, each start scanning the rest of the block and giving its lines back one by one; 0.24 s
    after). A line that continues a block's 76-character line starts none."""
    from kb.diagnose.redact import _BLOCK, _base64_blocks

    line = "QUJD" * 19  # 76 characters
    text = "\n".join([line] * 3) + "\nQUJD\n"
    _base64_blocks(text)  # builds the pattern
    assert [m.start() for m in _BLOCK[0].finditer(text)] == [0]
    assert _BLOCK[0].search(text, 77) is None  # from the second line on: no start


def test_a_token_cut_before_its_inner_keyword_is_joined_across_the_break() -> None:
    """Terraform Cloud's token (14 characters, `.atlasv1.`, 67) cut after its 5th character by a carriage return:
    the line before ends in what reads like a word of prose; the next line's word holds the rule's keyword past its
    start, so the break is a wrap (found by tests/test_hostile_turn37.py's property test in CI)."""
    head, rest = "dpcoj", "fy57633w1.atlasv1.wd3wnvfqp5sc8v483mulfzclh5qfuixhmrwm58y6fpm1q8pth1u2z0q6zd04eazuu3u"
    out = redact(f"RuntimeError: upload failed for  yy {head}\r{rest} (status 401)\n")
    assert "atlasv1" not in out and rest[-12:] not in out
    assert redact("the run failed\ntraining.atlasv1 notes\n") == "the run failed\ntraining.atlasv1 notes\n"

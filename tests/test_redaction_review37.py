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

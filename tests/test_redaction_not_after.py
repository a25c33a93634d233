"""A rule's `not_after` words (tables/secrets.toml): what the line says a value is decides for a shape that a git
commit and a key share (40 hex digits: a W&B API key, a commit's SHA-1). drift-54's diffusers#2412 names a commit
"(i.e. 1e7f…)", which the W&B rule masked."""

from __future__ import annotations

import pytest

from kb.diagnose.redact import redact

HEX = "1e7f96544203724652707dc93a7671c90efd3eeb"


@pytest.mark.parametrize("line", [
    f"With a previous commit (i.e. {HEX}) the error doesn't appear",
    f"Reverting to the sha ({HEX}) fixed it",
    f"pinned revision: {HEX}",
    f"the commit hash is {HEX}",
])
def test_a_commit_named_before_the_value_on_its_line_is_not_masked(line: str) -> None:
    assert HEX in redact(line + "\n")


@pytest.mark.parametrize("line", [
    f"wandb login {HEX}",
    f"WANDB_API_KEY={HEX}",
    f"wandb: ERROR api_key {HEX} not valid",
    f"I made a commit yesterday.\nwandb login {HEX}",  # the word on another line says nothing of this value
    f"a commit broke it {'y' * 40} and then the key {HEX}",  # the word is more than 48 characters before it
])
def test_a_key_without_those_words_close_before_it_is_masked(line: str) -> None:
    assert HEX not in redact(line + "\n")

"""Turn 42's merge of wrap42 and hostile42: what the merged tree failed, as regressions.

- kb/diagnose/quoted.py reads redaction's secret_spans at each call (the one switch the control tests turn off), not a
  copy bound when it was first imported.
- A token with a ``=`` inside (hostile42's Bitbucket access token: ``ATCTT3xFfGN0``, 180 characters, ``=``, 8 hex
  digits) wrapped before its ``=``: the next line's ``<rest>=<hex>`` is the token's rest, not a setting, when the rest
  reads as random (16 characters or more); a setting's name made of words still ends the token.
- A CRI record tagged F ends its line (tests/test_hostile_turn40.py's test_records_that_end_their_line_are_not_joined).
"""

from __future__ import annotations

import pytest

import kb.diagnose.redact as redaction
from kb.diagnose.redact import redact
from kb.diagnose.redact.views import identity, joined

TOKEN = "ghp_" + "wsCeKeZCOL8sfP7BBjYMEaeevsu3r2503GmR"  # made up
# made up: the Bitbucket access token's form (tables/secrets.toml, vendor-prefixed-keys-t42)
HEAD = "ATCTT3xFfGN0" + "iDm_MAypk6FT5CgSsFtdYJ0k7xEAcSI22vkAVY4HvlpKCQF5LSdkkqPZ2IiZIGVDROiCOlxWDUq5U_tHzgy-H_DMU" \
       "ql3ntyohRFL08qrnQDp7MBybEkNLgBaHhUmwU7mjjW4zAGjXkj"
REST = "zAiI9Of_HvocUKTqAYHSmR6o_nB-uBDg0ZRwPnUQY=C8A8148D"


def test_quoted_redaction_is_switched_off_with_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    import kb.diagnose.quoted as quoted  # (imported before the switch: a name bound at import would keep the rules)

    text = f"RuntimeError: push failed with token {TOKEN}\n"
    assert quoted.secret_pieces(text)
    monkeypatch.setattr(redaction, "secret_spans", lambda text: [])
    assert quoted.secret_pieces(text) == ()


@pytest.mark.parametrize("prefix", ["May 01 12:00:01 gpu-host python[1234]: ", "E   ", "", "[2024-05-01 12:00:01] INFO "])
def test_a_token_wrapped_before_its_equals_sign_never_shows(prefix: str) -> None:
    text = f"{prefix}RuntimeError: the upload failed: client {HEAD}\n{prefix}{REST} was rejected\n"
    out = redact(text)
    assert "C8A8148D" not in out and "HvocUKTq" not in out and "was rejected" in out, out


@pytest.mark.parametrize("setting", ["WANDB_PROJECT=llama-sft-run2", "maxPositionEmbeddings2048=4096",
                                     "hf_hub_download_timeout=30", "aB3xZ=7"])
def test_a_setting_after_a_line_that_ends_in_a_token_is_not_joined(setting: str) -> None:
    """The near forms: a setting's name made of words, or shorter than 16, after a line of full width that ends in a
    whole token, starts a line of its own."""
    name = setting.split("=")[0]
    text = f"RuntimeError: the upload failed: client {HEAD}{REST[:-9]}\n{setting}\n"
    view = joined(identity(text))
    assert view is None or REST[:-9] + name not in view.text
    assert setting in redact(text)


def test_a_token_cut_by_a_shell_continuation_before_its_equals_sign_never_shows() -> None:
    """A shell's ``\\`` right after a word, the next line unindented: one word for the shell, whatever the rest holds
    (``w-jaItc=8F7CD1AD``: too short to read as random, it read as a setting)."""
    text = f"+ curl -fsS https://api.example.test/up -d client={HEAD}{REST[:-16]}\\\n{REST[-16:]} -o out.json\n"
    out = redact(text)
    assert "C8A8148D" not in out and "-o out.json" in out, out
    # an indented next line is a word of its own (a setting after a continued command stays)
    text = f"+ env HF_HOME=/data/hf/cache python train.py --token {TOKEN}\\\n    WANDB_MODE=offline\n"
    assert "WANDB_MODE=offline" in redact(text)


def test_a_token_cut_after_a_shell_continuation_and_an_indent_never_shows() -> None:
    """An indented next line after a word's ``\\``: a rest that is no identifier of one case goes on the word."""
    text = f"+ curl -fsS https://api.example.test/up -d client={HEAD}{REST[:-16]}\\\n  {REST[-16:]} -o out.json\n"
    assert "C8A8148D" not in redact(text)


def test_a_token_cut_right_after_a_keyword_that_ends_in_punctuation_never_shows() -> None:
    """Login with Amazon's ``Atzr|`` ends the line (hostile42's shape): the next line's first word is its token."""
    body = "IwEBZ6xOyuovflRGcD1RqF57QVdTGdh1563g6pfczIimcGGQ475kYM8xGGA3kjHo8_etvxOtL"  # made up
    out = redact(f"RuntimeError: upload failed for  yy Atzr|\n{body} (status 401)\n")
    assert "IwEBZ6xO" not in out and "(status 401)" in out, out
    # a line that ends in a `|` after plain words is no token's head
    text = "RuntimeError: the table ends here |\nIwEBZ6xOyuovflRGcD1RqF57QV is the next row\n"
    view = joined(identity(text))
    assert view is None or "|IwEB" not in view.text

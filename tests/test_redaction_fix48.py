"""Turn 48 (fix48): two leaks hypothesis found, as plain regressions for their classes.

1. A token wrapped across two lines of a numbered listing whose line number gains a digit (``cat -n``'s ``     9<TAB>``
   / ``    10<TAB>``, a gutter's ``  99 | `` / `` 100 | ``, ``grep -n``'s ``9:`` / ``10:``): the line number is a prefix
   both lines share, so the token's pieces are joined and the first one is masked too (it showed: ``hf_2yW4Acq9``).
2. An invisible character (a zero width, a soft hyphen) before a token whose shape takes URL escapes (a Twitter
   bearer token's ``%2B``, ``%3D``): the token is read whole with the character removed and its escapes as they are
   (the decoded view reads ``%2B`` as ``+``, which ends the token early; its head showed).
"""

from __future__ import annotations

import pytest

from kb.diagnose.redact import redact

BODY = "2yW4Acq9GFz6Y1t9EwL56nGisiWgNZq6ITZM"


def _pieces_shown(secret: str, out: str) -> list[str]:
    return [secret[i:i + 8] for i in range(len(secret) - 7) if secret[i:i + 8] in out]


@pytest.mark.parametrize(("first", "second"), [
    ("     9\t", "    10\t"),  # cat -n, the example hypothesis found
    ("    99\t", "   100\t"),
    ("   999\t", "  1000\t"),
    (" 99999\t", "100000\t"),  # the field is full: no space before the wider number
    ("  99 | ", " 100 | "),  # an editor's or a compiler's gutter
    ("9:", "10:"),  # grep -n: left-aligned, no space after the separator
    ("train.log:99:", "train.log:100:"),
])
def test_a_token_wrapped_where_the_line_number_gains_a_digit_never_shows(first: str, second: str) -> None:
    text = (f"{first}RuntimeError: upload failed for the client hf_{BODY[:8]}\n"
            f"{second}{BODY[8:]} (status 401)\n")
    out = redact(text)
    assert not _pieces_shown(BODY, out), out
    assert "hf_***" in out and out.startswith(first) and f"\n{second}*** (status 401)" in out, out


def test_a_numbered_listing_without_a_secret_is_left_as_it_is() -> None:
    text = ("     9\t    trainer = Trainer(model=model, args=training_args, train_dataset=dataset_train)\n"
            "    10\t    trainer.train(resume_from_checkpoint=checkpoint_directory)\n")
    assert redact(text) == text


TWITTER = ("AAAAAAAAAAAAAAAAAAAAA", "Mq2zdYHZX4qUxXPruSnp%2BIrDOsruBwaozIjsVCm4c455m%3DtdIKOJDOQa3ycdbQdvU2pPjOtn1rmgZ7ERT"
           "ODDItcdcSMG")


@pytest.mark.parametrize("mark", ["\u200b", "\u00ad", "\u2060", "\ufeff", "\u200c"])
@pytest.mark.parametrize("at", [0, 7, 20])
def test_an_invisible_character_in_a_url_escaped_token_hides_no_piece_of_it(mark: str, at: int) -> None:
    head, rest = TWITTER
    token = head + rest[:at] + mark + rest[at:]
    out = redact(f"upload rejected {token} (401)\n")  # (no name beside it: the token's shape alone must find it)
    assert not _pieces_shown(rest, out), out
    assert out.startswith("upload rejected ") and out.endswith(" (401)\n"), out


def test_the_example_hypothesis_found_with_a_zero_width_is_masked() -> None:
    head, rest = TWITTER
    out = redact(f" {head}\u200b{rest} rejected\n")
    assert out == f" {head}\u200b*** rejected\n"


@pytest.mark.parametrize("value", ["67445e814610", "1234e5678901"])
def test_hex_digits_that_read_as_a_float_with_a_huge_exponent_are_a_key(value: str) -> None:
    """3. (found by test_redaction_properties' draw in this turn's run, failing on main too) 12 hex digits with one
    ``e`` among them read as a float (``67445e814610``), and a number beside a name is never masked; a float's
    exponent has 1 to 3 digits, so these are a key."""
    out = redact(f"RuntimeError: CUDA error: device-side assert triggered\nKEY={value}\n\n")
    assert value not in out and "KEY=***" in out, out


@pytest.mark.parametrize("value", ["1e-5", "3.5e+10", "2e308", "6e4"])
def test_a_float_beside_a_name_stays(value: str) -> None:
    text = f"RuntimeError: CUDA error: device-side assert triggered\nKEY={value}\n\n"
    assert redact(text) == text

"""Every word the parser searches a whole log for has a non-empty remainder (kb/diagnose/input.py _RARE).

A trigger whose remainder is empty cannot be told absent from a chunk's remainder, so trigger_lines searches
the whole text of every chunk for it: ~0.1 s of the 200 MB log for ".errors." before "r" was kept (issue 26).
The prefilter is exact either way; this guards the speed only.
"""

from __future__ import annotations

from kb.diagnose.input import REMAINDER_DELETE
from kb.diagnose.parser import STRUCTURAL_TOKENS
from kb.diagnose.stream import _token_remainder


def test_every_structural_token_has_a_remainder() -> None:
    empty = [token for token in STRUCTURAL_TOKENS if not _token_remainder(token)]
    assert empty == []


def test_the_remainder_keeps_r_and_drops_the_vowels() -> None:
    assert _token_remainder(".errors.") == "rrr"
    assert b"r" not in REMAINDER_DELETE and b"e" in REMAINDER_DELETE

"""The timing helpers' own check: a quadratic function fails assert_linear, a linear one passes."""

from __future__ import annotations

import pytest
from timing_support import assert_linear


def _quadratic(text: str) -> int:
    """Each 64th position counts a pair in the text before it: n²/64 character steps."""
    return sum(text.count(text[i:i + 2], 0, i) for i in range(0, len(text), 64))


def _linear(text: str) -> int:
    return sum(text.count(text[i:i + 2], i, i + 4096) for i in range(0, len(text), 64))


def test_a_quadratic_function_fails_and_a_linear_one_passes() -> None:
    with pytest.raises(AssertionError):
        assert_linear(_quadratic, "ab cd ")
    assert_linear(_linear, "ab cd ")

"""kb/render/sanitize.py's sanitize_data keeps a printable string without calling sanitize_for_terminal (start-up): the
document it gives is the one every string passed through sanitize_for_terminal gives."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.render.sanitize import sanitize_data, sanitize_for_terminal

TEXT = st.lists(st.sampled_from(list("ab \t\n\x1b[31m\u202e\u200b\x7f\x85é") + ["\x1b]0;x\x07", "\x1b[2J"]),
                max_size=8).map("".join)
DATA = st.recursive(st.one_of(TEXT, st.integers(), st.none(), st.floats(allow_nan=False)),
                    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                                            st.dictionaries(TEXT, inner, max_size=4)), max_leaves=20)


def every_string(data: Any) -> Any:
    """sanitize_data as it was: sanitize_for_terminal called on every string, keys too."""
    if isinstance(data, str):
        return sanitize_for_terminal(data)
    if isinstance(data, dict):
        return {every_string(k): every_string(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [every_string(v) for v in data]
    return data


@settings(max_examples=300, deadline=None)
@given(DATA)
def test_the_same_document_as_sanitizing_every_string(data: Any) -> None:
    assert sanitize_data(data) == every_string(data)


def test_a_control_sequence_in_a_key_or_a_list_is_escaped() -> None:
    out = sanitize_data({"a\x1b[2Jb": ["x\u202ey", "ok"], "k": ("\x1b]0;t\x07",)})
    assert out == {"ab": ["x\\u202ey", "ok"], "k": [""]}

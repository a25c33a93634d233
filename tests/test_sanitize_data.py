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


# (audit49) Printable to str.isprintable() but escaped by sanitize_for_terminal: default-ignorable letters and marks
# that render as nothing. sanitize_data kept them raw inside a list or a dict (the notebook's document).
INVISIBLE_PRINTABLE = ["\u115f", "\u1160", "\u3164", "\uffa0", "\u034f", "\u17b4", "\u180b", "\ufe0f", "\U000e0100"]
INVISIBLE_TEXT = st.lists(st.sampled_from(["a", " ", "é", *INVISIBLE_PRINTABLE]), max_size=6).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.recursive(INVISIBLE_TEXT, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                          st.dictionaries(INVISIBLE_TEXT, inner, max_size=3)),
                    max_leaves=10))
def test_printable_invisible_characters_are_escaped_as_every_string_is(data: Any) -> None:
    assert sanitize_data(data) == every_string(data)


def strings(data: Any) -> list[str]:
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [t for k, v in data.items() for t in strings(k) + strings(v)]
    return [t for v in data for t in strings(v)] if isinstance(data, (list, tuple)) else []


def test_a_hangul_filler_in_a_list_and_a_key_is_escaped() -> None:
    for ch in INVISIBLE_PRINTABLE:
        assert ch.isprintable()
        out = sanitize_data({f"k{ch}": [f"a{ch}b"], "m": {"n": f"x{ch}"}})
        assert not any(ch in text for text in strings(out))
        assert out == {sanitize_for_terminal(f"k{ch}"): [sanitize_for_terminal(f"a{ch}b")],
                       "m": {"n": sanitize_for_terminal(f"x{ch}")}}

"""Redaction's start-up shortcuts (kb/diagnose/redact): the keyword screen that spares building the token rules
for a text none of them can apply to, and the memo of secret_spans by text. Neither may change what is masked."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from kb.diagnose import redact
from kb.diagnose.redact import _applicable, _longest_word, redact as redact_text
from kb.diagnose.redact.rules import keywordless_rules, screen, token_rules
from kb.knowledge.index import any_of
from kb.knowledge.tables import read_table

# letters of keywords and names, escapes, a wrap, separators: texts that hold keywords, near-keywords and neither
ALPHABET = list("abcdefghiklmnoprstuwxyzAKIghp_-=:/@.\\%\n \"'0123456789~")
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a GitHub token's shape (not a real one)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(ALPHABET), max_size=120))
@example("akia")
@example("x" * 45)
@example("Bearer abc")
def test_the_screen_passes_every_text_a_token_rule_applies_to(text: str) -> None:
    keywords, min_word = screen()
    lowered, longest = text.lower(), _longest_word(text)
    if any(rule.applies(lowered, longest) for rule in token_rules()):
        assert longest >= min_word or keywords.search(lowered) is not None


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(ALPHABET), max_size=120))
@example("x" * 45)
@example("matmul-expected-same-dtype and " + "y" * 40)
def test_without_a_keyword_the_keywordless_rules_are_the_rules_that_may_apply(text: str) -> None:
    # _secret_spans takes keywordless_rules() for a text the screen finds no keyword in, not _applicable's choice
    # among all of token_rules(): the same rule objects, in the same order
    keywords, _min_word = screen()
    lowered, longest = text.lower(), _longest_word(text)
    if keywords.search(lowered) is None:
        chosen = [rule for rule in keywordless_rules() if longest >= rule.min_word]
        assert chosen == _applicable(token_rules(), lowered, longest)
        assert all(a is b for a, b in zip(chosen, _applicable(token_rules(), lowered, longest)))


def test_the_keywordless_rules_are_those_of_the_table_without_keywords() -> None:
    assert keywordless_rules() == tuple(rule for rule in token_rules() if not rule.keywords)
    assert keywordless_rules(), "the table has rules without keywords (a long random word)"


def test_the_screen_regex_finds_exactly_the_texts_holding_a_keyword() -> None:
    words = {k for r in read_table("secrets")["rule"] for k in r["keywords"]}
    pattern = re.compile(any_of(words))
    for word in sorted(words):
        assert pattern.search(f"xx {word} yy"), word
    for text in ("", "expected mat1 and mat2 to have the same dtype", "RuntimeError", "double"):
        assert (pattern.search(text.lower()) is not None) == any(w in text.lower() for w in words)


def test_any_of_escapes_what_a_regex_reads_as_syntax() -> None:
    words = {"a.b", "x(y", "q~", "[z]", "a+", "@", "sig", "sign"}
    pattern = re.compile(any_of(words))
    for text, found in (("a.b", True), ("axb", False), ("x(y", True), ("[z]", True), ("z", False), ("aa+", True),
                        ("aaa", False), ("@", True), ("si", False), ("sig", True)):
        assert (pattern.search(text) is not None) is found, text


def test_a_secret_is_masked_the_same_whether_remembered_or_not() -> None:
    text = f"token={TOKEN} and then"
    redact._SEEN.clear()
    first = redact_text(text)
    assert TOKEN not in first
    assert redact_text(text) == first  # from the memo
    spans = redact.secret_spans(text)
    spans.clear()  # a caller changing the list it got changes nothing remembered
    assert redact.secret_spans(text) and redact_text(text) == first


def test_the_memo_forgets_when_full_and_skips_long_texts() -> None:
    redact._SEEN.clear()
    for i in range(redact.SEEN_TEXTS + 5):
        redact.secret_spans(f"line {i}")
    assert len(redact._SEEN) <= redact.SEEN_TEXTS
    long = "word " * (redact.SEEN_TEXT_CHARS // 5 + 1)
    redact.secret_spans(long)
    assert long not in redact._SEEN


B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(B64)), min_size=4, max_size=64).map(lambda w: w[: len(w) // 4 * 4]),
       st.sampled_from(["", "=", "=="]))
@example("OutOfMemoryError", "")
@example("dXNlcjpwYXNzd29yZDE=", "")
def test_a_word_whose_groups_do_not_start_below_32_never_decodes_to_ascii(word: str, pad: str) -> None:
    # _base64_secrets skips such a word without loading binascii: it must be one _holds_secret says no to
    import binascii

    word = word[: len(word) - len(pad)] + pad if len(word) >= 4 else word
    if len(word) < 4 or redact.ascii_heads(word):
        return
    try:
        binascii.a2b_base64(word).decode("ascii")
    except (binascii.Error, ValueError):
        return
    raise AssertionError(f"{word!r} decodes to ASCII")


def test_ascii_heads_keeps_words_that_decode_to_text() -> None:
    import base64

    for plain in (b"user:password1", b"hf_abcdefghijklmnop", b"AKIA1234567890ABCDEF", b"~~~~~~~~~~~~"):
        assert redact.ascii_heads(base64.b64encode(plain).decode()), plain
    assert not redact.ascii_heads("OutOfMemoryError")


def test_the_index_hands_out_the_screen_of_the_table_it_loaded(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """kb/knowledge/index.py computes the screen when it builds the index; rules.screen() takes it only for the very
    table read_table gives, and it is the screen computed from that table."""
    from kb.knowledge import index

    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    index.load_index()  # built and written
    index.load_index()  # from the cache's head
    secrets = read_table("secrets")
    remembered = index.remembered_screen(secrets)
    if remembered is not None:  # (read_table memoises per process: a table read before the index is not the index's)
        assert remembered == index.secrets_screen(secrets)
    loaded = index._SCREEN[0][0]
    assert index.remembered_screen(loaded) == index.secrets_screen(loaded)
    assert index.remembered_screen(dict(loaded)) is None  # another table (equal or not): computed, not taken

"""kb/knowledge/prefilter.py: the literals one of which every match of a regex holds. The index keeps them for the
signatures without a required literal, and `kb diagnose` passes over such a signature (and an entry with no other)
for a message holding none of them: that must never pass over a message the regex matches."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.knowledge.examples import devset_manifest, load_examples
from kb.knowledge.index import load_index
from kb.knowledge.prefilter import any_literals
from kb.knowledge.registry import load_knowledge

WORDS = ["out of memory", "CUDA", "dtype", "mat1", "float", "abc", "xyz", "Error", "(2)", "a.b"]


def test_alternations_give_each_branch_its_literal() -> None:
    # (re's parser takes the branches' common start out: CUDA (?:out of memory|error: out of memory))
    assert any_literals(r"CUDA out of memory|CUDA error: out of memory") == ("error: out of memory", "out of memory")
    assert any_literals(r"x(?:abcd|efgh)+y") == ("abcd", "efgh")
    assert any_literals(r"exitcode(?:: -9 \(pid|: -9\) rank)|Signal 9 \(SIGKILL\)") == ("Signal 9 (SIGKILL)",
                                                                                        "exitcode: -9")


def test_nothing_is_certain_where_a_way_through_needs_no_literal() -> None:
    for pattern in (r"(?:abcd)?|efgh", r"(?i)abcd|efgh", r"(?i:abcd)|efgh", r"[ab]|efgh", r"(?:abcd)*",
                    r"(?=abcd)|efgh", r"(?!abcd)\w|efgh", "(?x) abcd | efgh", "["):
        assert any_literals(pattern) == (), pattern


def test_a_literal_of_one_character_will_do() -> None:
    assert any_literals(r"^'(?P<model_type>[a-z][a-z0-9_]{1,60})'\s*$") == ("'",)
    assert any_literals(r"abcd|x") == ("abcd", "x")
    assert any_literals(r"[ab]cd|efgh") == ("cd", "efgh")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS + [r"\d+", r"\s*", "(?:x|y)", ".*?", "[a-z]"]), min_size=1, max_size=4),
                min_size=1, max_size=4),
       st.lists(st.sampled_from(WORDS + ["1", " ", "x", "y", "q"]), max_size=8))
def test_a_text_the_regex_matches_holds_one_of_its_literals(branches: list[list[str]], words: list[str]) -> None:
    pattern = "|".join("".join(re.escape(p) if p in WORDS else p for p in branch) for branch in branches)
    text = "".join(words)
    found = any_literals(pattern)
    if found and re.search(pattern, text):
        assert any(literal in text for literal in found), (pattern, text, found)


def test_every_signature_of_the_knowledge_is_sound_on_the_dev_set() -> None:
    """Each signature's any-of literals, on every line of every dev-set input (and its whole text): where its regex
    matches, one of them is there."""
    knowledge = load_knowledge()
    manifest = devset_manifest()
    texts = []
    for example in load_examples(manifest):
        text = (manifest.parent / example["file"]).read_text(encoding="utf-8", errors="replace")
        texts.append(text)
        texts.extend(text.splitlines())
    checked = 0
    for entry in (*knowledge.cases, *knowledge.families):
        for signature in entry.signatures:
            found = any_literals(signature.raw["message"])
            if not found:
                continue
            for text in texts:
                if signature.message.search(text):
                    checked += 1
                    assert any(literal in text for literal in found), (entry.key, signature.name, text[:200])
    assert checked > 100  # the dev set does exercise them


def test_the_index_keeps_them_for_the_signatures_without_a_literal(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path))
    for _ in range(2):  # built, then read from the cache file
        knowledge = load_index()
        with_alternatives = 0
        for entry in (*knowledge.cases, *knowledge.families):
            assert len(entry.alternatives) == len(entry.literals)
            for literal, alternatives, signature in zip(entry.literals, entry.alternatives, entry.signatures):
                if literal:
                    assert alternatives == []
                else:
                    assert tuple(alternatives) == any_literals(signature.raw["message"])
                    with_alternatives += bool(alternatives)
                    assert signature.may_match("nothing here at all") is (not alternatives)
        assert with_alternatives >= 5
        kb0002 = next(c for c in knowledge.cases if c.key == "KB0002")
        assert not kb0002.may_match("RuntimeError: expected mat1 and mat2 to have the same dtype")
        assert kb0002.may_match("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")

"""kb/apidrift/answer.py's memo of answers: an answer asked again is the one computed, a copy the caller may edit; the
memo is emptied when the data an answer reads is another object; it is bounded. (That the dev set's and the corpus's
documents are the same with it and without it: benchmarks/apidrift_answer_memo.py, benchmarks/results/ci-turn48a.txt.)
"""

from __future__ import annotations

import pytest

from kb.apidrift import answer as memo

QUESTION = ("unexpected-kwarg", {"name": "use_auth_token", "callable": "hf_hub_download"}, {}, None)
OTHER = ("enum-value", {"value": "adamw_hf", "enum": "OptimizerNames"}, {}, None)


@pytest.fixture()
def computed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The forms answer() computes (not found in the memo), with an empty memo of this test's own."""
    monkeypatch.setattr(memo, "_MEMO", {})
    monkeypatch.setattr(memo, "_MEMO_SOURCES", [])
    forms: list[str] = []
    inner = memo._answer

    def counting(form, fields, facts, env, h):  # noqa: ANN001, ANN202
        forms.append(form)
        return inner(form, fields, facts, env, h)

    monkeypatch.setattr(memo, "_answer", counting)
    return forms


def test_an_answer_asked_again_is_the_one_computed_and_a_copy(computed: list[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    first = memo.answer(*QUESTION)
    assert first is not None and first["facts"] and computed == ["unexpected-kwarg"]
    monkeypatch.setattr(memo, "ANSWER_MEMO", False)
    fresh = memo.answer(*QUESTION)
    monkeypatch.setattr(memo, "ANSWER_MEMO", True)
    assert computed == ["unexpected-kwarg"] * 2 and fresh == first
    again = memo.answer(*QUESTION)
    assert computed == ["unexpected-kwarg"] * 2, "answered from the memo"
    assert again == first and again is not first
    again["facts"].append("edited by the caller")
    again["fixes"].clear()
    assert memo.answer(*QUESTION) == first  # the memo keeps its own copy
    # the question's dicts in order are its key: other facts or versions are another question
    assert memo.answer(QUESTION[0], QUESTION[1], {"huggingface_hub": "0.26.0"}, None) is not None
    assert memo.answer(QUESTION[0], QUESTION[1], {}, {"huggingface_hub": "0.26.0"}) is not None
    assert len(computed) == 4


def test_the_memo_is_emptied_when_the_history_or_a_table_is_another(computed: list[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.apidrift import history, private

    first = memo.answer(*QUESTION)
    memo.answer(*QUESTION)
    assert len(computed) == 1
    monkeypatch.setattr(history, "_LOADED", {})  # the history loaded again: another object
    assert memo.answer(*QUESTION) == first and len(computed) == 2
    memo.answer(*QUESTION)
    assert len(computed) == 2
    table = private._table
    monkeypatch.setattr(private, "_table", lambda: table())  # a table's reader replaced (as a test may)
    memo.answer(*QUESTION)
    assert len(computed) == 3


def test_the_memo_is_bounded(computed: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo, "ANSWER_MEMO_SIZE", 2)
    third = ("unexpected-kwarg", {"name": "num_logits_to_keep", "callable": "Qwen2ForCausalLM.forward"}, {}, None)
    for question in (QUESTION, OTHER, QUESTION, third):  # QUESTION asked last before third: OTHER goes
        memo.answer(*question)
    assert len(memo._MEMO) == 2 and len(computed) == 3
    memo.answer(*QUESTION)
    assert len(computed) == 3
    memo.answer(*OTHER)
    assert len(computed) == 4
    long = ("unexpected-kwarg", {"name": "x" * memo.ANSWER_MEMO_KEY_CHARS, "callable": "hf_hub_download"}, {}, None)
    memo.answer(*long)
    memo.answer(*long)
    assert len(computed) == 6  # a question longer than ANSWER_MEMO_KEY_CHARS is not kept

"""Issue #25, turn 42 (drift42): readings added after drift-62's first score (benchmarks/results/
devset-drift-62-first-score.txt), each from a real report of drift-62; the messages are the libraries' as printed."""

from __future__ import annotations

from kb.apidrift.answer import _instead, answer
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import answer_document
from kb.knowledge.registry import load_knowledge

CLIP = ("The class CLIPFeatureExtractor is deprecated and will be removed in version 5 of Transformers. "
        "Please use CLIPImageProcessor instead.")


def test_a_class_deprecation_worded_the_class_x_is_dated_by_its_exports_and_names_its_replacement() -> None:
    # drift-62's InvokeAI#3416: transformers' FeatureExtractor classes open their message with "The class X", unquoted;
    # the top level exports CLIPFeatureExtractor up to 4.57.6, not in 5.0.0 (the "version 5" the message names)
    doc = answer("deprecation", {"said": CLIP}, {}, None)
    assert doc is not None and doc["library"] == "transformers" and doc["removed_in"] == "5.0.0"
    assert doc["renamed_to"] == "CLIPImageProcessor"
    assert any("CLIPImageProcessor" in f for f in doc["fixes"])


def test_a_report_titled_by_the_class_deprecation_is_answered() -> None:
    log = ("[FutureWarning] - CLIPFeatureExtractor is deprecated\n"
           "N:\\InvokeAI\\.venv\\lib\\site-packages\\transformers\\models\\clip\\feature_extraction_clip.py:28: "
           f"FutureWarning: {CLIP}\n")
    knowledge = load_knowledge()
    answers = diagnose_lines(log.splitlines(), knowledge).answers
    assert answers
    drift = answer_document(answers[0], frozenset(knowledge.api_history_families)).get("drift")
    assert drift is not None and drift["removed_in"] == "5.0.0" and drift["renamed_to"] == "CLIPImageProcessor"


def test_an_undotted_replacement_is_a_class_or_an_underscored_name_never_a_plain_word() -> None:
    assert _instead(CLIP, "CLIPFeatureExtractor") == "CLIPImageProcessor"
    assert _instead("Use prepare_model_for_kbit_training instead", "x") == "prepare_model_for_kbit_training"
    assert _instead("Please use it instead.", "x") is None
    assert _instead("Use the PyTorch implementation instead", "x") is None

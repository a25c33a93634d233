"""Issue #25, drift-37's misses made general. datasets 4.0 stopped running loading scripts: its RuntimeError
("Dataset scripts are no longer supported, but found x.py") comes after a line it logs when the call passed
trust_remote_code ("`trust_remote_code` is not supported anymore."), in backticks. A paste that stops before the
traceback's last line keeps only that logged line, and a title copies the RuntimeError's words in lower case: both
are the same verified change (drift/datasets-loading-script). Inputs are the reports' own lines
(tests/fixtures/diagnose/dev/drift-37-*)."""

from __future__ import annotations

from kb.diagnose.drift import recognise
from drift_support import DEV, drift_of, top

# stanfordnlp/dspy#8590 and MultimodalUniverse#178: the logged line, then a traceback cut before its last line
LOGGED = ("`trust_remote_code` is not supported anymore.\n"
          "Please check that the Hugging Face dataset 'hotpot_qa' isn't based on a loading script and remove "
          "`trust_remote_code`.\n"
          "If the dataset is based on a loading script, please ask the dataset author to remove it and convert it to a "
          "standard format like Parquet.\n")
# huggingface/audio-transformers-course#219: the title, in lower case
TITLE = "Unit 1. (datasets) dataset scripts are no longer supported\n"


def _is_loading_script_answer(text: str) -> None:
    answer = top(text)
    assert answer is not None and answer.match.entry.family == "api-drift"
    assert answer.drift is not None and answer.drift["library"] == "datasets"
    assert answer.drift["removed_in"] == "4.0.0"
    assert any("parquet" in fix.lower() for fix in answer.drift["fixes"])
    assert any("datasets<4.0" in fix for fix in answer.drift["fixes"])


def test_the_logged_line_in_backticks_is_the_loading_script_change() -> None:
    _is_loading_script_answer(LOGGED)


def test_a_lower_case_title_is_the_loading_script_change() -> None:
    _is_loading_script_answer(TITLE)


def test_recognise_reads_both_quotes_and_the_library_case() -> None:
    for said in ("`trust_remote_code` is not supported anymore.", "'trust_remote_code' is not supported anymore.",
                 "dataset scripts are no longer supported"):
        found = recognise("", said)
        assert found is not None and found[0] == "verified-change", said
    found = recognise("RuntimeError", "dataset scripts are no longer supported, but found x.py")
    assert found is not None and found[1]["message"].startswith("Dataset scripts")
    assert found[1]["script"] == "x.py"


def test_a_prose_mention_of_trust_remote_code_is_not_the_change() -> None:
    assert recognise("", "trust_remote_code is needed for this model") is None


def test_the_report_files_are_answered_with_the_release() -> None:
    for name in ("dspy-8590", "audio-transformers-course-219", "MultimodalUniverse-178"):
        _is_loading_script_answer((DEV / f"drift-37-{name}.txt").read_text(encoding="utf-8"))


# THUDM/ChatGLM-Tuning#145: the title copies Python's "No module named" in lower case
TORCH_SIX = "no module named 'torch._six'\n是不是只支持torch1系列的？\n"


def test_a_lower_case_no_module_title_is_read_as_pythons_message() -> None:
    found = recognise("", "no module named 'torch._six'")
    assert found == ("no-module", {"module": "torch._six"})
    drift = drift_of(TORCH_SIX)
    assert drift is not None and drift["library"] == "torch"
    assert any("gone in torch 2.0.0" in fact for fact in drift["facts"])
    assert any("torch<2.0" in fix for fix in drift["fixes"])


def test_a_lower_case_title_of_a_library_outside_the_stack_is_not_api_drift() -> None:
    answer = top("no module named 'flask_login'\n")
    assert answer is None or answer.match.entry.family != "api-drift"


# Deep-Agent/R1-V#75: the title is cut inside the keyword's name, its quote never closed
CUT = "BUG: TypeError: Qwen2VLGRPOVLLMTrainer.compute_loss() got an unexpected keyword argument 'num_items_in_bat\n"


def test_a_keyword_cut_at_the_line_end_is_completed_from_the_method_history() -> None:
    found = recognise("TypeError", CUT.split("TypeError: ", 1)[1].strip())
    assert found == ("unexpected-kwarg", {"callable": "Qwen2VLGRPOVLLMTrainer.compute_loss",
                                          "name": "num_items_in_batch"})
    drift = drift_of(CUT)
    assert drift is not None and drift["library"] == "transformers"
    assert any("num_items_in_batch=None" in fix for fix in drift["fixes"])


def test_a_closed_quote_or_a_whole_name_is_not_completed() -> None:
    closed = recognise("TypeError", "X.compute_loss() got an unexpected keyword argument 'num_items_in_bat'")
    assert closed is not None and closed[1]["name"] == "num_items_in_bat"
    whole = recognise("TypeError", "SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer")
    assert whole is not None and whole[1]["name"] == "tokenizer"
    short = recognise("TypeError", "X.compute_loss() got an unexpected keyword argument 'num")
    assert short is not None and short[1]["name"] == "num"


# microsoft/nlp-recipes#516 and JetRunner/BERT-of-Theseus#12: a name gone from a module in the release that gave the
# module one new name holding all of its words (the history's exports, read from the wheels)
WARMUP = "ImportError: cannot import name 'WarmupLinearSchedule' from 'transformers' (/x/transformers/__init__.py)\n"
ARCHIVE = ("ImportError: cannot import name 'BERT_PRETRAINED_MODEL_ARCHIVE_MAP' from 'transformers.modeling_bert' "
           "(/x/transformers/modeling_bert.py)\n")


def test_a_gone_name_is_given_the_new_name_holding_its_words() -> None:
    drift = drift_of(WARMUP)
    assert drift is not None and drift["removed_in"] == "2.2.0"
    assert any("from transformers import get_linear_schedule_with_warmup" in fix for fix in drift["fixes"])
    assert not any("no replacement recorded" in fact for fact in drift["facts"])
    drift = drift_of(ARCHIVE)
    assert drift is not None and drift["removed_in"] == "2.11.0"
    assert any("BERT_PRETRAINED_MODEL_ARCHIVE_LIST" in fix for fix in drift["fixes"])


def test_no_successor_for_a_one_word_name_a_present_name_or_several_fits() -> None:
    from kb.apidrift.answer import _successor
    from kb.apidrift.history import load_history

    h = load_history()
    hf = h.export_versions("transformers", "transformers.utils.hub", "HfFolder")
    assert hf and _successor(h, "transformers", "transformers.utils.hub", "HfFolder", hf) is None  # one word
    present = h.export_versions("transformers", "transformers", "AutoModel")
    assert _successor(h, "transformers", "transformers", "AutoModel", present) is None  # never went
    # WarmupCosineSchedule went in 2.2.0 too, but get_cosine_schedule_with_warmup and
    # get_cosine_with_hard_restarts_schedule_with_warmup both hold its words: no single successor
    cosine = h.export_versions("transformers", "transformers", "WarmupCosineSchedule")
    assert cosine and _successor(h, "transformers", "transformers", "WarmupCosineSchedule", cosine) is None


def test_the_report_files_get_the_new_names() -> None:
    for name, new in (("nlp-recipes-516", "get_linear_schedule_with_warmup"),
                      ("BERT-of-Theseus-12", "BERT_PRETRAINED_MODEL_ARCHIVE_LIST")):
        drift = drift_of((DEV / f"drift-37-{name}.txt").read_text(encoding="utf-8"))
        assert drift is not None and any(new in fix for fix in drift["fixes"]), name


# shariqfarooq123/imaginAIry#289 (cut): a name a transformers module re-exported from huggingface_hub
HF_FOLDER = "ImportError: cannot import name 'HfFolder' from 'transformers.utils.hub' (/x/transformers/utils/hub.py)\n"


def test_a_gone_re_export_points_to_the_library_that_exports_it() -> None:
    drift = drift_of(HF_FOLDER)
    assert drift is not None and drift["removed_in"] == "4.27.0"
    assert any(fix.endswith("port: from huggingface_hub import HfFolder") for fix in drift["fixes"])
    assert any("only re-exported it" in fact for fact in drift["facts"])
    assert any("huggingface_hub dropped `HfFolder` in 1.0.0" in fact for fact in drift["facts"])
    assert not any("no replacement recorded" in fact for fact in drift["facts"])


def test_a_name_of_no_other_library_has_no_owner() -> None:
    from kb.apidrift.answer import _reexported_from
    from kb.apidrift.history import load_history

    h = load_history()
    assert _reexported_from(h, "transformers", "WarmupLinearSchedule") is None
    owner = _reexported_from(h, "transformers", "HfFolder")
    assert owner is not None and owner[0] == "huggingface_hub"

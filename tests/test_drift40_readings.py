"""Issue #25, turn 40 (drift40): readings added after drift-58's first score (kb/apidrift/answer.py,
kb/diagnose/drift.py, families/api-drift.md), each from a real report of drift-53, drift-56 or drift-58."""

from __future__ import annotations

from pathlib import Path

from kb.apidrift.answer import answer
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import answer_document
from kb.knowledge.registry import load_knowledge

DEV = Path(__file__).parent / "fixtures" / "diagnose" / "dev"


def _drift(text: str) -> dict | None:
    knowledge = load_knowledge()
    answers = diagnose_lines(text.splitlines(), knowledge).answers
    if not answers:
        return None
    return answer_document(answers[0], frozenset(knowledge.api_history_families)).get("drift")


def test_a_subclass_named_after_a_tracked_class_reads_that_class_s_member_history() -> None:
    # drift-58's SICK_Summarization#4, AutoCompressors#13, wanda#49: a Trainer subclass reads self.do_grad_scaling,
    # set by transformers.Trainer up to 4.34.1
    doc = answer("object-attribute", {"cls": "DualDecoderTrainer", "name": "do_grad_scaling"}, {}, None)
    assert doc is not None and doc["subject"] == "transformers.Trainer.do_grad_scaling"
    assert doc["removed_in"] == "4.35.0"
    assert any("its name ends with `Trainer`" in f for f in doc["facts"])


def test_a_member_the_named_class_never_changed_is_not_read_through_the_name() -> None:
    # `train` is a member of every covered Trainer: the name says nothing about when the report's class lost it
    doc = answer("object-attribute", {"cls": "DualDecoderTrainer", "name": "train"}, {}, None)
    assert doc is None or doc.get("subject") != "transformers.Trainer.train" or not doc.get("removed_in")


ADAMW = ("This implementation of AdamW is deprecated and will be removed in a future version. Use the PyTorch "
         "implementation torch.optim.AdamW instead, or set `no_deprecation_warning=True` to disable this warning")


def test_a_deprecation_message_is_dated_by_the_history_s_record_of_its_own_words() -> None:
    doc = answer("deprecation", {"said": ADAMW}, {}, None)
    assert doc is not None and doc["subject"] == "transformers.AdamW"
    assert doc["removed_in"] == "4.50.0" and doc["renamed_to"] == "torch.optim.AdamW"
    assert any("'transformers<4.50'" in f for f in doc["fixes"])


def test_deprecate_kwarg_s_words_are_read_by_their_names_and_the_release_they_state() -> None:
    # transformers' deprecate_kwarg prints words its source does not hold; trl's SFTTrainer has its own record of the
    # same rename (trl 0.12.0-0.15.x), but "removed in version 5.0.0" is a transformers release (drift-58's trl#2290)
    said = ("`tokenizer` is deprecated and will be removed in version 5.0.0 for 'SFTTrainer.__init__'. "
            "Use 'processing_class' instead.")
    doc = answer("deprecation", {"said": said}, {}, None)
    assert doc is not None and doc["library"] == "transformers" and doc["removed_in"] == "5.0.0"
    assert doc["renamed_to"] == "processing_class"


def test_a_message_the_history_never_kept_is_not_answered() -> None:
    assert answer("deprecation", {"said": "The default value of the antialias parameter will change from None "
                                           "to True in v0.17 and `foo` is deprecated"}, {}, None) is None


WARNING_LOG = (f"/opt/venv/lib/python3.10/site-packages/transformers/optimization.py:411: FutureWarning: {ADAMW}\n"
               "  warnings.warn(\n")


def test_a_report_of_a_deprecation_warning_alone_is_answered_from_the_history() -> None:
    drift = _drift("Fix the deprecated optimizer\n" + WARNING_LOG)
    assert drift is not None and drift["form"] == "deprecation" and drift["removed_in"] == "4.50.0"


def test_a_warning_under_a_title_that_reports_an_error_is_not_the_answer() -> None:
    # corpus gh-ext-02's LlamaFactory#4358: "多卡训练报错" (a training error, not shown) above an evaluation_strategy
    # FutureWarning; and a log piped alone, whose only words are the warning's own
    knowledge = load_knowledge()
    for log in ("多卡训练报错\n" + WARNING_LOG, WARNING_LOG):
        assert diagnose_lines(log.splitlines(), knowledge).answers == [], log[:20]


def test_a_deprecation_warning_beside_an_error_leaves_the_error_to_decide() -> None:
    log = ("Fix the deprecated optimizer\n" + WARNING_LOG +
           "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    main()\n"
           "ZeroDivisionError: division by zero\n")
    drift = _drift(log)
    assert drift is None or drift.get("form") != "deprecation"


def test_a_warning_of_another_library_is_not_claimed() -> None:
    log = ("/opt/venv/lib/python3.10/site-packages/pandas/core/frame.py:1: FutureWarning: DataFrame.applymap has been "
           "deprecated. Use DataFrame.map instead.\n")
    knowledge = load_knowledge()
    assert diagnose_lines(log.splitlines(), knowledge).answers == []


def test_a_title_that_is_a_deprecation_message_is_answered_in_prose() -> None:
    # drift-58's joytag#11: torch's message pasted without its warning's class
    log = ("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be removed. "
           "Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with updated signature.\n")
    drift = _drift(log)
    assert drift is not None and drift["renamed_to"] == "torch.nn.attention.sdpa_kernel"
    assert any("exported from torch 2.3.0" in f for f in drift["facts"])


def test_a_class_tracked_only_in_old_releases_is_read_through_a_base_tracked_after_it() -> None:
    # drift-53's neural-cherche#42, german-sentiment-lib#18: BertTokenizer's members are read in 2.x-3.x only; its base
    # PreTrainedTokenizerBase lost batch_encode_plus in 5.0.0
    doc = answer("object-attribute", {"cls": "BertTokenizer", "name": "batch_encode_plus"}, {}, None)
    assert doc is not None and doc["subject"] == "transformers.PreTrainedTokenizerBase.batch_encode_plus"
    assert doc["removed_in"] == "5.0.0"


def test_the_tokenizer_wording_with_a_did_you_mean_or_a_quoted_name_is_read() -> None:
    # transformers >= 4.47's tokenizer __getattr__, with Python's suggestion after it (neural-cherche#42), or the
    # name quoted by the report (opencompass#2635): no frame, no signature; the history dates it
    for line in ("AttributeError: BertTokenizer has no attribute batch_encode_plus. Did you mean: '_encode_plus'?",
                 "AttributeError: Qwen2Tokenizer has no attribute 'encode_plus'"):
        drift = _drift(line)
        assert drift is not None and drift["removed_in"] == "5.0.0", line


def test_a_one_word_tail_is_read_only_when_it_is_a_long_word() -> None:
    # `…Model`, `…Config` name too many unrelated classes: a two-word tail or a long word (`Tokenizer`) only
    from kb.apidrift.answer import Drift, _named_base
    from kb.apidrift.history import load_history

    h = load_history()
    assert _named_base(Drift("object-attribute", None), h, "Qwen2Tokenizer", "encode_plus") is not None
    assert _named_base(Drift("object-attribute", None), h, "MyOwnModel", "encode_plus") is None


def test_a_module_name_cut_in_a_title_is_read_as_the_one_module_exporting_the_name_that_starts_so() -> None:
    # drift-53's index-tts#281: "cannot import name 'QuantizedCacheConfig' from 'transformers.cache" (cache_utils)
    doc = answer("import-name", {"name": "QuantizedCacheConfig", "module": "transformers.cache"}, {}, None)
    assert doc is not None and doc["subject"] == "from transformers.cache_utils import QuantizedCacheConfig"
    assert doc["removed_in"] == "4.56.0"
    # a module that exists is never replaced by a longer one
    doc = answer("import-name", {"name": "QuantizedCacheConfig", "module": "transformers"}, {}, None)
    assert doc is not None and doc["subject"] == "from transformers import QuantizedCacheConfig"


def test_a_title_s_import_error_with_a_name_from_a_module_is_a_prose_reading() -> None:
    from kb.diagnose.drift import prose_readings

    head = ["Import error with `'split_torch_state_dict_into_shards' from 'huggingface_hub'`"]
    assert prose_readings(head) == [{"name": "split_torch_state_dict_into_shards", "module": "huggingface_hub",
                                     "line": "0"}]
    drift = _drift(head[0] + "\nWith huggingface-hub version 0.19.4, some failures are occuring.\n")
    assert drift is not None and drift["added_in"] == "0.21.0"


def test_a_class_renamed_by_its_letters_case_is_read_as_one_class() -> None:
    # transformers 5.0.0 tracks PretrainedConfig as PreTrainedConfig, without pad_token_id (drift-53's
    # transformers#45850, through BertConfig, tracked in 2.x-3.x only)
    from kb.apidrift.answer import _continuation
    from kb.apidrift.history import load_history

    h = load_history()
    assert _continuation(h, "transformers", "transformers.PretrainedConfig") == "transformers.PreTrainedConfig"
    assert _continuation(h, "transformers", "transformers.Trainer") is None  # tracked to the latest release
    for cls in ("PretrainedConfig", "BertConfig"):
        doc = answer("object-attribute", {"cls": cls, "name": "pad_token_id"}, {}, None)
        assert doc is not None and doc["removed_in"] == "5.0.0", cls
    doc = answer("object-attribute", {"cls": "PretrainedConfig", "name": "to_dict"}, {}, None)
    assert doc is None or not doc["removed_in"]  # kept by the continuation: no change to tell


def test_runpy_s_unquoted_missing_module_in_a_title_is_read() -> None:
    # drift-53's transformers#22355: `python -m transformers.onnx` on transformers 4.5.1 prints the module unquoted
    drift = _drift("No module named transformers.onnx\n- `transformers` version: 4.5.1\n")
    assert drift is not None and drift["added_in"] == "4.9.0" and drift["installed"] == "4.5.1"
    assert _drift("No module named mypackage.utils\n") is None  # not a covered library's module


def test_a_paraphrase_with_markdown_s_init_and_a_spaced_keyword_is_read() -> None:
    # drift-53's llm-dev#4: "Accelerator.init got an unexpected keyword argument 'dispatch batches'"
    from kb.diagnose.drift import recognise

    line = "TypeError:Accelerator.init got an unexpected keyword argument 'dispatch batches'"
    assert recognise("TypeError", line.split(":", 1)[1]) == (
        "unexpected-kwarg", {"callable": "Accelerator.__init__", "name": "dispatch_batches"})
    drift = _drift(line)
    assert drift is not None and drift["removed_in"] == "1.0.0"
    # a name with no space stays as written
    assert recognise("TypeError", "Accelerator got unexpected keyword foo")[1]["name"] == "foo"

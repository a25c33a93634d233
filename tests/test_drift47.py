"""Turn 47 (drift47): classes of drift-72's first-score misses and the drift sets' partials (issue #25)."""

from __future__ import annotations

from drift_support import top_match as _top
from kb.apidrift.answer import answer


def test_super_object_missing_a_method_every_covered_base_dropped_is_dated_with_the_deprecations_successor() -> None:
    # drift-72 RDRec#4: a subclass of a T5 model calls super().beam_search(); GenerationMixin.beam_search (and the
    # model classes inheriting it) went in transformers 4.41.0, after 4.39.0's deprecation naming `generate`
    top = _top("AttributeError: 'super' object has no attribute 'beam_search'\n")
    assert top is not None and top["id"] == "api-drift"
    drift = top["drift"]
    assert drift["subject"] == "transformers.GenerationMixin.beam_search"
    assert drift["removed_in"] == "4.41.0" and drift["renamed_to"] == "generate"
    assert any("transformers<4.41" in fix for fix in drift["fixes"])


def test_super_object_missing_a_method_a_covered_class_still_has_is_not_dated() -> None:
    # `forward` is a member of classes in the latest covered release: the base in use may have it; nothing to date
    fields = {"cls": "super", "name": "forward", "nearby": "", "said": "'super' object has no attribute 'forward'"}
    assert answer("object-attribute", fields, {}, None) is None


def test_super_object_missing_a_name_no_covered_class_ever_had_is_not_answered_from_the_history() -> None:
    fields = {"cls": "super", "name": "frobnicate_twice", "nearby": "",
              "said": "'super' object has no attribute 'frobnicate_twice'"}
    assert answer("object-attribute", fields, {}, None) is None


def test_an_old_tracked_class_reads_a_member_its_base_dropped_right_after_the_class_tracking_ends() -> None:
    # transformers 2.x-3.x model and tokenizer classes are tracked to 3.5.1 (their modules moved under
    # transformers.models in 4.0.0); PreTrainedTokenizerBase.max_len went in that same 4.0.0, with a deprecation
    # naming model_max_length (a zip grep of tokenization_utils_base.py: 3.5.1 has it, 4.0.0 not)
    top = _top("AttributeError: 'RobertaTokenizer' object has no attribute 'max_len'\n")
    assert top is not None and top["id"] == "api-drift"
    drift = top["drift"]
    assert drift["subject"] == "transformers.PreTrainedTokenizerBase.max_len"
    assert drift["removed_in"] == "4.0.0" and drift["renamed_to"] == "model_max_length"
    assert any("transformers<4.0" in fix for fix in drift["fixes"])


def test_a_remote_conditional_generation_class_without_generate_reads_through_the_base_that_dropped_it() -> None:
    # covered `…ForConditionalGeneration` classes inherit PreTrainedModel, whose bases lost GenerationMixin in
    # transformers 4.52.0 (drift-67/69's label: the class line of modeling_utils.py); base classes tracked only to 3.5.1
    # (AlbertPreTrainedModel: generate to its last tracked release) say nothing of a drop and no longer veto the reading
    top = _top("AttributeError: 'MiniCPMVForConditionalGeneration' object has no attribute 'generate'\n")
    assert top is not None and top["id"] == "api-drift"
    drift = top["drift"]
    assert drift["subject"] == "transformers.PreTrainedModel.generate" and drift["removed_in"] == "4.52.0"
    assert any("GenerationMixin" in fix for fix in drift["fixes"])
    assert any("<4.52" in fix for fix in drift["fixes"])


def test_a_tokenizer_class_autotokenizer_cannot_find_is_dated_from_the_exports() -> None:
    top = _top("ValueError: Tokenizer class GemmaTokenizer does not exist or is not currently imported.\n")
    assert top is not None and top["id"] == "model-unsupported"
    drift = top["drift"]
    assert drift["form"] == "tokenizer-class" and drift["added_in"] == "4.38.0"
    assert any("upgrade" in fix for fix in drift["fixes"])


def test_a_tokenizer_class_first_exported_as_its_fast_twin_is_dated_by_the_twin() -> None:
    # GPTNeoXTokenizer itself is exported only from 5.0.0; AutoTokenizer takes GPTNeoXTokenizerFast (4.20.0-4.57.6)
    drift = _top("ValueError: Tokenizer class GPTNeoXTokenizer does not exist or is not currently imported.\n")["drift"]
    assert drift["subject"].endswith("GPTNeoXTokenizerFast") and drift["added_in"] == "4.20.0"
    assert any(fix.startswith("upgrade") and ">=4.20" in fix for fix in drift["fixes"])


def test_a_tokenizer_class_the_installed_release_exports_gets_no_history_section() -> None:
    # transformers 4.45.2 exports LlamaTokenizer: a missing sentencepiece, not a release (the family's triage says so)
    top = _top("transformers==4.45.2\nValueError: Tokenizer class LlamaTokenizer does not exist or is not currently "
               "imported.\n")
    assert top is not None and top["id"] == "model-unsupported" and not top.get("drift")


def test_a_module_attribute_error_run_into_a_cjk_sentence_is_read() -> None:
    top = _top("运行train.py的时候报错module 'torch.nn' has no attribute 'SiLU'\n")
    assert top is not None and top["id"] == "api-drift"
    drift = top["drift"]
    assert drift["subject"].endswith("torch.nn import SiLU") and drift["added_in"] == "1.7.0"


def test_a_module_attribute_error_glued_to_an_ascii_word_is_still_not_read_as_one() -> None:
    from kb.diagnose.drift import recognise

    assert recognise("", "submodule 'torch.nn' has no attribute 'SiLU'") is None


def test_a_keyword_from_pretrained_hands_on_to_the_model_init_is_read_as_from_pretrained_s() -> None:
    # an older transformers' from_pretrained passes keywords it does not take to the model class's __init__
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/run.py", line 9, in <module>\n'
        "    model = AutoModelForCausalLM.from_pretrained(path, attn_implementation=\"sdpa\")\n"
        '  File "/home/u/env/lib/python3.8/site-packages/transformers/models/auto/auto_factory.py", line 566, in from_pretrained\n'
        "    return model_class.from_pretrained(\n"
        '  File "/home/u/env/lib/python3.8/site-packages/transformers/modeling_utils.py", line 3450, in from_pretrained\n'
        "    model = cls(config, *model_args, **model_kwargs)\n"
        "TypeError: __init__() got an unexpected keyword argument 'attn_implementation'\n"
    )
    top = _top(log)
    assert top is not None and top["id"] == "api-drift"
    drift = top["drift"]
    assert drift["subject"].startswith("transformers.PreTrainedModel.from_pretrained")
    assert drift["added_in"] and drift["added_in"].startswith("4.36")
    assert any("from_pretrained" in fact and "__init__" in fact for fact in drift["facts"])


def test_pylints_no_name_in_module_reads_as_the_import_it_reports() -> None:
    top = _top("No name 'AdamW' in module 'transformers'\n")
    assert top is not None and top["id"] == "api-drift"
    drift = top["drift"]
    assert drift["form"] == "import-name" and drift["removed_in"] == "4.50.0"
    assert "torch.optim.AdamW" in json_text(drift)


def test_pylints_no_name_in_a_module_of_no_covered_library_is_not_claimed() -> None:
    assert _top("No name 'helper' in module 'myproject.utils'\n") is None


def json_text(doc: dict) -> str:
    import json

    return json.dumps(doc)


def test_supported_tasks_reads_the_keys_of_the_literal() -> None:
    from kb.apidrift.pipeline_tasks import supported_tasks

    source = ('TASK_ALIASES = {\n    "sentiment-analysis": "text-classification",\n}\n'
              'SUPPORTED_TASKS = {\n    "summarization": {\n        "impl": X,\n    },\n'
              '    "text-generation": {\n        "impl": Y,\n    },\n}\nNO_TOKENIZER = {"x"}\n')
    assert supported_tasks(source) == {"summarization", "text-generation"}


def test_a_pipeline_task_the_installed_release_dropped_is_dated_from_the_wheels() -> None:
    top = _top("KeyError: \"Unknown task summarization, available tasks are ['any-to-any', 'audio-classification']\"\n")
    assert top is not None and top["id"] == "api-drift"
    drift = top["drift"]
    assert drift["removed_in"] == "5.0.0" and any("transformers<5.0" in fix for fix in drift["fixes"])


def test_a_pipeline_task_no_release_knew_gets_no_history_section() -> None:
    top = _top("KeyError: \"Unknown task summarisation-xl, available tasks are ['text-generation']\"\n")
    assert top is None or not top.get("drift")

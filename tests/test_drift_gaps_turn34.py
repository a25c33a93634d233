"""Issue #25, the gaps left after drift-35 made general (kb/diagnose/drift.py, kb/apidrift/answer.py,
kb/apidrift/history.py, tables/api-history-before.toml): an answer from the history when no signature matched,
a class the history does not track read through the base its namesakes share, "'C' object is not callable",
a re-exported public path, a keyword whose work moved to a new function, Python 3.7's "cannot import name 'X'"
without its module, and names dated before a library's first covered release. Inputs are written the way
reports show them; the releases are the history's (tables/api-history.json.gz)."""

from __future__ import annotations

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.drift import recognise
from kb.knowledge.registry import load_knowledge


def top(text: str):  # noqa: ANN201 - an Answer or None
    answers = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers
    return answers[0] if answers else None


def drift_of(text: str) -> dict:
    answer = top(text)
    assert answer is not None and answer.match.entry.family == "api-drift"
    assert answer.drift is not None
    return answer.drift


def test_history_answers_a_member_no_signature_matched() -> None:
    # BartConfig is in no signature's class list: the history dates the member (transformers 2.9.0)
    answer = top("I get AttributeError: 'BartConfig' object has no attribute 'static_position_embeddings' "
                 "using transformers 2.8.\n")
    assert answer is not None and answer.match.entry.family == "api-drift"
    assert answer.match.signature.name == "prior:history"
    assert answer.drift["added_in"] == "2.9.0"
    assert any("upgrade" in fix and ">=2.9" in fix for fix in answer.drift["fixes"])


def test_history_does_not_answer_a_member_it_never_saw_change() -> None:
    # a name no covered class ever had: no dated change, so no answer from the history
    answer = top("AttributeError: 'BartConfig' object has no attribute 'qwzx_not_a_field'\n")
    assert answer is None or answer.match.signature.name != "prior:history"


def test_history_does_not_answer_when_the_installed_release_has_it() -> None:
    answer = top("transformers==3.0.2\nAttributeError: 'BartConfig' object has no attribute "
                 "'static_position_embeddings'\n")
    assert answer is None or answer.match.signature.name != "prior:history"


def test_untracked_model_class_is_read_through_the_base_its_namesakes_share() -> None:
    d = drift_of("AttributeError: 'EncT5ForSequenceClassification' object has no attribute 'post_init'\n")
    assert d["subject"] == "transformers.PreTrainedModel.post_init"
    assert d["added_in"] == "4.13.0"
    assert any("read as a subclass" in fact for fact in d["facts"])


def test_not_callable_is_read_as_the_call_method_history() -> None:
    assert recognise("TypeError", "'BertTokenizer' object is not callable") == ("not-callable", {"cls": "BertTokenizer"})
    assert recognise("TypeError", "'NoneType' object is not callable")[0] == "not-callable"
    d = drift_of("TypeError: 'BertTokenizer' object is not callable\n")
    assert d["added_in"] == "3.0.0"
    assert "PreTrainedTokenizerBase.__call__" in d["subject"]
    # a class that is not the stack's: nothing to read, no answer from the history
    answer = top("TypeError: 'NoneType' object is not callable\n")
    assert answer is None or answer.match.signature.name != "prior:history"


def test_reexported_public_path_maps_to_its_defining_class() -> None:
    text = ('Traceback (most recent call last):\n'
            '  File "/w/pretrain_gpt.py", line 39, in model_provider\n'
            '    with deepspeed.zero.Init(sequence_data_parallel_group=mpu.get_group(),\n'
            "TypeError: __init__() got an unexpected keyword argument 'sequence_data_parallel_group'\n")
    d = drift_of(text)
    assert d["subject"].startswith("deepspeed.runtime.zero.partition_parameters.Init(")
    assert d["added_in"] == "0.10.2"
    assert any("re-exported" in fact for fact in d["facts"])


def test_keyword_whose_work_moved_to_a_new_function_names_it() -> None:
    d = drift_of("TypeError: deepspeed_init() got an unexpected keyword argument 'resume_from_checkpoint'\n")
    assert d["removed_in"] == "4.30.0"
    assert any("deepspeed_load_checkpoint" in fact for fact in d["facts"])
    assert d["renamed_to"] is None  # said as what the history shows, not as a stated replacement


def test_python37_import_without_module_reads_the_library_off_the_name_or_the_import_line() -> None:
    d = drift_of("ImportError: cannot import name 'prepare_model_for_int8_training'\n")
    assert d["library"] == "peft" and d["removed_in"] == "0.10.0"
    d = drift_of("from trl import SFTTrainer, SFTConfig\nImportError: cannot import name 'SFTConfig'\n")
    assert d["library"] == "trl" and d["added_in"] == "0.9.2"
    assert any("nearby line" in fact for fact in d["facts"])


def test_python37_import_of_an_unknown_name_is_left_to_the_other_stages() -> None:
    answer = top("ImportError: cannot import name 'qwzx_nothing_exports_this'\n")
    assert answer is None or answer.drift is None


def test_type_object_attribute_is_a_class_member() -> None:
    assert recognise("AttributeError", "type object 'DynamicCache' has no attribute 'from_legacy_cache'") == \
        ("object-attribute", {"cls": "DynamicCache", "name": "from_legacy_cache"})


def test_names_added_before_the_first_covered_release_are_dated_from_the_before_table() -> None:
    d = drift_of("AttributeError: module 'torch.nn' has no attribute 'ModuleDict'\n")
    assert d["added_in"] == "0.4.1"
    assert any("'torch>=0.4.1'" in fix for fix in d["fixes"])
    d = drift_of("AttributeError: module 'torch' has no attribute 'no_grad'\n")
    assert d["added_in"] == "0.4.0"
    # a name the table does not list keeps the history's own wording
    d = drift_of("AttributeError: module 'torch' has no attribute 'tensordot'\n")
    assert d["added_in"] != "0.4.0"


def test_before_table_entries_are_older_than_the_coverage() -> None:
    from kb.apidrift.answer import _came_with_stub, _key
    from kb.apidrift.history import load_history
    from kb.knowledge.tables import read_table_file, table_path

    h = load_history()
    rows = read_table_file(table_path("api-history-before.toml"))["added"]
    assert rows
    for row in rows:
        first = h.versions(row["library"])[0]
        assert _key(row["added_in"]) < _key(first), row
        assert _key(row["last_without"]) < _key(row["added_in"]), row
        assert row["source"].startswith("https://"), row
        having = h.export_versions(row["library"], row["module"], row["name"])
        assert having[0] == first or _came_with_stub(h, row["library"], row["name"], having), row


def test_unquoted_or_capitalised_import_titles_name_their_module() -> None:
    from kb.diagnose.drift import _bare_import

    assert _bare_import("cannot import name 'top_k_top_p_filtering' from transformers", []) == (
        "import-name", {"name": "top_k_top_p_filtering", "module": "transformers", "bare": "unquoted"})
    assert _bare_import("Cannot import name 'SFTConfig' from 'trl'", [])[1]["module"] == "trl"
    assert _bare_import("cannot import name 'SFTConfig' from 'trl'", []) is None  # recognise's own form
    d = drift_of("ImportError: cannot import name 'top_k_top_p_filtering' from transformers\n")
    assert d["removed_in"] == "4.39.0"
    assert not any("names no module" in fact for fact in d["facts"])


def test_class_tracked_only_in_early_releases_is_read_through_its_base() -> None:
    # transformers' model and tokenizer classes are tracked up to 3.5.1 (before the lazy top level)
    d = drift_of("AttributeError: 'GPT2LMHeadModel' object has no attribute 'post_init'\n")
    assert d["subject"] == "transformers.PreTrainedModel.post_init" and d["added_in"] == "4.13.0"
    d = drift_of("AttributeError: 'BertTokenizer' object has no attribute 'apply_chat_template'\n")
    assert d["added_in"] == "4.34.0" and d["subject"].endswith("PreTrainedTokenizerBase.apply_chat_template")
    assert any("read through that base" in fact for fact in d["facts"])


def test_early_model_modules_have_every_class_members() -> None:
    # targets' member_modules: transformers 2.x-3.x's modeling_<model>.py classes (GPT-2's Attention)
    from kb.apidrift.history import load_history

    h = load_history()
    tracked, having = h.member_versions("transformers", "transformers.modeling_gpt2.Attention", "output_attentions")
    assert tracked and having and having[-1] == "2.11.0" and tracked[-1] == "3.5.1"
    d = drift_of("Error during attention intervention\n"
                 "`ModuleAttributeError: 'Attention' object has no attribute 'output_attentions`\n")
    assert d["removed_in"] == "3.0.0"
    assert len([f for f in d["fixes"] if f.startswith("or keep the code")]) == 1


def test_names_first_read_from_a_compiled_stub_are_not_dated_by_it() -> None:
    # torch's wheels declare torch._C (a .pyi stub) from 1.6.0: torch.where is not "added in 1.6.0"
    d = drift_of("AttributeError: module 'torch' has no attribute 'where'\n")
    assert d["added_in"] is None
    assert any("torch._C._VariableFunctions" in fact for fact in d["facts"])
    d = drift_of("AttributeError: module 'torch' has no attribute 'compile'\n")
    assert d["added_in"] == "2.0.0"  # a Python-level name keeps its date


def test_members_first_read_from_a_compiled_stub_are_not_dated_by_it() -> None:
    # torch.Tensor's C methods are declared from 1.6.0 (torch._C's stub): `bfloat16` is not "added in 1.6.0"
    answer = top("AttributeError: 'Tensor' object has no attribute 'bfloat16'\n")
    assert answer is None or answer.drift is None or answer.drift.get("added_in") != "1.6.0"
    d = drift_of("AttributeError: 'Tensor' object has no attribute 'mT'\n")
    assert d["added_in"] == "1.11.0"  # a member that came later keeps its date


def test_fields_tracked_longer_than_members_answer_an_attribute() -> None:
    # LlamaConfig's fields are tracked from 4.28.0, its members only from 4.52.0
    d = drift_of("AttributeError: 'LlamaConfig' object has no attribute 'head_dim'\n")
    assert d["added_in"] == "4.45.0"
    d = drift_of("AttributeError: 'LlamaConfig' object has no attribute 'rope_theta'\n")
    assert d["added_in"] == "4.33.0"


def test_prose_version_is_quoted_reads_the_installed_version() -> None:
    from kb.diagnose.versions import VersionScanner

    scanner = VersionScanner(("transformers",))
    scanner._look("My huggingFace transformers version is '3.0.2'")
    assert scanner.facts == {"transformers_version": "3.0.2"}
    scanner = VersionScanner(("transformers",))
    scanner._look("transformers version is 4.30 required")  # a requirement, not the installed one
    assert scanner.facts == {}


def test_class_named_by_python310_message_is_found_at_its_defining_module() -> None:
    from kb.apidrift.answer import answer

    d = answer("unexpected-kwarg", {"callable": "Init.__init__", "name": "sequence_data_parallel_group"}, {}, None)
    assert d is not None
    assert d["subject"].startswith("deepspeed.runtime.zero.partition_parameters.Init(") and d["added_in"] == "0.10.2"
    # a reading by the class name alone does not answer a log no signature matched (an SD optimizer's AdamW8bit)
    answer_ = top("TypeError: Init.__init__() got an unexpected keyword argument 'sequence_data_parallel_group'\n")
    assert answer_ is None or answer_.match.signature.name != "prior:history"
    d = drift_of("TypeError: LoraConfig.__init__() got an unexpected keyword argument 'use_dora'\n")
    assert len(d["facts"]) == len(set(d["facts"]))

"""Turn 46 (drift46): classes of the remaining silent drift reports of drift-32..68 (issue #25).

1. A hook the library calls on the user's (or a model's remote code's) object with a keyword its own release added:
   "ChatGLMPreTrainedModel._set_gradient_checkpointing() got an unexpected keyword argument 'enable'" (drift-45
   gen-ai-on-eks#12, self-llm#34, drift-64 LlamaFactory#1391): transformers 4.35.0 calls it with enable= and
   gradient_checkpointing_func=, where 4.34.x's models took (module, value) ([[hook]] keywords in
   tables/api-history-before.toml, kb/apidrift/positional.py keyword_hook).
2. Python's import and attribute messages as reports retype them, in prose with no error line or inside one:
   "cannot import named cached_download from huggingface_hub" (drift-45 hallo#2), "can not import name amp from
   torch.cuda" (drift-66 yolo_series_deepsort_pytorch#2), "no module named torch._dynamo." (drift-61
   knowledge-distillation-pytorch#52), "not module named huggingface_hub.utils._token" (drift-48 unsloth#1148),
   "module 'torch.cuda' has no attribtue 'amp'" (drift-65 apex#1260).
3. A bare "cannot import name 'X'" (no module: Python <= 3.7, or a title) whose name one module of the covered
   libraries alone ever exported is read as that module's import (drift-61 DyPRAG#3: FlashAttentionKwargs).
4. "multi_head_attention_forward got an unexpected keyword argument 'average_attn_weights'" (drift-68 DualCoOp#11): a
   call's parentheses a report dropped, and a function name only one covered callable has (not a guess that needs the
   report to name torch)."""

from __future__ import annotations

from pathlib import Path

import kb
from kb.apidrift.answer import answer
from kb.diagnose import drift

DEV = Path(__file__).parent / "fixtures" / "diagnose" / "dev"


def _drift(text: str) -> dict | None:
    """The API-history section of the top answer (None when kb is silent or the answer has none)."""
    answers = kb.diagnose_text(text).document["matches"]
    return answers[0].get("drift") if answers else None


# ---- 1. a hook called with a keyword its library's release added -----------------------------------------------

def test_an_override_of_a_hook_the_library_calls_with_a_new_keyword_dates_the_release_and_gives_both_fixes() -> None:
    d = _drift("TypeError: ChatGLMPreTrainedModel._set_gradient_checkpointing() got an unexpected keyword argument "
               "'enable'\n")
    assert d is not None and d["library"] == "transformers" and d["added_in"] == "4.35.0"
    assert d["subject"].startswith("transformers.PreTrainedModel._set_gradient_checkpointing(")
    assert any("transformers<4.35" in fix for fix in d["fixes"])
    assert any("gradient_checkpointing_func" in fix for fix in d["fixes"])
    assert any("4.34.1" in fact for fact in d["facts"])


def test_the_hook_is_found_from_the_method_name_alone() -> None:
    d = _drift("TypeError: _set_gradient_checkpointing() got an unexpected keyword argument 'enable'\n")
    assert d is not None and d["added_in"] == "4.35.0"


def test_a_keyword_the_hook_row_does_not_name_is_not_answered_by_it() -> None:
    # `module` is the old override's own parameter, never a keyword the library passes
    fields = {"callable": "ChatGLMPreTrainedModel._set_gradient_checkpointing", "name": "module"}
    found = answer("unexpected-kwarg", fields, {}, None)
    assert found is None or found["added_in"] != "4.35.0"


def test_the_real_reports_of_the_hook_are_answered_with_the_release() -> None:
    for name in ("drift-45-gen-ai-on-eks-12.txt", "drift-45-self-llm-34.txt", "drift-64-LlamaFactory-1391.txt"):
        d = _drift((DEV / name).read_text(encoding="utf-8"))
        assert d is not None and d["added_in"] == "4.35.0", name


# ---- 2. retyped messages --------------------------------------------------------------------------------------

def test_cannot_import_named_in_prose_reads_the_name_and_its_module() -> None:
    d = _drift("cannot import named cached_download from huggingface_hub\n")
    assert d is not None and d["removed_in"] == "0.26.0" and d["renamed_to"] == "huggingface_hub.hf_hub_download"


def test_a_lower_case_name_is_read_when_python_s_words_introduce_it_and_a_covered_module_qualifies_it() -> None:
    d = _drift("cuda issue\nimport error : can not import name amp from torch.cuda\n")
    assert d is not None and d["subject"] == "from torch.cuda import amp" and d["added_in"] == "1.5.0"


def test_a_lower_case_name_from_a_module_no_covered_library_has_stays_unanswered() -> None:
    assert _drift("cuda issue\nimport error : can not import name amp from mytools.cuda\n") is None


def test_no_module_named_in_any_case_with_a_full_stop_or_mistyped_not() -> None:
    d = _drift("no module named torch._dynamo\nit showes :    no module named torch._dynamo.\n")
    assert d is not None and d["added_in"] == "2.0.0"
    d = _drift("ERROR: not module named huggingface_hub.utils._token\n")
    assert d is not None and d["removed_in"] == "0.26.0"


def test_a_misspelt_attribute_in_python_s_message_is_read_as_attribute() -> None:
    d = _drift("AttributeError: module 'torch.cuda' has no attribtue 'amp'\n")
    assert d is not None and d["added_in"] == "1.5.0"
    assert drift._near("attribtue", "attribute") and drift._near("atribute", "attribute")
    assert not drift._near("argument", "attribute")
    assert drift._attribute_misspelt("module 'x' has no argument 'y'") == "module 'x' has no argument 'y'"


def test_the_real_retyped_reports_are_answered() -> None:
    expected = {"drift-45-hallo-2.txt": ("removed_in", "0.26.0"),
                "drift-66-yolo_series_deepsort_pytorch-2.txt": ("added_in", "1.5.0"),
                "drift-61-knowledge-distillation-pytorch-52.txt": ("added_in", "2.0.0"),
                "drift-48-unsloth-1148.txt": ("removed_in", "0.26.0"),
                "drift-65-apex-1260.txt": ("added_in", "1.5.0")}
    for name, (key, release) in expected.items():
        d = _drift((DEV / name).read_text(encoding="utf-8"))
        assert d is not None and d[key] == release, name


# ---- 3. a bare "cannot import name 'X'" whose name one module alone ever exported ------------------------------

def test_a_bare_import_name_is_read_in_the_one_module_of_the_covered_libraries_that_exports_it() -> None:
    from kb.apidrift.answer import _sole_module
    from kb.apidrift.history import load_history

    h = load_history()
    assert _sole_module(h, "FlashAttentionKwargs") == "transformers.modeling_flash_attention_utils"
    assert _sole_module(h, "AdamW") == ""  # torch's, bitsandbytes', transformers' ...: no one module
    d = _drift("ImportError: cannot import name 'FlashAttentionKwargs'\n")
    assert d is not None and d["added_in"] == "4.47.0"
    assert _drift("ImportError: cannot import name 'my_local_helper'\n") is None
    # the real report (drift-61 DyPRAG#3): the title's bare import, prose after the name
    d = _drift((DEV / "drift-61-DyPRAG-3.txt").read_text(encoding="utf-8"))
    assert d is not None and d["subject"].endswith("import FlashAttentionKwargs") and d["added_in"] == "4.47.0"


# ---- 4. a keyword refused by a function only one covered callable is named after -------------------------------

def test_a_function_name_only_one_covered_callable_has_is_read_without_the_report_naming_its_library() -> None:
    d = _drift("TypeError: multi_head_attention_forward() got an unexpected keyword argument 'average_attn_weights'\n")
    assert d is not None and d["subject"].startswith("torch.nn.functional.multi_head_attention_forward(")
    assert d["added_in"] == "1.11.0"
    # a name many classes have (forward) stays a guess that needs the report to name the library
    assert _drift("TypeError: forward() got an unexpected keyword argument 'average_attn_weights'\n") is None


def test_the_call_s_parentheses_a_report_dropped_are_not_needed() -> None:
    d = _drift("TypeError: multi_head_attention_forward got an unexpected keyword argument 'average_attn_weights'\n")
    assert d is not None and d["added_in"] == "1.11.0"
    # the real report (drift-68 DualCoOp#11)
    d = _drift((DEV / "drift-68-DualCoOp-11.txt").read_text(encoding="utf-8"))
    assert d is not None and d["added_in"] == "1.11.0"


def test_a_keyword_with_a_space_keeps_its_earlier_reading() -> None:
    # drift-53 llm-dev#4: "Accelerator.init got an unexpected keyword argument 'dispatch batches'" (no parentheses, a
    # space in the keyword) is read as before, by the keyword's own reading, not as a call of Accelerator.init
    d = _drift((DEV / "drift-53-llm-dev-4.txt").read_text(encoding="utf-8"))
    assert d is not None and d["library"] == "accelerate" and d["removed_in"] == "1.0.0"

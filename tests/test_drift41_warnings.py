"""Issue #25, turn 41 (drift41): readings of deprecation warnings added after drift-60's first score
(kb/apidrift/answer.py, kb/diagnose/drift.py), each from a real report of drift-60; the warnings are the libraries'
messages as printed."""

from __future__ import annotations

from kb.apidrift.answer import answer
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import answer_document
from kb.knowledge.registry import load_knowledge


def _drift(text: str) -> dict | None:
    knowledge = load_knowledge()
    answers = diagnose_lines(text.splitlines(), knowledge).answers
    if not answers:
        return None
    return answer_document(answers[0], frozenset(knowledge.api_history_families)).get("drift")


LOGGING_DIR = ("`logging_dir` is deprecated and will be removed in version 0.18.0 of 🤗 Accelerate. "
               "Use `project_dir` instead.")


def test_a_message_two_libraries_state_is_read_as_the_one_sharing_more_of_its_words() -> None:
    # drift-60's bitsandbytes#400: accelerate's Accelerator and transformers' TrainingArguments both open their
    # message with "`logging_dir` is deprecated and will be removed in"; the words after it are accelerate's. The
    # keyword went in accelerate 0.20.0 although the message says 0.18.0 (0.18.0 and 0.19.0 still take it).
    doc = answer("deprecation", {"said": LOGGING_DIR}, {}, None)
    assert doc is not None and doc["library"] == "accelerate" and doc["removed_in"] == "0.20.0"
    assert doc["renamed_to"] == "project_dir"


def test_the_release_a_message_says_removes_it_picks_the_record_that_removed_it_there() -> None:
    # drift-60's huggingface_hub#2356: cached_download (gone in 0.26.0) and hf_hub_download (its keyword gone in
    # 1.0.0) print the same words; the message names 1.0.0
    said = ("`resume_download` is deprecated and will be removed in version 1.0.0. Downloads always resume when "
            "possible. If you want to force a new download, use `force_download=True`.")
    doc = answer("deprecation", {"said": said}, {}, None)
    assert doc is not None and doc["library"] == "huggingface_hub" and doc["removed_in"] == "1.0.0"


def test_records_that_agree_on_the_removal_but_not_on_the_first_statement_answer() -> None:
    # drift-60's axolotl#367: datasets states its use_auth_token deprecation in several owners, from 2.14.0 and 2.14.2
    said = ("'use_auth_token' was deprecated in favor of 'token' in version 2.14.0 and will be removed in 3.0.0. "
            "You can remove this warning by passing 'token=None' instead.")
    doc = answer("deprecation", {"said": said}, {}, None)
    assert doc is not None and doc["library"] == "datasets" and doc["removed_in"] == "3.0.0"
    assert doc["renamed_to"] == "token"
    assert any("from 2.14.0 on" in f for f in doc["facts"])


INT8 = ("prepare_model_for_int8_training is deprecated and will be removed in a future version. "
        "Use prepare_model_for_kbit_training instead")


def test_an_unquoted_deprecated_name_is_dated_by_the_library_whose_top_level_exported_it() -> None:
    # drift-60's axolotl#91: peft's message quotes no name, so the history keeps no record of it; peft's exports
    # date it (last in 0.9.0), and trl's modules that import it from peft do not make it trl's
    doc = answer("deprecation", {"said": INT8}, {}, None)
    assert doc is not None and doc["library"] == "peft" and doc["removed_in"] == "0.10.0"
    assert doc["renamed_to"] == "prepare_model_for_kbit_training"
    assert any("'peft<0.10'" in f for f in doc["fixes"])


def test_an_unquoted_name_no_release_removed_is_not_answered() -> None:
    assert answer("deprecation", {"said": "get_peft_model is deprecated and will be removed in a future version"},
                  {}, None) is None


def test_a_report_titled_by_the_warning_itself_is_answered() -> None:
    log = (f"FutureWarning: {LOGGING_DIR}\nprepare accelerator\n"
           f"C:\\venv\\lib\\site-packages\\accelerate\\accelerator.py:249: FutureWarning: {LOGGING_DIR}\n"
           "  warnings.warn(\n")
    drift = _drift(log)
    assert drift is not None and drift["form"] == "deprecation" and drift["removed_in"] == "0.20.0"


def test_a_piped_log_headed_by_python_s_own_warning_line_is_still_not_answered() -> None:
    log = (f"/venv/lib/python3.10/site-packages/accelerate/accelerator.py:249: FutureWarning: {LOGGING_DIR}\n"
           "  warnings.warn(\n")
    assert diagnose_lines(log.splitlines(), load_knowledge()).answers == []


WEIGHTS_ONLY = ("FutureWarning: You are using `torch.load` with `weights_only=False` (the current default value), "
                "which uses the default pickle module implicitly. It is possible to construct malicious pickle data "
                "which will execute arbitrary code during unpickling. In a future release, the default value for "
                "`weights_only` will be flipped to `True`. We recommend you start setting `weights_only=True` for "
                "any use case where you don't have full control of the loaded file.")


def test_torch_s_warning_of_the_coming_weights_only_default_is_answered_under_a_title_naming_it() -> None:
    # drift-60's linesight#50: the title names `weights_only` and `torch.load`, as the warning does
    drift = _drift("Explicitly set weights_only argument to torch.load()\n" + WEIGHTS_ONLY)
    assert drift is not None and drift["removed_in"] == "2.6.0"


def test_a_title_sharing_no_name_with_the_warning_does_not_make_it_the_subject() -> None:
    assert diagnose_lines(("Training loss does not go down\n" + WEIGHTS_ONLY).splitlines(),
                          load_knowledge()).answers == []


def test_a_title_sharing_only_the_warnings_url_host_does_not_make_it_the_subject() -> None:
    """(review41) torch's warning links its SECURITY.md on github.com: a title that says where the reporter's code lives
    ("github.com/me/proj") shares that host with it by chance; the run that died for a reason the log does not show is
    not answered by the warning. Only the names the warning quotes (`torch.load`, `weights_only`) count."""
    warning = WEIGHTS_ONLY.replace("during unpickling.", "during unpickling (See "
                                   "https://github.com/pytorch/pytorch/blob/main/SECURITY.md#untrusted-models for more "
                                   "details).")
    assert diagnose_lines(("My run from github.com/me/proj dies at step 300, logs below\n" + warning).splitlines(),
                          load_knowledge()).answers == []
    drift = _drift("Explicitly set weights_only argument to torch.load()\n" + warning)
    assert drift is not None and drift["removed_in"] == "2.6.0"


SDP_23 = ("torch.backends.cuda.sdp_kernel() is deprecated. In the future, this context manager will be removed. "
          "Please see, torch.nn.attention.sdpa_kernel() for the new context manager, with updated signature.")


def test_the_extractor_reads_a_deprecated_name_a_message_opens_with_unquoted() -> None:
    # torch 2.3.0's backends/cuda/__init__.py warns in these words (2.4.0 quotes the name in a @deprecated message);
    # peft 0.6-0.9's prepare_model_for_int8_training likewise; a plain word opening a message is not a name
    import ast

    from kb.apidrift.deprecations import facts

    source = (
        "import warnings\n"
        "def sdp_kernel(enable_flash=True):\n"
        f"    warnings.warn({SDP_23!r}, FutureWarning)\n"
        "def prepare_model_for_int8_training(*args, **kwargs):\n"
        f"    warnings.warn({INT8!r}, FutureWarning)\n"
        "def other():\n"
        "    warnings.warn('This is deprecated and will be removed in a future version')\n")
    found = facts(ast.parse(source), "torch.backends.cuda", {})
    assert [(f["kind"], f["old"], f["new"]) for f in found] == [
        ("name", "sdp_kernel", None), ("name", "prepare_model_for_int8_training", "prepare_model_for_kbit_training")]


def test_the_history_dates_sdp_kernel_s_deprecation_from_torch_2_3_0() -> None:
    # the shipped record, corrected from the 2.2.2 and 2.3.0 wheels (2.2.2's backends/cuda/__init__.py has no such
    # warning, 2.3.0's has the unquoted one); a rebuild with the extractor above gives the same
    from kb.apidrift.history import load_history

    records = [r for r in load_history().renames("torch") if r["old"] == "sdp_kernel"]
    assert [(r["since"], r["since_last_without"]) for r in records] == [("2.3.0", "2.2.2")]
    doc = answer("deprecation", {"said": SDP_23}, {}, None)
    assert doc is not None and doc["renamed_to"] == "torch.nn.attention.sdpa_kernel"
    assert any("states from 2.3.0 on" in f for f in doc["facts"])


def test_prose_cannot_import_a_class_from_a_named_module_is_read() -> None:
    # drift-57's MLServer#1955 (a plain capitalised class, qualified by its module) and drift-53's ComfyUI#10343
    # (the words in the other order); no error line in either report
    drift = _drift('Cannot import "Conversation"\nThe example pipeline fails with an error "Cannot import Conversation '
                   'from transformers.pipelines"\n')
    assert drift is not None and drift["removed_in"] == "4.42.0"
    drift = _drift("QuantizedCacheConfig from transformers cannot import\n")
    assert drift is not None and drift["removed_in"] == "4.56.0"


def test_a_plain_word_imported_from_no_module_is_still_prose() -> None:
    assert _drift("Cannot import Conversation into the notebook\n") is None


CACHE = ("Using `TRANSFORMERS_CACHE` is deprecated and will be removed in v5 of Transformers. "
         "Use `HF_HOME` instead.")


def test_a_name_a_run_time_message_quotes_is_dated_by_the_export_of_that_name() -> None:
    # drift-60's stable-diffusion-webui-forge#963: transformers builds the message with an f-string over its cache
    # variables, so the history keeps no record of it; the module constant TRANSFORMERS_CACHE went in 5.0.0, as "v5" says
    doc = answer("deprecation", {"said": CACHE}, {}, None)
    assert doc is not None and doc["library"] == "transformers" and doc["removed_in"] == "5.0.0"
    assert doc["renamed_to"] == "HF_HOME"


def test_an_export_dating_that_disagrees_with_the_release_the_message_names_is_not_answered() -> None:
    assert answer("deprecation", {"said": CACHE.replace("in v5", "in v4.40")}, {}, None) is None

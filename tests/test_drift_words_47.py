"""Issue #25, drift-47's whisper-diarization-202 made general: a traceback cut before its error line (IPython's header
"ImportError    Traceback (most recent call last)" gives the class, no message) is read as the report's own lines
just above it state the error (its title: "Cannot import name 'ModelFilter' from 'huggingface_hub'"), in any of
recognise's forms, in Python's case where a title capitalised it, and only in a form the known class agrees with.
Near forms are declined: a title quoting another class's message, words further above, prose that only speaks of
importing. The releases are the history's (tables/api-history.json.gz, read from the wheels)."""

from __future__ import annotations

from kb.diagnose.drift import report_words
from drift_support import DEV, top

HEADER = "ImportError                               Traceback (most recent call last)"
CELL = ["Cell In[16], line 8",
        "----> 8 from nemo.collections.asr.models.msdd_models import NeuralDiarizer",
        "File ~/venv/lib/python3.11/site-packages/nemo/collections/asr/__init__.py:15",
        "---> 15 from nemo.collections.asr import data, losses, models, modules"]


def _report(*above: str, header: str = HEADER) -> str:
    return "\n".join([*above, header, *CELL]) + "\n"


def _read_above(answer) -> bool:  # noqa: ANN001 - an Answer or None
    """Whether kb's answer read the report's words above a cut traceback (its drift section then came from them)."""
    return answer is not None and (answer.drift is not None
                                   or any("the report's own words above it" in e for e in answer.match.evidence))


def test_the_real_report_is_answered_from_its_title() -> None:
    answer = top((DEV / "drift-47-whisper-diarization-202.txt").read_text())
    assert answer is not None and answer.match.entry.family == "api-drift"
    drift = answer.drift
    assert drift is not None and drift["library"] == "huggingface_hub"
    assert drift["removed_in"] == "0.24.0" and drift["renamed_to"] == "list_models"
    assert any("the report's own words above it" in e and "ModelFilter" in e for e in answer.match.evidence)
    assert _read_above(answer)


def test_a_title_s_capital_is_read_in_python_s_case() -> None:
    context = ["Cannot import name 'ModelFilter' from 'huggingface_hub'", "Using Python 3.11 I get this error.", HEADER]
    assert report_words(context, "ImportError") == "cannot import name 'ModelFilter' from 'huggingface_hub'"
    context = ["Module 'torch.nn.functional' Has No Attribute 'scaled_dot_product_attention'",
               "AttributeError   Traceback (most recent call last)"]
    assert report_words(context, "AttributeError") == \
        "module 'torch.nn.functional' has no attribute 'scaled_dot_product_attention'"
    context = ["SFTTrainer.__init__() Got An Unexpected Keyword Argument 'tokenizer'",
               "TypeError   Traceback (most recent call last)"]
    assert report_words(context, "TypeError") == "SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'"


def test_a_title_quoting_another_class_s_message_is_declined() -> None:
    context = ["module 'huggingface_hub' has no attribute 'ModelFilter'", HEADER]
    assert report_words(context, "ImportError") == ""
    assert report_words(context, "AttributeError") != "" and report_words(context, "") != ""  # read for its own class
    assert report_words(["cannot import name 'ModelFilter' from 'huggingface_hub'",
                         "TypeError   Traceback (most recent call last)"], "TypeError") == ""
    assert report_words(["cannot import name 'ModelFilter' from 'huggingface_hub'",
                         "OSError   Traceback (most recent call last)"], "OSError") == ""  # a class of no form
    # ModuleNotFoundError's message is "No module named": an import-name title is another error
    assert report_words(["cannot import name 'ModelFilter' from 'huggingface_hub'", HEADER], "ModuleNotFoundError") == ""


def test_words_far_above_the_traceback_are_not_its_error() -> None:
    prose = ["I followed the README.", "Then I installed the requirements.", "Then I ran the notebook."]
    context = ["Cannot import name 'ModelFilter' from 'huggingface_hub'", *prose, HEADER]
    assert report_words(context, "ImportError") == ""
    answer = top(_report("Cannot import name 'ModelFilter' from 'huggingface_hub'", *prose))
    assert not _read_above(answer)
    # the same title just above the traceback is read
    assert report_words(context[:1] + prose[:2] + [HEADER], "ImportError") != ""


def test_prose_that_only_speaks_of_importing_states_no_error() -> None:
    for line in ("I cannot import ModelFilter from huggingface_hub anymore", "import fails for huggingface_hub",
                 "from huggingface_hub import ModelFilter"):
        assert report_words([line, HEADER], "ImportError") == "", line
    answer = top(_report("I cannot import ModelFilter from huggingface_hub anymore"))
    assert not _read_above(answer)


def test_an_error_with_its_message_is_read_as_before() -> None:
    """The words above are read only where the error has no message: a report whose traceback ends in its error line
    is answered from that line (the title names another name here, and is not read)."""
    text = ("Cannot import name 'ModelFilter' from 'huggingface_hub'\n"
            "Traceback (most recent call last):\n"
            '  File "a.py", line 1, in <module>\n'
            "    from huggingface_hub import cached_download\n"
            "ImportError: cannot import name 'cached_download' from 'huggingface_hub'\n")
    answer = top(text)
    assert answer is not None and answer.drift is not None and "cached_download" in answer.drift["subject"]


def test_a_changed_default_above_a_cut_traceback_is_left_to_its_own_family() -> None:
    """torch.load's weights_only is checkpoint-io's answer (drift-32-open-instruct-673), not the history's api-drift:
    the words above are read only in a form some class's message takes (CLASS_FORMS)."""
    context = ["Check the documentation of torch.load to learn more about types accepted by default with weights_only",
               "Traceback (most recent call last):"]
    assert report_words(context, "") == ""
    assert report_words(["No module named 'transformers.deepspeed'", "Traceback (most recent call last):"], "") == \
        "No module named 'transformers.deepspeed'"  # a class's form, read with no class
    answer = top((DEV / "drift-32-open-instruct-673.txt").read_text())
    assert answer is None or answer.match.entry.family != "api-drift"  # silent, as before


def test_an_api_drift_answer_that_exists_takes_its_section_from_the_same_words() -> None:
    """attach_drift: an answer of api-drift whose error has no message (here a prior's, built on the real report's
    error) gets the drift section the words above its traceback state, as the history's own answer does."""
    from kb.diagnose.answers import Answer
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.diagnose.drift import attach_drift
    from kb.diagnose.priors import PriorMatch
    from kb.knowledge.registry import load_knowledge

    knowledge = load_knowledge()
    errors = diagnose_lines((DEV / "drift-47-whisper-diarization-202.txt").read_text().splitlines(True), knowledge).errors
    error = errors[0]
    assert error.type == "ImportError" and not error.message
    answer = Answer(PriorMatch(knowledge.family("api-drift"), "exception-type", error, 0.3, [], "family-prior", "test"), [])
    attach_drift([answer], knowledge, None, errors)
    assert answer.drift is not None and answer.drift["removed_in"] == "0.24.0"
    error.context = ["module 'huggingface_hub' has no attribute 'ModelFilter'", HEADER, *CELL]  # another class's form
    answer = Answer(PriorMatch(knowledge.family("api-drift"), "exception-type", error, 0.3, [], "family-prior", "test"), [])
    attach_drift([answer], knowledge, None, errors)
    assert answer.drift is None

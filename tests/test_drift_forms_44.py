"""Issue #25, drift-44's misses made general. (1) An error that asks to pass a keyword ("Please pass the argument
`trust_remote_code=True`") raised in a covered library's own frames, where the keyword's effective default lives
outside the signature (a config constant read when the keyword is None) and a release changed it. The history's
signature defaults cannot show such a change; a [[default]] row of tables/api-history-before.toml, read off the
wheels, dates it (datasets 2.20.0: HF_DATASETS_TRUST_REMOTE_CODE "1" -> "ask"). The answer is then api-drift's, even
where model-unsupported's remote-code signature matched the message. Tested on the report it must answer
(tests/fixtures/diagnose/dev/drift-44-mteb-930.txt) and on input it must decline. (2) A value check a release added
("Invalid task type: 'Vector_LM'. Must be one of ...", peft 0.14.0), dated by a [[check]] row of the same table read
off the wheels, answered by api-drift where no signature matched (drift-44-Driving-with-LLMs-31.txt)."""

from __future__ import annotations

from kb.diagnose.drift import _asked_default, drift_section, recognise
from kb.diagnose.errors import Frame
from drift_support import DEV, drift_of, top


class _Error:
    """The two fields _asked_default reads of a ParsedError."""

    def __init__(self, message: str, frames: list[Frame]) -> None:
        self.message, self.frames = message, frames


ASKED = ("The repository for org/data contains custom code which must be executed to correctly load the dataset.\n"
         "Please pass the argument `trust_remote_code=True` to allow custom code to be run.")
DATASETS_FRAME = Frame("/usr/lib/python3.10/site-packages/datasets/load.py", 133, "resolve_trust_remote_code",
                       "raise ValueError(")
TRANSFORMERS_FRAME = Frame("/usr/lib/python3.10/site-packages/transformers/dynamic_module_utils.py", 613,
                           "resolve_trust_remote_code", "raise ValueError(")

TRANSFORMERS_REPORT = """Traceback (most recent call last):
  File "run.py", line 3, in <module>
    model = AutoModelForCausalLM.from_pretrained("org/model")
  File "/usr/lib/python3.10/site-packages/transformers/models/auto/auto_factory.py", line 526, in from_pretrained
    trust_remote_code = resolve_trust_remote_code(
  File "/usr/lib/python3.10/site-packages/transformers/dynamic_module_utils.py", line 613, in resolve_trust_remote_code
    raise ValueError(
ValueError: The repository for org/model contains custom code which must be executed to correctly load the model. You can inspect the repository content at https://hf.co/org/model.
Please pass the argument `trust_remote_code=True` to allow custom code to be run.
"""


def test_a_keyword_asked_for_in_the_library_s_frames_is_read_as_its_noted_default() -> None:
    assert _asked_default(_Error(ASKED, [DATASETS_FRAME])) == \
        {"callable": "datasets.load_dataset", "name": "trust_remote_code"}


def test_the_report_is_answered_by_api_drift_with_the_release_that_changed_the_default() -> None:
    found = drift_of((DEV / "drift-44-mteb-930.txt").read_text())
    assert found is not None and found["library"] == "datasets" and found["removed_in"] == "2.20.0"
    assert any("trust_remote_code=True" in fix for fix in found["fixes"])


def test_another_library_s_check_or_no_frames_or_an_unnoted_keyword_is_declined() -> None:
    assert _asked_default(_Error(ASKED, [TRANSFORMERS_FRAME])) is None  # transformers' own check: no noted default
    assert _asked_default(_Error(ASKED, [])) is None  # no frame says which library raised it
    assert _asked_default(_Error(ASKED.replace("trust_remote_code", "use_fast"), [DATASETS_FRAME])) is None
    assert _asked_default(_Error("ValueError: trust_remote_code must be a bool", [DATASETS_FRAME])) is None


def test_transformers_remote_code_check_stays_model_unsupported() -> None:
    answer = top(TRANSFORMERS_REPORT)
    assert answer is not None and answer.match.entry.family == "model-unsupported"


# --- a value check a release added ----------------------------------------------------------------------------------

CHECK = "Invalid task type: 'Vector_LM'. Must be one of the following task types: SEQ_CLS, CAUSAL_LM."


def test_a_value_check_s_message_is_read_and_dated_by_its_noted_row() -> None:
    assert recognise("ValueError", CHECK) == ("value-check", {"message": CHECK, "value": "Vector_LM"})
    found = drift_section("ValueError", CHECK)
    assert found is not None and found["library"] == "peft" and found["added_in"] == "0.14.0"
    assert any("peft==0.13.2" in fix for fix in found["fixes"])


def test_the_silent_report_is_answered_by_api_drift_with_the_release_of_the_check() -> None:
    found = drift_of((DEV / "drift-44-Driving-with-LLMs-31.txt").read_text())
    assert found is not None and found["added_in"] == "0.14.0" and found["library"] == "peft"


def test_a_check_no_row_notes_or_another_shape_is_declined() -> None:
    other = "Invalid model type: 'foo'. Must be one of the following: bar, baz."
    assert recognise("ValueError", other) is not None and drift_section("ValueError", other) is None  # no row
    assert recognise("ValueError", "Invalid task type: 'Vector_LM'") is None  # not the check's shape
    assert recognise("ValueError", "Invalid task type Vector_LM. Must be one of SEQ_CLS") is None  # no quoted value
    assert top(other) is None or top(other).match.entry.family != "api-drift"

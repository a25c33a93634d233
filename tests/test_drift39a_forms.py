"""Issue #25, drift-54's one silence made general (kb/diagnose/drift.py, _sole_changer; tests/fixtures/diagnose/drift-54-*):

a bare "__init__() got an unexpected keyword argument 'mmap'" (gpt-fast-74: torch.load hands the keywords it does not
know on to its unpickler, so a torch older than 2.1.0 says `__init__()`) read from the keyword alone answers although
the report never names torch, because no other covered callable's acceptance of `mmap` ever changed. A keyword several
covered callables changed still needs the report's own naming of the library.
"""

from __future__ import annotations

from drift_support import DEV, drift_of, top


def test_a_keyword_only_one_covered_callable_changed_answers_alone() -> None:
    section = drift_of((DEV / "drift-54-gpt-fast-74.txt").read_text())
    assert section is not None
    assert section["library"] == "torch" and section["added_in"] == "2.1.0"
    assert section["subject"] == "torch.load(mmap=...)"
    assert any("no other covered callable's acceptance of `mmap` changed" in fact for fact in section["facts"])


def test_the_same_keyword_without_its_error_form_is_not_answered() -> None:
    # the keyword in prose is not an error: nothing to read
    assert top("I set mmap=True and the run is slow\n") is None


def test_a_keyword_several_callables_changed_still_needs_the_library_named() -> None:
    from kb.diagnose.drift import _sole_changer

    # `debug`: accelerate's config classes, torch.utils.checkpoint, TrainingArguments, trl's PPOConfig (drift-33's
    # title-only report stays unanswered by the history: the reading could be any of them)
    section = {"library": "accelerate", "subject": "accelerate.commands.config.config_args.BaseConfig(debug=...)",
               "facts": ["the error names no callable: the covered accelerate callables ... agree"]}
    assert not _sole_changer(section)
    sole = {"library": "torch", "subject": "torch.load(mmap=...)",
            "facts": ["the error names no callable: the covered torch callables ... agree"]}
    assert _sole_changer(sole)


def test_a_class_read_off_a_near_name_stays_a_guess() -> None:
    from kb.diagnose.drift import _sole_changer

    near = {"library": "torch", "subject": "torch.load(mmap=...)", "facts": ["near name: `Load`"]}
    assert not _sole_changer(near)
    named = {"library": "torch", "subject": "torch.load(mmap=...)", "facts": ["`torch.load` accepts `mmap` in: ..."]}
    assert not _sole_changer(named)  # not a reading from the keyword alone: nothing for this gate to decide


def test_a_cut_registry_key_error_reads_the_model_type_its_title_quotes() -> None:
    """drift-32-transformers-15190: "`AutoConfig` doesn't support `gpt-neox`", then a notebook traceback that stops in
    configuration_auto.py before the KeyError's line: the registry's key is the title's model type (gpt_neox, known
    from transformers 4.20.0); was a prior's answer with no release (partial)."""
    answer = top((DEV / "drift-32-transformers-15190.txt").read_text())
    assert answer is not None and answer.match.entry.family == "model-unsupported"
    assert answer.drift is not None and answer.drift["added_in"] == "4.20.0"
    assert answer.drift["subject"] == "model_type gpt_neox"


REGISTRY = "/opt/conda/lib/python3.8/site-packages/transformers/models/auto/configuration_auto.py"


def _cut_key_error(frame_file: str):  # noqa: ANN202 - a ParsedError
    from kb.diagnose.errors import Frame, ParsedError

    return ParsedError("KeyError", "", [
        Frame("<ipython-input-6>", 0, "<module>", "config = AutoConfig.from_pretrained(path)"),
        Frame(frame_file, 527, "from_pretrained", "config_dict, _ = PretrainedConfig.get_config_dict(path)")], 13)


def _frame_rules() -> list[dict]:
    from kb.knowledge.registry import load_knowledge

    return load_knowledge().tables["priors"]["frame"]


def test_the_cut_key_error_reading_needs_the_registry_frame_and_one_model_type() -> None:
    from kb.diagnose.drift import _cut_key

    rules = _frame_rules()
    said, rule = _cut_key(_cut_key_error(REGISTRY), ["`AutoConfig` doesn't support `gpt-neox`"], rules)
    assert said == "'gpt_neox'" and rule is not None and rule["family"] == "model-unsupported"
    # another library's KeyError: not the registry's
    assert _cut_key(_cut_key_error("/x/site-packages/datasets/arrow_dataset.py"),
                    ["`AutoConfig` doesn't support `gpt-neox`"], rules) == ("", None)
    # two model types quoted: which key the registry missed is not said
    assert _cut_key(_cut_key_error(REGISTRY), ["`llama` works but `gpt-neox` does not"], rules) == ("", None)
    # a quoted word that is no model type of any covered release
    assert _cut_key(_cut_key_error(REGISTRY), ["`AutoConfig` fails on 'my_private_arch'"], rules) == ("", None)


def test_the_cut_key_reading_is_the_priors_data_not_code() -> None:
    """The registry's frame, the error's class and the family are tables/priors.toml's (a [[frame]] rule's cut_key):
    without that key in the data, drift-32's cut KeyError gets the plain frame prior's answer, no release dated."""
    import copy

    from kb.diagnose.diagnosis import diagnose_lines
    from kb.knowledge.model import Knowledge
    from kb.knowledge.registry import load_knowledge

    text = (DEV / "drift-32-transformers-15190.txt").read_text()
    knowledge = load_knowledge()
    priors = copy.deepcopy(knowledge.tables["priors"])
    keyed = [rule for rule in priors["frame"] if rule["cut_key"]]
    assert keyed, "tables/priors.toml names no cut_key frame rule"
    for rule in keyed:
        rule["cut_key"] = ""
    bare = Knowledge(knowledge.cases, knowledge.families, knowledge.meanings, {**knowledge.tables, "priors": priors})
    answers = diagnose_lines(text.splitlines(keepends=True), bare).answers
    assert answers and answers[0].match.entry.family == "model-unsupported"
    assert answers[0].drift is None and answers[0].match.signature.name == "prior:frame"
    # the same knowledge with its data: dated by the history
    dated = diagnose_lines(text.splitlines(keepends=True), knowledge).answers
    assert dated and dated[0].drift is not None and dated[0].drift["added_in"] == "4.20.0"

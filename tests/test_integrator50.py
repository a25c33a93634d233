"""The integrator's changes of turn 50 (issue #24): "offline" as a learning term (offline RL/DPO, vLLM's offline
inference) names no network, so hub-access's keyword rule leaves it (mix50's gh-mix-23 verl#2661: "can we use verl to
train offline dpo?" answered hub-access); running without a connection still answers."""

from __future__ import annotations

import pytest

from runtime_support import top_answer


def _top(text: str) -> str | None:
    """The first answer: a family's key, or ``case:<ID>``; None when kb is silent."""
    answer = top_answer(text)
    if answer is None:
        return None
    return answer[1] if answer[0] == "family" else f"case:{answer[1]}"


@pytest.mark.parametrize("title", [
    "can we use verl to train offline dpo with transformers?",
    "Offline RL with trl and peft: the reward stays flat",
    "vLLM offline inference with a peft adapter is slow",
    "offline-distillation of a transformers model gives worse accuracy",
])
def test_offline_as_a_learning_term_is_not_hub_access(title: str) -> None:
    assert _top(title) != "hub-access"


@pytest.mark.parametrize("title", [
    "transformers from_pretrained fails offline on our cluster",
    "running peft offline: no internet on the compute node, the model cannot load",
])
def test_running_without_a_connection_still_answers_hub_access(title: str) -> None:
    assert _top(title) == "hub-access"


# wrong50's class_capture made an unknown `...For<Task>` class (a model's remote code) no evidence of a release's change,
# which also silenced tests/test_diagnose_drift_forms.py's 'Idefics2ForVisionText2Text' ... 'add_adapter' (failing on
# main since wrong50). A member a transformers release added to or removed from PreTrainedModel, which every model class
# inherits, still vouches: class_base/member_capture on the signature. A model's own attributes still do not.
@pytest.mark.parametrize("line, family", [
    ("AttributeError: 'Idefics2ForVisionText2Text' object has no attribute 'add_adapter'", "api-drift"),
    ("AttributeError: 'MyLMForCausalLM' object has no attribute 'enable_input_require_grads'", "api-drift"),
    ("AttributeError: 'StableLMEpochForCausalLM' object has no attribute 'transformer'", None),
    ("AttributeError: 'ChatGLMForConditionalGeneration' object has no attribute 'model_parallel'", None),
    ("AttributeError: 'MyLMForCausalLM' object has no attribute 'config'", None),
])
def test_an_unknown_model_class_lacking_a_dated_pretrainedmodel_member(line: str, family: str | None) -> None:
    assert _top(line + "\n") == family

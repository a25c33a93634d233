"""api-drift's forms beyond the core libraries' own names (families/api-drift.md): the layers of a transformers model
named by its model's prefix, and the fine-tuning frameworks built on the stack (unsloth, swift, fastchat...), whose
releases pair with the stack's. Other software's classes and packages of the same shape stay unanswered."""

from __future__ import annotations

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge


def top(text: str) -> tuple[str, str] | None:
    answers = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers
    if not answers:
        return None
    a = answers[0]
    return a.kind, a.match.entry.key if a.kind == "family" else a.match.entry.family


@pytest.mark.parametrize("line", [
    "AttributeError: 'MistralAttention' object has no attribute 'num_key_value_groups'",
    "AttributeError: 'Qwen2DecoderLayer' object has no attribute 'self_attn_type'",
    "TypeError: LlamaRotaryEmbedding.forward() got an unexpected keyword argument 'position_ids'",
    "TypeError: GemmaAttention.forward() got an unexpected keyword argument 'cache_position' in <hook object at 0x7f>",
    "AttributeError: 'Idefics2ForVisionText2Text' object has no attribute 'add_adapter'",
    "ImportError: cannot import name 'get_chat_template' from 'unsloth_zoo.chat_templates'",
    "ImportError: cannot import name 'SftArguments' from 'swift.llm' (/opt/conda/lib/python3.10/site-packages/swift/llm/__init__.py)",
    "AttributeError: module 'fastchat.model' has no attribute 'load_model_adapter'",
    "ImportError: cannot import name 'get_template_and_fix_tokenizer' from 'llamafactory.data'",
])
def test_model_layers_and_the_frameworks_on_the_stack_are_api_drift(line: str) -> None:
    assert top(line + "\n") == ("family", "api-drift")


@pytest.mark.parametrize("line", [
    "AttributeError: 'Attention' object has no attribute 'fused_attn'",  # timm's, a vision model's layer
    "AttributeError: 'CrossAttention' object has no attribute 'processor'",  # diffusers'
    "ImportError: cannot import name 'Connection' from 'swiftclient'",  # OpenStack's client, not ms-swift
    "AttributeError: module 'fastapi' has no attribute 'Router'",
])
def test_other_softwares_classes_and_packages_stay_unanswered(line: str) -> None:
    assert top(line + "\n") is None

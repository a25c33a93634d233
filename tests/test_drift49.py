"""Turn 49 (drift49): a member a model's base class dropped is read as remote code only on the report's evidence."""

from __future__ import annotations

from drift_support import top_match as _top

# A user's own nn.Module wrapper that never had `generate` (turn 48's review): frames in the user's code only
_OWN_CLASS = (
    "Traceback (most recent call last):\n"
    '  File "/home/user/project/train.py", line 42, in <module>\n'
    "    outputs = model.generate(input_ids, max_new_tokens=50)\n"
    '  File "/home/user/project/.venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1931, in __getattr__\n'
    '    raise AttributeError(\n'
    "AttributeError: 'MyModel' object has no attribute 'generate'\n"
)


def _reads_the_base_drop(top: dict | None) -> bool:
    return top is not None and top["id"] == "api-drift" and (top.get("drift") or {}).get("removed_in") == "4.52.0"


def test_the_codes_own_model_class_is_not_read_as_the_base_drop() -> None:
    assert not _reads_the_base_drop(_top(_OWN_CLASS))
    assert not _reads_the_base_drop(_top("AttributeError: 'MyModel' object has no attribute 'generate'\n"))


def test_another_softwares_model_class_is_not_read_as_the_base_drop() -> None:
    text = ("Traceback (most recent call last):\n"
            '  File "/usr/local/lib/python3.10/dist-packages/ultralytics/engine/model.py", line 300, in predict\n'
            "    return self.model.generate(x)\n"
            "AttributeError: 'DetectionModel' object has no attribute 'generate'\n")
    assert not _reads_the_base_drop(_top(text))


def test_a_frame_of_remote_code_reads_as_the_base_drop() -> None:
    text = ("Traceback (most recent call last):\n"
            '  File "/root/.cache/huggingface/modules/transformers_modules/Dream-org/modeling_dream.py", '
            "line 300, in chat\n"
            "    outputs = self.generate(**inputs)\n"
            "AttributeError: 'DreamModel' object has no attribute 'generate'\n")
    top = _top(text)
    assert _reads_the_base_drop(top)
    assert any("transformers_modules" in fact for fact in top["drift"]["facts"])


def test_the_logs_stated_release_alone_is_no_evidence_of_remote_code() -> None:
    """(review50) A stated transformers >= 4.52.0 is only what the drop needs to explain the error (a release before it is
    ruled out above), not evidence that the class is a model's remote code: a user's own nn.Module wrapper (frames in
    the user's code and torch's Module.__getattr__) lacks `generate` under every release, and almost every log printed
    since 2025 states a transformers >= 4.52 (`transformers-cli env`, a pip line). Was api-drift (medium) with
    "pip install 'transformers<4.52'"."""
    assert not _reads_the_base_drop(_top("transformers==4.53.0\n" + _OWN_CLASS))
    env = ("- `transformers` version: 4.55.2\n- Platform: Linux-6.1.85+-x86_64-with-glibc2.35\n"
           "- PyTorch version (GPU?): 2.6.0+cu124 (True)\n\n")
    assert not _reads_the_base_drop(_top(env + _OWN_CLASS.replace("MyModel", "RewardModel")))


def test_the_logs_stated_release_before_the_drop_rules_remote_code_out() -> None:
    text = ("transformers==4.51.3\nTraceback (most recent call last):\n"
            '  File "/root/.cache/huggingface/modules/transformers_modules/Dream-org/modeling_dream.py", '
            "line 300, in chat\n    outputs = self.generate(**inputs)\n"
            "AttributeError: 'DreamModel' object has no attribute 'generate'\n")
    assert not _reads_the_base_drop(_top(text))
    assert _reads_the_base_drop(_top(text.replace("4.51.3", "4.53.0")))


def test_a_model_the_library_ships_named_in_the_text_is_no_evidence() -> None:
    # "Llama 7B" names a model type transformers has: a LlamaWrapperModel is the code's own wrapper around it
    text = "Fine-tuning Llama 7B\nAttributeError: 'LlamaWrapperModel' object has no attribute 'generate'\n"
    assert not _reads_the_base_drop(_top(text))


def test_attn_implementation_with_a_config_passed_dates_the_release_whose_from_pretrained_pops_it() -> None:
    # https://github.com/microsoft/LongRoPE/issues/7 (drift-51): its frames (modeling_utils.py:3450, auto_factory.py:566)
    # are transformers 4.36.0/4.36.1's (zip greps of the wheels, turn 49); LongRoPE passes config= with the keyword,
    # which only 4.36.2's from_pretrained pops itself (4.36.0-4.36.1 hand it on to the model's __init__)
    from drift_support import DEV

    top = _top((DEV / "drift-51-LongRoPE-7.txt").read_text())
    assert top is not None and top["id"] == "api-drift"
    assert top["drift"]["added_in"] == "4.36.2"
    assert any("transformers>=4.36.2" in fix for fix in top["drift"]["fixes"])

"""Issue #25: a remote-code tokenizer (trust_remote_code=True) that sets its vocabulary after super().__init__() fails
from transformers 4.34.0 (drift/transformers-remote-tokenizer-init, run on the 4.33.3 and 4.34.0 wheels). kb diagnose
answers it by the family signature ``remote-tokenizer-init-order`` (any tokenizer class and attribute, with a sign of
the tokenizer being built) and the entry's error_form/error_context, with the release and the fix; and leaves alone
what only looks alike: the caller reading a newer method off a tokenizer, a class's own attribute, a bare message."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb import REPO_ROOT
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.drift import recognise
from kb.knowledge.registry import load_knowledge

ROOT = Path(REPO_ROOT)
ENTRY = ROOT / "drift" / "transformers-remote-tokenizer-init"
DEV = ROOT / "tests" / "fixtures" / "diagnose" / "dev"


def top(text: str):  # noqa: ANN201 - kb.diagnose's Answer
    answers = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers
    return answers[0] if answers else None


def assert_init_order_answer(text: str) -> dict:
    answer = top(text)
    assert answer is not None and answer.match.entry.family == "api-drift"
    assert answer.match.signature.name == "remote-tokenizer-init-order"
    d = answer.drift
    assert d is not None and d["library"] == "transformers" and d["removed_in"] == "4.34.0"
    assert any("drift/transformers-remote-tokenizer-init" in fact for fact in d["facts"])
    assert any("4.33.3" in fact for fact in d["facts"])
    assert any("before super().__init__()" in fix for fix in d["fixes"])
    assert any("transformers<4.34" in fix for fix in d["fixes"])
    return d


@pytest.mark.parametrize("name", ["drift-35-api-for-open-llm-137.txt", "drift-35-CodeGen-82.txt"])
def test_the_dev_reports_are_answered_with_the_release_and_the_fix(name: str) -> None:
    assert_init_order_answer((DEV / name).read_text(encoding="utf-8"))


def test_a_log_stating_only_the_minor_is_not_called_older_than_the_release() -> None:
    d = assert_init_order_answer((DEV / "drift-35-CodeGen-82.txt").read_text(encoding="utf-8"))
    assert d["installed"] == "4.34"  # "I am using transformers 4.34"
    assert not any("is older than 4.34.0" in fact for fact in d["facts"])


def test_the_recorded_failing_run_is_answered() -> None:
    """The entry's own evidence: transformers 4.34.0's traceback through __init__ -> _add_tokens -> get_vocab."""
    assert_init_order_answer((ENTRY / "evidence" / "old-on-new.log").read_text(encoding="utf-8"))


REMOTE_FRAMES = """Traceback (most recent call last):
  File "cli_demo.py", line 8, in <module>
    tokenizer = AutoTokenizer.from_pretrained(path, use_fast=False, trust_remote_code=True)
  File "/opt/conda/lib/python3.10/site-packages/transformers/tokenization_utils_base.py", line 2256, in _from_pretrained
    tokenizer = cls(*init_inputs, **init_kwargs)
  File "/root/.cache/huggingface/modules/transformers_modules/m/tokenization_m.py", line 55, in __init__
    super().__init__(
  File "/opt/conda/lib/python3.10/site-packages/transformers/tokenization_utils.py", line 367, in __init__
    self._add_tokens(self.all_special_tokens_extended, special_tokens=True)
  File "/root/.cache/huggingface/modules/transformers_modules/m/tokenization_m.py", line 89, in vocab_size
    return self.{attr}.get_piece_size()
"""


@pytest.mark.parametrize(("cls", "attr"), [("BaichuanTokenizer", "sp_model"), ("ChatGLMTokenizer", "sp_tokenizer"),
                                           ("InternLM2Tokenizer", "vocab"), ("QWenTokenizer", "mergeable_ranks")])
@pytest.mark.parametrize("wording", ["'{cls}' object has no attribute '{attr}'", "{cls} has no attribute {attr}"])
def test_any_tokenizer_class_and_attribute_in_either_wording(cls: str, attr: str, wording: str) -> None:
    """The quoted wording (4.34-4.46) and transformers >= 4.47's, raised by the tokenizer's own __getattr__."""
    text = REMOTE_FRAMES.format(attr=attr) + "AttributeError: " + wording.format(cls=cls, attr=attr) + "\n"
    assert_init_order_answer(text)


@pytest.mark.parametrize("version_line", ["transformers: 4.35.0", "Transformers version: 4.40.2", "transformer==4.34.0"])
def test_a_title_with_a_transformers_release_from_434_on_is_answered(version_line: str) -> None:
    assert_init_order_answer(f"AttributeError: 'ChatGLMTokenizer' object has no attribute 'tokenizer'\n{version_line}\n")


def test_a_release_before_434_is_no_sign_of_it() -> None:
    answer = top("AttributeError: 'ChatGLMTokenizer' object has no attribute 'tokenizer'\ntransformers: 4.33.3\n")
    assert answer is None or not any("transformers-remote-tokenizer-init" in f for f in (answer.drift or {}).get("facts", []))


def test_the_unquoted_wording_is_read_as_a_class_and_an_attribute() -> None:
    assert recognise("AttributeError", "QWenTokenizer has no attribute tokenizer") == \
        ("object-attribute", {"cls": "QWenTokenizer", "name": "tokenizer"})
    assert recognise("AttributeError", "Trainer has no attribute x") is None  # only tokenizers word it so


@pytest.mark.parametrize("text", [
    # the caller reads a method its transformers does not have yet: not a tokenizer failing while it is built
    'Traceback (most recent call last):\n  File "chat.py", line 9, in <module>\n'
    '    tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-chat-hf")\n'
    '  File "chat.py", line 10, in <module>\n    prompt = tokenizer.apply_chat_template(messages, tokenize=False)\n'
    "AttributeError: 'LlamaTokenizer' object has no attribute 'apply_chat_template'\n",
    # a class's own attribute
    'tokenizer = AutoTokenizer.from_pretrained("x", trust_remote_code=True)\n'
    "AttributeError: type object 'ChatGLMTokenizer' has no attribute 'from_config'\n",
    # nothing says the tokenizer was being built
    "AttributeError: 'FooTokenizer' object has no attribute 'bar'\n",
    '  File "/home/u/app.py", line 30, in run\n    ids = tokenizer.sp_tokenizer.encode(text)\n'
    "AttributeError: 'ChatGLMTokenizer' object has no attribute 'sp_tokenizer'\n",
])
def test_look_alikes_get_no_init_order_answer(text: str) -> None:
    answer = top(text)  # silence, or another answer without this entry's facts
    signature = getattr(answer.match, "signature", None) if answer else None
    assert signature is None or signature.name != "remote-tokenizer-init-order"
    assert answer is None or not any("transformers-remote-tokenizer-init" in fact for fact in (answer.drift or {}).get("facts", []))

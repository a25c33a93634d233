"""Tiny models and tokenizers for the runtime-traceback programs: random weights, built offline, no downloads."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "warning")

WORDS = ["hello", "world", "the", "a", "cat", "dog", "sat", "on", "mat", "user", "assistant", "question", "answer"]
CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} </s> {% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|> {% endif %}")


def tokenizer(pad: bool = True, chat_template: bool = False):
    """A word-level fast tokenizer over a few words; optionally without a pad token or with a chat template."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    specials = ["<unk>", "<s>", "</s>", "<pad>", "<|user|>", "<|assistant|>", "<|system|>"]
    vocab = {w: i for i, w in enumerate(specials + WORDS)}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    kwargs = dict(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>", eos_token="</s>")
    if pad:
        kwargs["pad_token"] = "<pad>"
    t = PreTrainedTokenizerFast(**kwargs)
    if chat_template:
        t.chat_template = CHAT_TEMPLATE
    return t


def llama_config(**kw):
    from transformers import LlamaConfig

    base = dict(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2, num_attention_heads=2,
                num_key_value_heads=2, max_position_embeddings=64, pad_token_id=3, bos_token_id=1, eos_token_id=2)
    base.update(kw)
    return LlamaConfig(**base)


def llama(**kw):
    """A two-layer Llama with random weights."""
    import torch
    from transformers import LlamaForCausalLM

    torch.manual_seed(0)
    return LlamaForCausalLM(llama_config(**kw))


def saved_llama(**kw) -> str:
    """A tiny Llama saved to a temporary folder (with its tokenizer); returns the folder."""
    folder = tempfile.mkdtemp(prefix="tiny-llama-")
    llama(**kw).save_pretrained(folder)
    tokenizer().save_pretrained(folder)
    return folder


def text_dataset(n: int = 8):
    from datasets import Dataset

    return Dataset.from_dict({"text": ["the cat sat on the mat", "hello world"] * (n // 2)})


def args(**kw):
    """TrainingArguments for a two-step CPU run that saves nothing and reports nowhere."""
    from transformers import TrainingArguments

    base = dict(output_dir=tempfile.mkdtemp(prefix="out-"), per_device_train_batch_size=2, max_steps=2,
                report_to=[], logging_steps=1, save_strategy="no", use_cpu=True)
    base.update(kw)
    return TrainingArguments(**base)


def tokenized(tok=None, n: int = 8, pad_to: int | None = None):
    """The text dataset run through the tokenizer (rows of unequal length unless pad_to)."""
    tok = tok or tokenizer()
    kw = dict(padding="max_length", max_length=pad_to) if pad_to else {}
    return text_dataset(n).map(lambda r: tok(r["text"], **kw), remove_columns=["text"])

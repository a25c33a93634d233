"""The chat template set on the tokenizer directly (trl >= 0.26 has no setup_chat_format)."""
import trl  # noqa: F401  (the pinned release is imported, as in the old program)

from kb.fixtures import tiny

tok = tiny.tokenizer()
tok.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})
tok.chat_template = "{% for m in messages %}<|im_start|>{{ m['role'] }} {{ m['content'] }}<|im_end|> {% endfor %}"
model = tiny.causal_lm(tok)
model.resize_token_embeddings(len(tok))
print("kb-drift template", tok.apply_chat_template([{"role": "user", "content": "the model"}], tokenize=False))

"""ChatML tokens and template added with trl's helper, as trl <= 0.25 recipes do."""
from trl import setup_chat_format

from kb.fixtures import tiny

tok = tiny.tokenizer()
model, tok = setup_chat_format(tiny.causal_lm(tok), tok)
print("kb-drift template", bool(tok.chat_template))

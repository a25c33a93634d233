"""Completion-only loss through trl's collator, as trl <= 0.19 recipes do."""
from trl import DataCollatorForCompletionOnlyLM

from kb.fixtures import tiny

tok = tiny.tokenizer()
collator = DataCollatorForCompletionOnlyLM(response_template="answers", tokenizer=tok)
batch = collator([tok("the model answers in a short sentence")])
print("kb-drift masked", int((batch["labels"] == -100).sum()))

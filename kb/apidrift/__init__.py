"""API history of the fine-tuning stack, read from released wheels (see docs/apidrift.md)."""

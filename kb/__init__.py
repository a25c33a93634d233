"""kb: a troubleshooting knowledge base of LLM fine-tuning failures that prove themselves."""

__version__ = "0.1.0"

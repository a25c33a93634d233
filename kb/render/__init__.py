"""Rendering of kb's documents for people: the layer the CLI and the notebook extension share.

The engines return one JSON-able document (kb/diagnose/document.py); this package turns it into text
(one screen by default, the whole story on request). It imports nothing of kb's engines: it reads
documents only, so a front end (kb/cli, kb/notebook) can render without the engines knowing it.
"""

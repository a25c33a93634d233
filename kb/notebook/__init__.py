"""The notebook front end (see kb/notebook/extension.py)."""

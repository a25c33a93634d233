"""The notebook front end: ``%load_ext kb`` (extension.py) and ``kb.diagnose_text`` / ``kb.diagnose_exception``
(result.py), beside kb/cli on the top layer. kb/__init__.py reaches these through this package only, when
one of its wrappers is called (pyproject's import-linter contract lets the root package import it so)."""

from kb.notebook.extension import load, unload
from kb.notebook.result import DiagnosisResult, diagnose_exception, diagnose_text

__all__ = ["DiagnosisResult", "diagnose_exception", "diagnose_text", "load", "unload"]

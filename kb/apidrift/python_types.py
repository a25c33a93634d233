"""Python's own types, whose missing attribute is no API's change (kb/apidrift/answer.py's object-attribute form).

"'NoneType' object has no attribute 'dtype'" reads an attribute of None (a model or a component that did not load),
whatever library a class of the same name is in (torch exports a TorchScript `NoneType`, and its history records
members of it): kohya-ss/sd-scripts#1041 was read as torch's `NoneType.dtype`, added in 2.0.0. ('module' is not one:
Python 2's "'module' object has no attribute" names a module's missing name.) A module of its own (turn 46) so that
kb/diagnose/drift.py can tell such an error has no history answer without importing kb/apidrift/answer.py.
"""

from __future__ import annotations

PYTHON_TYPES = frozenset({"NoneType", "str", "dict", "list", "tuple", "int", "float", "bool", "function", "method"})

"""The comparison operators of the knowledge language: a signature's ``compare`` and a risk rule's conditions.

One table, read by the schema (which operators a file may use) and applied by kb/diagnose/match.py.
"""

from __future__ import annotations

COMPARE_OPS = {">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
               "<": lambda a, b: a < b, "==": lambda a, b: a == b}

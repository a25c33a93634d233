"""Writing the TOML that kb generates (a case's evidence/matrix.toml, tables/frequency.toml).

tomllib reads TOML but does not write it, and the generated files hold only scalars, arrays and inline
tables, so a few lines serve instead of a dependency.
"""

from __future__ import annotations

import json
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def toml_value(value: Any) -> str:
    """``value`` as a TOML value: a bool, a number, an inline table (dict), an array (list or tuple), or else a
    basic string of ``str(value)``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):
        inner = ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)  # a JSON string is a TOML basic string


def toml_key(name: str) -> str:
    """``name`` as a TOML key: bare when it can be, else quoted."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)

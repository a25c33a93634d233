"""The one bounded reader of `kb plan`'s input files (--config, --from, --device-map) and kb env --config.

A training config, a config.json or a device map is a few KB. A path that names a device (``/dev/zero``
never ends) or a file of a gigabyte is refused before it is read whole, a pipe (``--config <(...)``) is read up
to the same bound, and JSON is checked for nesting before it is parsed (a 100,000-deep array overflows the parser's stack).
"""

from __future__ import annotations

import os
import stat

from kb.knowledge.precompiled import Deferred  # (the regex cache's: no `re` import on kb diagnose's OOM path)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (kb diagnose plans an OOM log with this module)
if TYPE_CHECKING:
    from typing import Any

MAX_FILE_BYTES = 1024 * 1024
MAX_DEPTH = 32


class InputFileError(ValueError):
    """A file that cannot be used; the message names it and says why (exit code 2)."""


def read_bounded(path: str, what: str, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of the regular file ``path``, at most ``max_bytes`` of it. ``what`` names the file in
    messages (``config file 'sft.json'``). Raises :class:`InputFileError`."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputFileError(f"{what} not found") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise InputFileError(f"cannot read {what}: {getattr(exc, 'strerror', None) or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputFileError(f"{what} is a directory, not a file")
    pipe = stat.S_ISFIFO(info.st_mode)  # `--config <(...)`, `--config /dev/stdin` from a pipe: read up to the bound
    if not stat.S_ISREG(info.st_mode) and not pipe:
        raise InputFileError(f"{what} is not a regular file or a pipe (a device may never end): "
                             f"kb reads files no larger than {max_bytes // 1024} KiB")
    if info.st_size > max_bytes:
        raise InputFileError(f"{what} is larger than {max_bytes // 1024} KiB: not what kb reads here")
    try:
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise InputFileError(f"cannot read {what}: {exc.strerror}") from None
    if len(data) > max_bytes:  # it grew since stat
        raise InputFileError(f"{what} is larger than {max_bytes // 1024} KiB: not what kb reads here")
    try:
        return data.decode("utf-8-sig")  # a UTF-8 byte-order mark (Windows editors write one) is not text
    except UnicodeDecodeError:
        wide = wide_encoding(data)
        if wide:
            raise InputFileError(f"{what} is {wide} text: save it as UTF-8 (e.g. iconv -f {wide} -t UTF-8)") from None
        raise InputFileError(f"{what} is not UTF-8 text (Latin-1 or another 8-bit encoding?): save it as UTF-8") from None


def wide_encoding(data: bytes) -> str | None:
    """"UTF-32LE", "UTF-16BE", ... when ``data`` starts with that encoding's byte-order mark or reads as it
    without one (mostly-ASCII text has a NUL in every other, or three of four, bytes), else None."""
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):  # before UTF-16's: FF FE starts both
        return "UTF-32LE" if data[0] == 0xFF else "UTF-32BE"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16LE" if data[0] == 0xFF else "UTF-16BE"
    head = data[:4096]
    if len(head) < 4:
        return None
    quads = len(head) // 4 * 4
    for offset, name in ((0, "UTF-32LE"), (3, "UTF-32BE")):
        text = head[offset:quads:4]
        if all(b == 0 for i in range(4) if i != offset for b in head[i:quads:4]) and any(text):
            return name
    pairs = len(head) // 2 * 2
    even, odd = head[0:pairs:2], head[1:pairs:2]
    if odd.count(0) >= 0.9 * len(odd) and even.count(0) <= 0.1 * len(even):
        return "UTF-16LE"
    if even.count(0) >= 0.9 * len(even) and odd.count(0) <= 0.1 * len(odd):
        return "UTF-16BE"
    return None


# A double-quoted string on one line (JSON, YAML): brackets inside it (a chat template's "{% ... %}") do not nest.
_QUOTED = Deferred(r'"(?:[^"\\\n]|\\.)*"')
_BRACKET = Deferred(r"[\[\]{}]")


def nesting(text: str, limit: int = MAX_DEPTH) -> int:
    """How deep brackets and braces nest in ``text`` outside double-quoted strings (an upper bound for
    YAML, whose other string forms count too); counting stops once past ``limit``."""
    depth = deepest = 0
    for m in _BRACKET.finditer(_QUOTED.sub('""', text)):
        if m.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif depth:
            depth -= 1
    return deepest


def load_json(text: str, what: str, max_depth: int = MAX_DEPTH) -> Any:
    """JSON within ``max_depth`` levels. ``NaN`` and ``Infinity`` are refused (not JSON, though Python reads
    them); so are numbers too long to convert. Raises :class:`InputFileError`."""
    if nesting(text, max_depth) > max_depth:
        raise InputFileError(f"{what} is nested more than {max_depth} levels deep")

    def constant(name: str) -> Any:
        raise InputFileError(f"{what} holds {name}: not a number kb can use")

    import json  # (here: kb diagnose plans an OOM log through this module and reads no JSON)

    try:
        return json.loads(text, parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise InputFileError(f"{what} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except InputFileError:
        raise
    except (RecursionError, MemoryError):
        raise InputFileError(f"{what} is nested too deeply to read") from None
    except ValueError as exc:  # a number of more digits than int() converts
        raise InputFileError(f"{what} holds a value kb cannot read ({str(exc)[:80]})") from None


def read_json(path: str, what: str) -> Any:
    """A bounded JSON file (:func:`read_bounded`, then :func:`load_json`)."""
    return load_json(read_bounded(path, what), what)

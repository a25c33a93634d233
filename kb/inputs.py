"""Read pasted or piped error output as a stream of text lines, safely.

Lines are capped at ``MAX_LINE_BYTES`` (the rest of an over-long line is
skipped, not buffered), bytes are decoded as UTF-8 with replacement, and the
reader keeps counts so the caller can tell empty, binary or non-UTF-8 input
from text that simply holds no known error.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator

MAX_LINE_BYTES = 64 * 1024
SNIFF_BYTES = 8192


class UnusableInput(Exception):
    """Input kb cannot read as error text; the CLI exits 2 with this message."""


@dataclass
class ReadStats:
    bytes_read: int = 0
    lines: int = 0
    truncated_lines: int = 0
    undecodable_lines: int = 0


def _looks_binary(head: bytes) -> bool:
    if not head:
        return False
    if head.count(b"\x00") > len(head) // 100 + 1:
        return True
    control = sum(1 for b in head if b < 9 or 13 < b < 32)
    return control > len(head) // 10


class LogReader:
    def __init__(self, stream: BinaryIO, name: str) -> None:
        self.stream = stream
        self.name = name
        self.stats = ReadStats()

    def lines(self) -> Iterator[str]:
        head = self.stream.peek(SNIFF_BYTES)[:SNIFF_BYTES] if hasattr(self.stream, "peek") else b""
        if head.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise UnusableInput(f"{self.name} is UTF-16 text: save it as UTF-8 (e.g. iconv -f UTF-16 -t UTF-8)")
        if head.startswith((b"\x1f\x8b", b"PK\x03\x04", b"BZh", b"\xfd7zXZ", b"(\xb5/\xfd")):
            raise UnusableInput(f"{self.name} is a compressed archive: extract the log first")
        if _looks_binary(head):
            raise UnusableInput(f"{self.name} looks like binary data, not error text")
        first = True
        while True:
            chunk = self.stream.readline(MAX_LINE_BYTES)
            if not chunk:
                break
            self.stats.bytes_read += len(chunk)
            if not chunk.endswith(b"\n") and len(chunk) >= MAX_LINE_BYTES:
                self.stats.truncated_lines += 1
                while True:  # skip the rest of an over-long line without holding it
                    rest = self.stream.readline(MAX_LINE_BYTES)
                    self.stats.bytes_read += len(rest)
                    if not rest or rest.endswith(b"\n"):
                        break
            self.stats.lines += 1
            if first:
                first = False
                if chunk.startswith(b"\xef\xbb\xbf"):  # UTF-8 byte-order mark (Windows editors)
                    chunk = chunk[3:]
            try:
                text = chunk.decode("utf-8")
            except UnicodeDecodeError:
                self.stats.undecodable_lines += 1
                text = chunk.decode("utf-8", errors="replace")
            yield text


def open_input(source: str) -> LogReader:
    """``-`` for standard input, else a file path; raises UnusableInput."""
    if source == "-":
        return LogReader(sys.stdin.buffer, "standard input")
    path = Path(source)
    try:
        if path.is_dir():
            raise UnusableInput(f"{source} is a directory, not a file")
        handle = open(path, "rb")  # noqa: SIM115 - closed by the process exit / caller
    except FileNotFoundError:
        raise UnusableInput(f"{source}: no such file") from None
    except PermissionError:
        raise UnusableInput(f"{source}: permission denied") from None
    except OSError as exc:
        raise UnusableInput(f"{source}: {exc.strerror}") from None
    return LogReader(handle, source)

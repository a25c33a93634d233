"""Read pasted or piped error output as a stream of text lines, safely.

Lines are capped at ``MAX_LINE_BYTES`` (the rest of an over-long line is
skipped, not buffered; the cut never splits a UTF-8 character), bytes are decoded
as UTF-8 with replacement, and the reader keeps counts so the caller can tell
empty, binary or non-UTF-8 input from text that simply holds no known error.

Line ends: LF as it is, CRLF read as LF (the same lines as the LF file); input
whose first block holds carriage returns and no LF at all (old Mac files, some
terminal captures) is read as CR-terminated lines. A CR inside an LF-terminated line (a progress bar redrawing
itself) stays in the line: kb/diagnose/textclean.py keeps its last state.
"""

from __future__ import annotations

import os
import sys
from stat import S_ISREG

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, BinaryIO

MAX_LINE_BYTES = 64 * 1024
BLOCK_BYTES = 1024 * 1024
SNIFF_BYTES = 8192
NUL_RUN = b"\x00" * 64  # a log that starts with this many NULs has them skipped before its head is judged
NUL_RUN_LIMIT = 64 * 1024 * 1024  # at most this many (a hole left by copytruncate is the log's size when cut)


# A chunk's "remainder" (kb/diagnose/stream.py trigger_lines): its UTF-8 bytes without every byte but the rarer
# letters and marks, the line ends and CR. Made here from the bytes read, when a chunk's text is their decoding
# (then the text's UTF-8 is those bytes): no encoding back, and the CRLF test below reads it instead of the block.
# "r" is kept although common: without it the parser's trigger ".errors." has an empty remainder, and a token with
# none is searched for in the whole text of every chunk (~0.1 s of the 200 MB log, issue 26; its remainder "rrr"
# is in few lines of a training log). Which bytes are kept changes only the speed: the prefilter is exact either way.
_RARE = "ABCDEFGHIJKLMNOPQRSTUVWXYZ(_\"bcdfgjklmpqruvwxyz\n\r"  # kept; vowels, common letters, digits, spaces go
REMAINDER_DELETE = bytes(c for c in range(256) if chr(c) not in _RARE)  # non-ASCII bytes go too

# The last chunk handed out (kb/diagnose/stream.py's chunk_lines or LogReader.chunks): a scanner that searches a
# chunk's text for its words is given only the text; stream.trigger_lines finds the chunk's lines (and remainder,
# when the reader made it) here.
_handed: list[Any] = [None, None, None]


def lines_of(text: str) -> list[str] | None:
    """The lines of ``text`` when it is the text of the chunk handed out last, else None."""
    return _handed[1] if _handed[0] is text else None


def remainder_of(text: str) -> bytes | None:
    """``text``'s remainder when it is the text of the chunk handed out last and the reader made it, else None."""
    return _handed[2] if _handed[0] is text else None


def hand_out(text: str, lines: list[str], remainder: bytes | None = None) -> tuple[str, list[str]]:
    _handed[0], _handed[1], _handed[2] = text, lines, remainder
    return text, lines


class UnusableInput(Exception):
    """Input kb cannot read as error text; the CLI exits 2 with this message."""


class ReadStats:
    """Counts kept while reading, to tell empty, binary or non-UTF-8 input apart."""

    def __init__(self) -> None:
        self.bytes_read = 0
        self.lines = 0
        self.truncated_lines = 0
        self.undecodable_lines = 0
        self.cr_only = False  # read as CR-terminated lines
        self.nul_run = 0  # NUL bytes skipped at the start (a log truncated while written: LogReader._skip_nul_run)
        self.blank = True  # only whitespace so far (whitespace-only input is empty input: exit 2)


def _cut(raw: bytes, limit: int = MAX_LINE_BYTES) -> bytes:
    """``raw`` cut to at most ``limit`` bytes, never inside a UTF-8 character: kb's own cut must not make
    a line undecodable and then blame the input."""
    if len(raw) <= limit:
        return raw
    end = limit
    while end > limit - 3 and raw[end] & 0xC0 == 0x80:  # the first byte left out continues a character
        end -= 1
    return raw[:end]


def _wide_encoding(head: bytes) -> str | None:
    """"UTF-32" or "UTF-16" (with LE/BE) when ``head`` reads as that encoding of mostly-ASCII text without
    a byte-order mark (NUL bytes at a fixed place in every unit), else None. Such text is not binary."""
    if len(head) < 16:
        return None
    n = len(head) // 4 * 4
    quads = [head[k:n:4] for k in range(4)]
    zero = [q.count(0) / len(q) for q in quads]
    if min(zero[1:]) > 0.9 and zero[0] < 0.1:
        return "UTF-32LE"
    if min(zero[:3]) > 0.9 and zero[3] < 0.1:
        return "UTF-32BE"
    n = len(head) // 2 * 2
    even, odd = head[0:n:2], head[1:n:2]
    if odd.count(0) > 0.9 * len(odd) and even.count(0) < 0.1 * len(even):
        return "UTF-16LE"
    if even.count(0) > 0.9 * len(even) and odd.count(0) < 0.1 * len(odd):
        return "UTF-16BE"
    return None


def _looks_binary(head: bytes) -> bool:
    if not head:
        return False
    if head.count(b"\x00") > len(head) // 100 + 1:
        return True
    control = sum(1 for b in head if b < 9 or 13 < b < 32)
    if control > len(head) // 10:
        return True
    # (turn 39) random bytes (/dev/urandom) hold ~10.5 % such controls, on either side of the line above by chance:
    # half as many, with a tenth of the bytes not UTF-8 (text in Latin-1 has almost no controls), is binary too
    return control > len(head) // 20 and head.decode("utf-8", "replace").count("\ufffd") > len(head) // 10


class LogReader:
    def __init__(self, stream: BinaryIO, name: str) -> None:
        self.stream = stream
        self.name = name
        self.stats = ReadStats()
        self._remainder: bytes | None = None  # the remainder of the block blocks() yielded last, when known
        # (turn 43) (n, call): call() once, when n bytes have been read (kb/cli/diagnose.py: a pipe's length is
        # known only as it is read)
        self.after_bytes: tuple[int, Callable[[], object]] | None = None

    def _check_head(self, head: bytes) -> None:
        """Raise UnusableInput for input that is not UTF-8 text, naming what it is."""
        # (review47) UTF-16 or UTF-32 after a UTF-8 byte-order mark (a UTF-8 file that a PowerShell `>>` went on
        # in UTF-16): the mark's 3 bytes shifted every unit, so UTF-16LE read as UTF-16BE and the advice garbled
        # the text. The wide encodings are judged on what follows the mark, and the advice drops the mark first.
        body, after = head, ""
        if head.startswith(b"\xef\xbb\xbf"):
            body, after = head[3:], " after a UTF-8 byte-order mark"
        advice = "drop its first 3 bytes, then e.g. " if after else "e.g. "
        if body.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):  # before UTF-16's: FF FE starts both
            raise UnusableInput(f"{self.name} is UTF-32 text{after}: save it as UTF-8 ({advice}iconv -f UTF-32 -t UTF-8)")
        if body.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise UnusableInput(f"{self.name} is UTF-16 text{after}: save it as UTF-8 ({advice}iconv -f UTF-16 -t UTF-8)")
        if head.startswith((b"\x1f\x8b", b"PK\x03\x04", b"BZh", b"\xfd7zXZ", b"(\xb5/\xfd")):
            raise UnusableInput(f"{self.name} is a compressed archive: extract the log first")
        wide = _wide_encoding(body)
        if wide is not None:
            raise UnusableInput(f"{self.name} looks like {wide} text{after or ' without a byte-order mark'}: save it "
                                f"as UTF-8 ({advice}iconv -f {wide} -t UTF-8)")
        if _looks_binary(head):
            raise UnusableInput(f"{self.name} looks like binary data, not error text")

    def _skip_nul_run(self, head: bytes) -> bytes:
        """(turn 49) Skip the NUL bytes a log starts with, at most NUL_RUN_LIMIT of them, and return the head after
        them. logrotate's ``copytruncate`` (and any truncation while a process still writes at its old offset)
        leaves a log that starts with a hole read as NULs, then the text: judged from its first bytes, such a log
        was "binary data" though an OOM traceback followed. What follows the run is judged as any head is
        (a binary file stays binary); a run longer than the limit (``/dev/zero``) is judged as NULs. A run of
        fewer than len(NUL_RUN) bytes is never skipped: UTF-16BE and UTF-32BE text start with one to three."""
        skipped = 0
        while head[:1] == b"\x00" and skipped < NUL_RUN_LIMIT:
            run = len(head) - len(head.lstrip(b"\x00"))
            self.stream.read(run)  # type: ignore[attr-defined] - (read from the buffer that peek filled)
            skipped += run
            head = self.stream.peek(SNIFF_BYTES)[:SNIFF_BYTES]  # type: ignore[attr-defined]
        self.stats.bytes_read += skipped
        self.stats.nul_run = skipped
        if not head:
            raise UnusableInput(f"{self.name} holds only NUL bytes ({skipped:,}), not error text")
        if head[:1] == b"\x00":
            raise UnusableInput(f"{self.name} starts with more than {NUL_RUN_LIMIT // 2**20} MiB of NUL bytes, not "
                                "error text")
        return head

    def blocks(self) -> Iterator[bytes]:
        """The input's bytes in blocks of about BLOCK_BYTES, LF-terminated lines (CRLF and CR-only input converted).

        A regular file (a path, or standard input redirected from one: ``kb diagnose < train.log``) is mapped
        (mmap), window by window, and each block ends at a line end where the block holds one: a block is one
        copy out of the page cache, and no block is copied again to join a line cut at its end. A pipe, a FIFO or
        a terminal is read a block at a time. Either way the memory held stays bounded."""
        mapped = _mapped(self.stream)  # (asked before anything is read)
        head = self.stream.peek(SNIFF_BYTES)[:SNIFF_BYTES] if hasattr(self.stream, "peek") else b""
        if head.startswith(NUL_RUN):
            head = self._skip_nul_run(head)
        self._check_head(head)
        read = getattr(self.stream, "read1", self.stream.read)  # read1: return what a pipe has, do not wait
        block = read(BLOCK_BYTES)
        # Decide the line ends on a first block that holds a LF, or a CR and at least SNIFF_BYTES (a pipe may
        # hand over a few bytes: one progress bar's CR must not turn a whole LF log into CR lines), or
        # BLOCK_BYTES, or the whole input.
        while (block and b"\n" not in block and len(block) < BLOCK_BYTES
               and (len(block) < SNIFF_BYTES or b"\r" not in block)):
            more = read(BLOCK_BYTES)
            if not more:
                break
            block += more
        if block.startswith(b"\xef\xbb\xbf"):  # UTF-8 byte-order mark (Windows editors)
            self.stats.bytes_read += 3
            block = block[3:]
        cr_only = self.stats.cr_only = b"\r" in block and b"\n" not in block
        if mapped is not None and not cr_only:
            # (the first block as read, and the grid of the blocks after it, are what the file gives read1)
            mapped.pos = self.stream.tell()
            yield from self._lf_ends(mapped.line_blocks(block))
            return
        if not cr_only:
            yield from self._lf_ends(_read_blocks(block, read))
            return
        after_cr = False  # the last block ended with CR: a LF starting this one belongs to it (CRLF)
        while block:
            if after_cr and block[:1] == b"\n":
                block = block[1:]
                self.stats.bytes_read += 1
            after_cr = block[-1:] == b"\r"
            yield block.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            block = _read_full(read)

    def _lf_ends(self, blocks: Iterator[bytes]) -> Iterator[bytes]:
        """``blocks`` with each CRLF made LF, so CRLF input is read exactly as LF input (issue 26): a CR kept at
        a line's end made a blank line not blank (it took one of the CONTEXT_LINES kept before an error) and
        every line one character longer. A CR elsewhere (a progress bar redrawing itself) stays. A block that
        ends with CR keeps it back until the next block tells whether a LF follows it; the CRs dropped still
        count in bytes_read."""
        held = False  # the last block's final CR, held back
        for block in blocks:
            if held:
                held = False
                if block[:1] == b"\n":
                    self.stats.bytes_read += 1  # (the held CR, dropped)
                else:
                    block = b"\r" + block
            if block[-1:] == b"\r":
                held = True
                block = block[:-1]
            # A CRLF in the block is one in its remainder (both bytes kept), a tenth of its size: the block itself is
            # searched only when the remainder holds one (a CR whose line's other bytes are all deleted, or a CRLF).
            remainder = block.translate(None, REMAINDER_DELETE)
            if b"\r" in remainder and _crlf_in(remainder) and block.rfind(b"\r\n") != -1:
                size = len(block)
                block = block.replace(b"\r\n", b"\n")
                self.stats.bytes_read += size - len(block)
                remainder = block.translate(None, REMAINDER_DELETE)
            if block:
                self._remainder = remainder
                yield block
        if held:
            self._remainder = None
            yield b"\r"

    def chunks(self) -> Iterator[tuple[str, list[str]]]:
        """The input as (text, lines) chunks of whole lines, about BLOCK_BYTES each; raises UnusableInput."""
        for text, lines, remainder in self._chunks():
            yield hand_out(text, lines, remainder)

    def _chunks(self) -> Iterator[tuple[str, list[str], bytes | None]]:
        carry = b""
        carry_remainder: bytes | None = b""  # the carry's remainder (None: not known)
        skipping = False  # inside an over-long line whose head was already kept
        for block in self.blocks():
            remainder, self._remainder = self._remainder, None
            self.stats.bytes_read += len(block)
            if self.after_bytes is not None and self.stats.bytes_read >= self.after_bytes[0]:
                call, self.after_bytes = self.after_bytes[1], None
                call()
            if self.stats.blank and not block.isspace():
                self.stats.blank = False
            cut = block.rfind(b"\n")
            if cut == -1:  # no line ends in this block
                if not skipping:
                    carry += block
                    carry_remainder = (carry_remainder + remainder if carry_remainder is not None
                                       and remainder is not None else None)
                    if len(carry) > MAX_LINE_BYTES:
                        yield (*self._decode([_cut(carry)]), None)
                        self.stats.truncated_lines += 1
                        carry, carry_remainder, skipping = b"", b"", True
                continue
            # (every LF is kept in the remainder: the block's last LF is the remainder's)
            last = remainder.rfind(b"\n") if remainder is not None else -1
            if cut == len(block) - 1 and not carry and not skipping:  # (a mapped file's blocks end at a line end)
                # (decoded from the block: no copy of it)
                yield self._decode_lines(memoryview(block)[:cut], block, None if remainder is None else remainder[:last])
                continue
            data: bytes | None = block[:cut]
            data_remainder = None
            if skipping:  # the block's first line is the tail of the over-long line: not kept
                first_end = data.find(b"\n")
                data = data[first_end + 1:] if first_end != -1 else None
                skipping = False
            else:
                data = carry + data
                if carry_remainder is not None and remainder is not None:
                    data_remainder = carry_remainder + remainder[:last]
            carry = block[cut + 1:]
            carry_remainder = remainder[last + 1:] if remainder is not None else None
            if data is not None:
                yield self._decode_lines(data, data, data_remainder)
            if len(carry) > MAX_LINE_BYTES:  # (after the lines before it: line numbers stay in order)
                yield (*self._decode([_cut(carry)]), None)
                self.stats.truncated_lines += 1
                carry, carry_remainder, skipping = b"", b"", True
        if carry and not skipping:
            yield (*self._decode([carry]), None)

    def _decode_lines(self, data: bytes | memoryview, source: bytes,
                      remainder: bytes | None) -> tuple[str, list[str], bytes | None]:
        """Decode LF-separated lines to a (text, lines, remainder) chunk: the whole block at once when it is UTF-8
        and no line can be over-long (the common case), else line by line (_decode). ``source``: bytes that
        start with ``data``; ``remainder``: data's remainder, or None."""
        try:
            text = str(data, "utf-8")
        except UnicodeDecodeError:
            return (*self._decode(bytes(data).split(b"\n")), None)
        lines = text.split("\n")
        if len(data) > MAX_LINE_BYTES:
            longest = MAX_LINE_BYTES if text.isascii() else MAX_LINE_BYTES // 4  # (a character: at most 4 bytes)
            if not _short_lines(source, len(data), longest) and max(map(len, lines)) > longest:
                return (*self._decode(bytes(data).split(b"\n")), None)
        self.stats.lines += len(lines)
        return text, lines, remainder

    def _decode(self, raw_lines: list[bytes]) -> tuple[str, list[str]]:
        """Decode complete lines to a (text, lines) chunk; count the lines cut or not UTF-8."""
        for i, line in enumerate(raw_lines):
            if len(line) > MAX_LINE_BYTES:
                raw_lines[i] = _cut(line)
                self.stats.truncated_lines += 1
        self.stats.lines += len(raw_lines)
        data = b"\n".join(raw_lines)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            lines = []
            for line in raw_lines:
                try:
                    lines.append(line.decode("utf-8"))
                except UnicodeDecodeError:
                    self.stats.undecodable_lines += 1
                    lines.append(line.decode("utf-8", errors="replace"))
            return "\n".join(lines), lines
        return text, text.split("\n")

    def lines(self) -> Iterator[str]:
        """The input as text lines (without line ends)."""
        for _text, lines in self.chunks():
            yield from lines


_CRLF: list[Any] = []  # the search method of a regex of CRLF, compiled on first use


def _crlf_in(data: bytes) -> bool:
    """Whether ``data`` holds CRLF. A log with progress bars holds a CR on every other line: there ``b"\\r\\n" in``
    costs 2-3 times what the regex engine's scan for the CR takes (0.26 against 0.09 ms for a MB of log's remainder,
    ~0.03 s of the 200 MB log); without a CR, the memchr before it answers (``b"\\r" in``)."""
    if not _CRLF:
        import re  # (already imported on diagnose's path, start-up included: -X importtime)

        _CRLF.append(re.compile(b"\r\n").search)
    return _CRLF[0](data) is not None


def _short_lines(source: bytes, size: int, longest: int) -> bool:
    """True when no line of ``source[:size]`` is longer than ``longest`` bytes (False: maybe one is). A line of
    2 * w bytes or more (w = longest // 2) holds a whole window [k * w, k * w + w), or the last window
    [size - w, size) when it reaches past the last whole one: a LF in each window proves every line shorter.
    One memchr per window, each stopping at the window's first LF, instead of a look at every line."""
    width = longest // 2
    if width <= 0 or size < width:
        return False
    for start in range(0, size - width + 1, width):
        if source.find(b"\n", start, start + width) == -1:
            return False
    return source.find(b"\n", size - width, size) != -1


def _read_blocks(first: bytes, read: Callable[[int], bytes]) -> Iterator[bytes]:
    """``first``, then the rest of the stream a block at a time (``read``: read1 or read)."""
    block = first
    while block:
        yield block
        block = _read_full(read)


def _read_full(read: Callable[[int], bytes]) -> bytes:
    """The stream's next BLOCK_BYTES, fewer only at its end. read1 on a pipe hands over what the pipe holds (64 KiB
    at most on Linux): a chunk per read made a piped log 16 times as many chunks as the same file, each paying the
    per-chunk searches (kb/diagnose/stream.py) in full. (kb diagnose answers at the end of the input: waiting for a
    block delays nothing.)"""
    block = read(BLOCK_BYTES)
    if not block or len(block) >= BLOCK_BYTES:
        return block
    parts = [block]
    size = len(block)
    while size < BLOCK_BYTES:
        more = read(BLOCK_BYTES - size)
        if not more:
            break
        parts.append(more)
        size += len(more)
    return b"".join(parts)


class _Map:
    """A regular file read block by block at known offsets (os.pread), or through mmap one window of at most
    MAP_WINDOW_BYTES at a time where there is no pread (Windows: a mapped file cannot be truncated there).

    (turn 41) A log that logrotate's copytruncate (or a new run) cut while kb read it: reading a mapped page past the
    file's new end kills the process with SIGBUS, and a size check before each block leaves the time between the check
    and the read, so mmap is not used where pread is: a pread past the new end reads fewer bytes, which says the file
    shrank. Each block is one pread of the bytes from where the last chunk ended (a line's head carried over is read
    again, not copied)."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd, self.size, self.pos = fd, size, 0
        self.window: Any = None
        self.window_start = 0
        self.pread = getattr(os, "pread", None)

    def _shrank(self) -> UnusableInput:
        self.close()
        return UnusableInput("the input file shrank while kb read it (a log rotated or truncated): diagnose a copy "
                             "of it (cp train.log /tmp/train.log)")

    def _window(self, start: int, stop: int) -> Any:
        """The mapped window that holds the file's bytes [start, stop) (stop - start at most BLOCK_BYTES)."""
        import mmap

        # (turn 40) without pread: the size is looked at before each block is read (an fstat: a microsecond)
        if os.fstat(self.fd).st_size < stop:
            raise self._shrank()
        window = self.window
        if window is None or not (self.window_start <= start and stop <= self.window_start + len(window)):
            if window is not None:
                window.close()
            offset = start - start % mmap.ALLOCATIONGRANULARITY
            length = min(MAP_WINDOW_BYTES, self.size - offset)
            self.window = window = mmap.mmap(self.fd, length, offset=offset, access=mmap.ACCESS_READ)
            self.window_start = offset
        return window

    def _read(self, start: int, stop: int) -> bytes:
        """The file's bytes [start, stop), all of them: a short read is a file that shrank."""
        data = self.pread(self.fd, stop - start, start)
        while len(data) < stop - start:
            more = self.pread(self.fd, stop - start - len(data), start + len(data))
            if not more:
                raise self._shrank()
            data += more
        return data

    def line_blocks(self, first: bytes) -> Iterator[bytes]:
        """``first`` (the file's first block, as read), then the rest of the file in blocks that end where
        LogReader.chunks ends a chunk when it reads BLOCK_BYTES at a time: after the last LF of each block of the
        same grid (k * BLOCK_BYTES), unless none is there or what follows it is an over-long line's head (then at
        the grid). chunks then gives the same chunks, and the bytes after a chunk's last LF are not carried
        over (copied) to the next: the next block starts with them."""
        yield first
        grid, size = self.pos, self.size
        start = grid
        while grid < size:
            end = min(grid + BLOCK_BYTES, size)
            # the bytes [start, end) read (pread) or mapped (a window holding them), and where they begin in the file
            buf, base = (self._read(start, end), start) if self.pread is not None \
                else (self._window(start, end), self.window_start)
            found = buf.rfind(b"\n", grid - base, end - base) if end < size else -1
            cut = found + base if found != -1 else -1
            stop = cut + 1 if cut != -1 and end - (cut + 1) <= MAX_LINE_BYTES else end
            self.pos = stop
            yield buf[start - base: stop - base]  # (a read block whole is itself: bytes' full slice copies nothing)
            start, grid = stop, end
        self.close()

    def close(self) -> None:
        if self.window is not None:
            self.window.close()
            self.window = None


MAP_WINDOW_BYTES = 4 * 1024 * 1024  # (a multiple of mmap.ALLOCATIONGRANULARITY, more than a block and a long line)


def _mapped(stream: object) -> _Map | None:
    """A _Map of ``stream`` when it is a regular file of more than a block, not read from yet, else None (pipes,
    FIFOs, terminals, a small file, a stream without a descriptor, a system without mmap)."""
    try:
        fd = stream.fileno()  # type: ignore[attr-defined]
        info = os.fstat(fd)
        # (nothing read yet: the descriptor is at the start. A small file gains nothing: not mmap's import either.)
        if not S_ISREG(info.st_mode) or info.st_size <= BLOCK_BYTES or os.lseek(fd, 0, os.SEEK_CUR) != 0:
            return None
    except (AttributeError, OSError, ValueError, TypeError):
        return None
    if not hasattr(os, "pread"):
        try:
            import mmap  # noqa: F401 - (absent on a few platforms: WASI, some embedded builds)
        except ImportError:
            return None
    return _Map(fd, info.st_size)


def fits_one_block(source: str) -> bool:
    """Whether ``source`` (a path, or ``-`` for standard input) is a regular file of at most BLOCK_BYTES now: its
    diagnosis reads one block (a pipe, a terminal, a FIFO or a folder: False; so is a file that cannot be read)."""
    size = file_size(source)
    return size is not None and size <= BLOCK_BYTES


def file_size(source: str) -> int | None:
    """The size of ``source`` (a path, or ``-`` for standard input) when it is a regular file now, else None (a pipe,
    a terminal, a FIFO, a folder, a file that cannot be read)."""
    try:
        info = os.fstat(sys.stdin.fileno()) if source == "-" else os.stat(source)
    except (AttributeError, OSError, ValueError):  # (standard input closed or replaced by an object without one)
        return None
    return info.st_size if S_ISREG(info.st_mode) else None


def open_input(source: str) -> LogReader:
    """``-`` for standard input, else a file path; raises UnusableInput."""
    if source == "-":
        stdin = getattr(sys.stdin, "buffer", None)  # None when kb was started with standard input closed
        if stdin is None:
            raise UnusableInput("standard input is closed: give a file (kb diagnose train.log) or pipe the "
                                "output in (python train.py 2>&1 | kb diagnose -)")
        return LogReader(stdin, "standard input")
    try:
        if os.path.isdir(source):
            raise UnusableInput(f"{source} is a directory, not a file")
        handle = open(source, "rb")  # noqa: SIM115 - closed by the process exit / caller
    except FileNotFoundError:
        raise UnusableInput(f"{source}: no such file") from None
    except PermissionError:
        raise UnusableInput(f"{source}: permission denied") from None
    except OSError as exc:
        raise UnusableInput(f"{source}: {exc.strerror}") from None
    return LogReader(handle, source)

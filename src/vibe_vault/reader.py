"""Read only the complete lines a transcript gained since last time.

A `Cursor` remembers, per file, the byte offset just past the last complete
line consumed, plus enough identity (inode, first bytes) to notice a file that
was truncated, replaced or rewritten; then it is read again from 0. A last line
without its `\\n` is left for next time (Claude Code is often still writing it)
unless it already parses as a whole JSON object: no longer record can start with
a complete object, so such a tail is final (a copied or crashed transcript).
Memory is bounded by the chunk size plus the longest line.
"""


import os
import time
import zlib
from collections.abc import Iterator
from typing import Protocol

import msgspec
from msgspec import Struct

CHUNK = 1 << 20  # 1 MiB: large enough to amortise syscalls, small enough for RSS
HEAD = 64  # bytes compared to notice a rewritten file (the first, and those before the cursor)
# A line longer than this is skipped while streaming and counted, never held:
# Claude Code caps what a tool result carries far below it, and a line this
# size costs about three times as much memory to decode.
MAX_LINE = 32 << 20

# Chunk buffers of finished readers, for the next file: a fresh 1 MiB buffer
# costs 256 page faults, which made up a tenth of a cold backfill's CPU time.
_spare: list[bytearray] = []


class Cursor(Struct, omit_defaults=True):
    offset: int = 0
    inode: int = 0
    size: int = 0
    mtime_ns: int = 0
    head_len: int = 0  # how many first bytes head_crc covers
    head_crc: int = 0  # a checksum, not the bytes: the state must hold no transcript text
    tail_len: int = 0  # how many bytes just before `offset` tail_crc covers
    tail_crc: int = 0
    in_long_line: bool = False  # `offset` is inside a line too long to keep


class Readable(Protocol):
    """What the reader needs of a file: an open file object, or an FdFile."""

    def seek(self, pos: int, whence: int = 0, /) -> int: ...
    def read(self, size: int, /) -> bytes: ...
    def readinto(self, buffer: bytearray | memoryview, /) -> int | None: ...


class FdFile:
    """A descriptor read by position (`pread`), for the reader: an open file
    object costs four system calls more than the read itself (a stat, a
    terminal check, two seeks) and one seek per head or tail checksum, some
    15 µs of a small session's reading."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pos = 0

    def seek(self, pos: int, whence: int = 0, /) -> int:
        if whence != os.SEEK_SET:
            raise ValueError("FdFile seeks to absolute positions only")
        self.pos = pos
        return pos

    def read(self, size: int, /) -> bytes:
        data = os.pread(self.fd, size, self.pos)
        self.pos += len(data)
        return data

    def readinto(self, buffer: bytearray | memoryview, /) -> int:
        n = os.preadv(self.fd, [buffer], self.pos)
        self.pos += n
        return n


def reader_of(fd: int) -> Readable:
    """A Readable over `fd` (left open): an FdFile where `preadv` exists."""
    if hasattr(os, "preadv"):
        return FdFile(fd)
    return os.fdopen(fd, "rb", closefd=False)  # pragma: no cover - Windows


def unchanged(cursor: Cursor, stat_result: os.stat_result) -> bool:
    """True when a stat says there can be nothing new since the cursor."""
    return (
        cursor.inode == stat_result.st_ino
        and cursor.size == stat_result.st_size
        and cursor.mtime_ns == stat_result.st_mtime_ns
        and cursor.offset <= stat_result.st_size
    )


def must_restart(cursor: Cursor, file: Readable, stat_result: os.stat_result) -> bool:
    """True when the file is not the one the cursor was reading any more."""
    if cursor.offset == 0:
        return False
    if cursor.inode and cursor.inode != stat_result.st_ino:
        return True
    if stat_result.st_size < cursor.offset:
        return True
    if cursor.head_len:
        file.seek(0)
        if zlib.crc32(file.read(cursor.head_len)) != cursor.head_crc:
            return True
    if cursor.tail_len:
        # A rewrite in place that kept the size and the first bytes changes
        # what lies before the cursor.
        file.seek(cursor.offset - cursor.tail_len)
        if zlib.crc32(file.read(cursor.tail_len)) != cursor.tail_crc:
            return True
    return False


def tail_of(file: Readable, offset: int) -> tuple[int, int]:
    """(length, crc32) of the bytes just before `offset`, up to HEAD of them."""
    length = min(HEAD, offset)
    file.seek(offset - length)
    return length, zlib.crc32(file.read(length))


class LineReader:
    """Iterate the complete lines after `start`, tracking where each one ends.

    `end` is the offset just past the last line handed out (or skipped), which
    is what the caller stores once it has used those lines.

    A line is handed out as a view of the reader's buffer when it lies within
    one chunk (nearly all do), and as bytes otherwise. A view is only good until
    the next line is asked for: decode it then, and keep nothing that points
    into it (an Entry's `Raw` fields do). Not copying every line into a bytes
    object saves about 7% of the reading and decoding time.
    """

    def __init__(self, file: Readable, start: int, deadline: float | None = None,
                 limit: int | None = None, in_long_line: bool = False) -> None:
        self.f = file
        self.end = start
        # True when `end` lies inside a line over MAX_LINE, skipped so far: the
        # rest of it is skipped too, and not read again from its start.
        self.in_long_line = in_long_line
        self.deadline = deadline
        # Read no further than this (the size when the file was opened): a file
        # that never ends, such as a device or a /proc file, cannot hold the reader.
        self.limit = limit
        self.oversized = 0
        self.stopped_early = False

    def __iter__(self) -> Iterator[bytes | bytearray | memoryview]:
        f = self.f
        f.seek(self.end)
        pos = self.end
        pending = bytearray()  # a line longer than one chunk, as it comes
        skipping = self.in_long_line  # inside a line over MAX_LINE
        buf = _spare.pop() if _spare and len(_spare[-1]) == CHUNK else bytearray(CHUNK)
        view = memoryview(buf)
        deadline = self.deadline
        # The longest the caller took over one line (decoding, folding: the
        # gate's time), and when the last line was handed out: no line is
        # handed out that could not be used before the deadline, as far as
        # the lines before it tell, so the read ends in time for what a hook
        # does with it after (a chunk of the gate's worst texts, 8 prompts of
        # 128 kB, took seconds past it when the deadline was checked per chunk).
        worst = handed = 0.0

        def late(deadline: float) -> bool:
            """Whether the line at hand could not be used before the deadline
            (the read then stops before it, outside any long line); else it is
            handed out now."""
            nonlocal worst, handed
            now = time.monotonic()
            if handed:
                worst = max(worst, now - handed)
            if now + worst > deadline:
                self.stopped_early = True
                self.in_long_line = False
                return True
            handed = now
            return False

        try:
            while True:
                # (at the end of what there is to read, nothing is left to stop before)
                if deadline is not None and (self.limit is None or pos < self.limit):
                    now = time.monotonic()
                    if handed:
                        worst = max(worst, now - handed)
                    if now + worst > deadline:
                        self.stopped_early = True
                        self._stop_at(pos, skipping)
                        return
                if self.limit is None:
                    n = f.readinto(buf)
                elif pos < self.limit:
                    n = f.readinto(view[: min(CHUNK, self.limit - pos)])
                else:
                    n = 0
                if not n:
                    if pending and not skipping and _complete_object(pending):
                        if deadline is not None and late(deadline):
                            return
                        self.end = pos
                        yield pending
                    self._stop_at(pos, skipping)
                    return
                start = 0
                while True:
                    nl = buf.find(b"\n", start, n)
                    if nl < 0:
                        break
                    line_end = pos + nl + 1
                    if deadline is not None and not skipping and late(deadline):
                        return
                    if skipping:
                        skipping = False
                        self.oversized += 1
                        self.end = line_end
                    elif pending:
                        pending += view[start:nl]
                        line, pending = pending, bytearray()
                        self.end = line_end
                        yield line
                    elif buf[start] == 0x7B:  # "{": a line as Claude Code writes it
                        self.end = line_end
                        yield view[start:nl]  # no copy: the decoder reads it in place
                    else:
                        self.end = line_end
                        piece = bytes(view[start:nl])
                        # Blank lines carry nothing (one follows a tail taken as final).
                        if piece and not piece.isspace():
                            yield piece
                    start = nl + 1
                if start < n and not skipping:
                    pending += view[start:n]
                    if len(pending) > MAX_LINE:
                        pending = bytearray()
                        skipping = True
                pos += n
        finally:
            view.release()
            _spare.append(buf)

    def _stop_at(self, pos: int, skipping: bool) -> None:
        """Where the next read starts: inside a long line, past what was skipped."""
        self.in_long_line = skipping
        if skipping:
            self.end = pos


def _complete_object(data: bytes | bytearray) -> bool:
    stripped = data.strip()
    if not stripped.startswith(b"{") or not stripped.endswith(b"}"):
        return False
    try:
        msgspec.json.decode(stripped, type=msgspec.Raw)
    except msgspec.DecodeError:
        return False
    return True


def head_of(file: Readable, upto: int) -> tuple[int, int]:
    """(length, crc32) of the file's first bytes, up to HEAD of them."""
    file.seek(0)
    data = file.read(min(HEAD, upto))
    return len(data), zlib.crc32(data)

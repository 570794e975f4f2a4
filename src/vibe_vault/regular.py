"""Open and read files only when they are regular files, without ever blocking.

A transcript, subagent file, `meta.json`, saved state or `.git/config` path may
name a FIFO, a socket, a device or a `/proc` file: a plain `open()` of a FIFO
waits for a writer forever, and reading a device or `/proc` file may never end.
Every file vv reads that it did not write itself goes through here: opened with
`O_NONBLOCK`, checked with `fstat`, and read no further than the size it had.
"""

from __future__ import annotations

import errno
import os
import stat

from vibe_vault.atomic import StrPath

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_BINARY = getattr(os, "O_BINARY", 0)


class NotAFile(OSError):
    """The path is a directory, a FIFO, a socket, a device or a symlink loop."""


def open_regular(path: StrPath, *, follow_symlinks: bool = True) -> tuple[int, os.stat_result]:
    """A read-only descriptor of `path` and its stat, when it is a regular file.

    Raises NotAFile for anything else (with `follow_symlinks=False`, a symlink
    too), FileNotFoundError when it does not exist, OSError otherwise.
    """
    flags = os.O_RDONLY | _NONBLOCK | _BINARY | (0 if follow_symlinks else _NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError as exc:
        raise NotAFile(errno.EISDIR, "is a directory", os.fspath(path)) from exc
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            what = "a symlink loop" if follow_symlinks else "a symlink"
            raise NotAFile(errno.ELOOP, f"is {what}", os.fspath(path)) from exc
        if exc.errno in (errno.ENXIO, errno.EOPNOTSUPP):  # a socket, or a FIFO nobody writes
            raise NotAFile(exc.errno, "is not a regular file", os.fspath(path)) from exc
        raise
    return fd, _regular(fd, path)


def _regular(fd: int, path: StrPath) -> os.stat_result:
    """The stat of an opened descriptor, when it is a regular file (then made
    blocking again); else NotAFile, the descriptor closed."""
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotAFile(errno.EINVAL, "is not a regular file", os.fspath(path))
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return st


def open_append(path: StrPath, mode: int = 0o600) -> int:
    """A descriptor to append to `path` (created when missing), when it is a
    regular file: never through a symlink, and never waiting for a FIFO's
    reader (the log, a journal). Raises NotAFile for anything else."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | _NOFOLLOW | _NONBLOCK | _BINARY
    try:
        fd = os.open(path, flags, mode)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.EOPNOTSUPP):
            raise NotAFile(exc.errno, "is not a regular file", os.fspath(path)) from exc
        raise
    _regular(fd, path)
    return fd


def read_text(path: StrPath, limit: int = 64 << 20, *, follow_symlinks: bool = True) -> str:
    """A regular file's text (UTF-8, undecodable bytes replaced), read as
    `read_regular` reads: never a FIFO, a device or a /proc file."""
    return read_regular(path, limit, follow_symlinks=follow_symlinks).decode("utf-8", "replace")


def missing(path: StrPath) -> bool:
    """True when nothing is at `path` (a dangling symlink counts as nothing):
    one call and no exception, before opening a file that is usually not
    there (a new session's state, journal and note: ~2 µs less each)."""
    return not os.access(path, os.F_OK)


def read_regular(path: StrPath, limit: int, *, follow_symlinks: bool = True) -> bytes:
    """Up to `limit` bytes of a regular file, read no further than its size at
    opening (a `/proc` file reports size 0 and is read as empty).

    Raises like `open_regular`.
    """
    fd, st = open_regular(path, follow_symlinks=follow_symlinks)
    try:
        return read_fd(fd, min(limit, st.st_size))
    finally:
        os.close(fd)


def read_fd(fd: int, size: int, offset: int = 0) -> bytes:
    """Exactly the bytes of `fd` in [offset, offset + size), or fewer at its end."""
    chunks: list[bytes] = []
    while size > 0:
        chunk = _pread(fd, min(size, 1 << 20), offset)
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _pread(fd: int, size: int, offset: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, size, offset)
    os.lseek(fd, offset, os.SEEK_SET)  # pragma: no cover - Windows
    return os.read(fd, size)

"""Write files so a reader (or a crash) only ever sees the old or the new version."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable

# Paths are plain strings (or any path-like): pathlib costs the hook ~6 ms.
StrPath = str | os.PathLike[str]

TMP_PREFIX = ".vv-tmp-"


def write_atomic(path: StrPath, data: bytes, mode: int | None = None,
                 durable: bool = False,
                 still_wanted: Callable[[], bool] | None = None) -> bool:
    """Write `data` to a temp file beside `path`, then rename it over `path`.

    A reader, or a killed writer, only ever leaves the old or the new version.
    `durable` also fsyncs before the rename, so a power cut cannot leave an
    empty file: worth its milliseconds only for what cannot be rebuilt from the
    transcripts (a note holding the user's own section, the archive manifest).
    `mode` None means the user's umask decides (notes); state files pass 0o600.
    `still_wanted`, asked just before the rename, can call the write off (the
    file changed meanwhile); the result says whether the file was replaced.
    """
    # os.urandom, not `secrets`: that module costs the hook ~4 ms of imports.
    path = os.fspath(path)
    tmp = _write_temp(path, data, mode, durable)
    try:
        if still_wanted is not None and not still_wanted():
            os.unlink(tmp)
            return False
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return True


# What a file's path showed when it was read: device, inode, size, mtime (ns).
# A save by rename gives another inode; a save in place another size or mtime.
Stamp = tuple[int, int, int, int]


def stamp_of(stat_result: os.stat_result) -> Stamp:
    return stat_result.st_dev, stat_result.st_ino, stat_result.st_size, stat_result.st_mtime_ns


def path_stamp(path: StrPath) -> Stamp | None:
    """The stamp of what is at `path` now (a symlink itself, not its target),
    or None when nothing is."""
    try:
        return stamp_of(os.lstat(path))
    except FileNotFoundError:
        return None


def replace_seen(path: StrPath, data: bytes, seen: Stamp | None, *, mode: int | None = None,
                 durable: bool = False, exchange: bool = False,
                 wrote: list[Stamp] | None = None) -> tuple[bool, str | None]:
    """Write `data` in place of the file at `path`, only while the path still
    holds what was read (`seen`; None: nothing was there): never over bytes
    the caller has not seen. Returns (False, None) when the path changed
    meanwhile (nothing is written: read it again), (True, None) when replaced.

    The path is checked just before the rename; a save landing in the instant
    between the two would still be lost, so with `exchange` (Linux) the new
    file and the old swap names in one step and the old one is looked at
    after: when it is not what was read, it is left under a temp name beside
    the note, and that name is returned (True, name) for the caller to keep.
    A file that was not there is put in place only if it still is not (a link,
    which fails when something took the name meanwhile).

    `wrote`, when given, gets the stamp of the file written, taken from it
    before it was put in place (a rename keeps it): what the path shows for as
    long as nobody else writes there, and what it did not show if a save
    came right after the rename.
    """
    path = os.fspath(path)
    # (ctypes is loaded first: its import between the check and the swap was a
    # window of milliseconds for a save to fall into)
    swap = _renameat2() if exchange else None
    tmp = _write_temp(path, data, mode, durable, wrote)
    swapped = False  # from then on, `tmp` holds what was at `path`: never removed unseen
    try:
        if path_stamp(path) != seen:
            os.unlink(tmp)
            return False, None
        if seen is None:
            try:
                os.link(tmp, path)
            except FileExistsError:
                os.unlink(tmp)
                return False, None
            except OSError:  # no hard links here (some network or FAT drives)
                os.replace(tmp, path)
                return True, None
            os.unlink(tmp)
            return True, None
        if swap is not None and _exchange(swap, tmp, path):
            swapped = True
            old = path_stamp(tmp)
            if old == seen:
                os.unlink(tmp)
                return True, None
            return True, tmp  # someone's save, displaced: the caller keeps it
        os.replace(tmp, path)
    except BaseException:
        if not swapped:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    return True, None


def _write_temp(path: str, data: bytes, mode: int | None, durable: bool,
                stamp: list[Stamp] | None = None) -> str:
    head, name = os.path.split(path)
    tmp = os.path.join(head, f"{TMP_PREFIX}{name}.{os.getpid()}.{os.urandom(4).hex()}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(tmp, flags, 0o666 if mode is None else mode)
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if durable:
                os.fsync(fd)
            if stamp is not None:
                stamp.append(stamp_of(os.fstat(fd)))
        finally:
            os.close(fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


# [the libc function] once looked up, [None] when there is none
_RENAMEAT2: list[Callable[..., int] | None] = []


def _renameat2() -> Callable[..., int] | None:
    """Linux's renameat2, or None where there is none. ctypes costs ~3 ms to
    import: only writes that swap files (atomic.replace_seen) load it."""
    import sys

    if not _RENAMEAT2:
        try:
            if not sys.platform.startswith("linux"):
                raise ImportError
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            found = libc.renameat2
            found.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                              ctypes.c_uint]
            found.restype = ctypes.c_int
            _RENAMEAT2.append(found)
        except (OSError, AttributeError, ImportError):
            _RENAMEAT2.append(None)
    return _RENAMEAT2[0]


def _exchange(renameat2: Callable[..., int], a: str, b: str) -> bool:
    """Swap the files at `a` and `b` in one step (RENAME_EXCHANGE); False when
    the file system cannot (the caller renames instead)."""
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    import ctypes
    import errno

    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.EPERM):
        return False
    raise OSError(err, os.strerror(err), b)


def make_private_dir(path: StrPath) -> None:
    """Create a directory (and parents) readable by the user only."""
    os.makedirs(path, mode=0o700, exist_ok=True)


def sweep_temp_files(directory: StrPath, older_than_s: float = 60.0) -> int:
    """Remove temp files a killed writer left behind; returns how many."""
    import time

    removed = 0
    now = time.time()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        if entry.name.startswith(TMP_PREFIX):
            try:
                if now - entry.stat(follow_symlinks=False).st_mtime > older_than_s:
                    os.unlink(entry.path)
                    removed += 1
            except OSError:
                continue
    return removed

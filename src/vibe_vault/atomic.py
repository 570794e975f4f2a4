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
        finally:
            os.close(fd)
        if still_wanted is not None and not still_wanted():
            os.unlink(tmp)
            return False
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return True


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

"""Per-session locks with a timeout.

On POSIX this is `fcntl.flock` on a lock file in the state directory: the kernel
drops it when the holder dies, so a crashed `vv` never deadlocks anyone, and it
costs no imports. The holder removes the file as it lets go, so no lock file is
left per session; a process that locked a file removed meanwhile sees its inode
is no longer the path's and tries again. Elsewhere `filelock` (imported only
there) does the same. The transcript itself is never locked.
"""

from __future__ import annotations

import contextlib
import os
import time
from types import TracebackType

from vibe_vault.atomic import StrPath


class LockTimeout(Exception):
    """Another process holds the session; the next event will catch up."""


class SessionLock:
    def __init__(self, path: StrPath, timeout: float) -> None:
        self.path = os.fspath(path)
        self.timeout = timeout
        self._fd: int | None = None
        self._fallback: object | None = None

    def __enter__(self) -> SessionLock:
        try:
            import fcntl
        except ImportError:  # Windows
            import filelock

            lock = filelock.FileLock(self.path, timeout=self.timeout)
            try:
                lock.acquire()
            except filelock.Timeout as exc:
                raise LockTimeout(str(self.path)) from exc
            self._fallback = lock
            return self
        deadline = time.monotonic() + self.timeout
        delay = 0.002
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                if time.monotonic() >= deadline:
                    raise LockTimeout(str(self.path)) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
                continue
            if _same_file(fd, self.path):
                break
            os.close(fd)  # the holder before us removed it as it let go: lock the new one
        self._fd = fd
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._fd is not None:
            # Removed while still held, so whoever opened it meanwhile sees the
            # path gone and starts again on a new file.
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None
        if self._fallback is not None:
            self._fallback.release()  # type: ignore[attr-defined]
            self._fallback = None


def _same_file(fd: int, path: str) -> bool:
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    held = os.fstat(fd)
    return (st.st_ino, st.st_dev) == (held.st_ino, held.st_dev)

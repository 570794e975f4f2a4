"""Per-session locks with a timeout.

On POSIX this is `fcntl.flock` on a lock file in the state directory: the kernel
drops it when the holder dies, so a crashed `vv` never deadlocks anyone, and it
costs no imports. Elsewhere `filelock` (imported only there) does the same.
The transcript itself is never locked.
"""

from __future__ import annotations

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
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        deadline = time.monotonic() + self.timeout
        delay = 0.002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise LockTimeout(str(self.path)) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        self._fd = fd
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None
        if self._fallback is not None:
            self._fallback.release()  # type: ignore[attr-defined]
            self._fallback = None

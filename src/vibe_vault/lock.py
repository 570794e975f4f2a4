"""Per-session locks with a timeout.

On POSIX this is `fcntl.flock` on a lock file in the state directory: the kernel
drops it when the holder dies, so a crashed `vv` never deadlocks anyone, and it
costs no imports. Elsewhere `filelock` (imported only there) does the same. The
transcript itself is never locked.

Sessions share SLOTS lock files, chosen by a hash of the session id, created
once and never removed. A file per session, removed as its holder let go, made
every session a file created and deleted: ext4 will not reuse an inode deleted
in the last minute or more (longer while its block is unwritten), and looks
past each one at every later create, so a backfill's creates slowed with every
session done (10,000 sessions: 10.0-11.7 s, against 6.6-7.5 s without the
deletes). Two sessions sharing a slot only means one waits for the other.
"""

from __future__ import annotations

import os
import time
import zlib
from types import TracebackType

from vibe_vault import locations
from vibe_vault.atomic import StrPath

SLOTS = 256


def slot_path(state_dir: StrPath, sid: str, kind: str = "session") -> str:
    """The lock file that guards session `sid` (for `kind` of work)."""
    slot = zlib.crc32(sid.encode("utf-8", "surrogatepass")) % SLOTS
    return locations.lock_file(state_dir, f"{kind}-{slot:02x}")


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
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                         | getattr(os, "O_NONBLOCK", 0), 0o600)
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
            os.close(fd)  # removed meanwhile (someone cleaned the folder): lock the new one
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


def _same_file(fd: int, path: str) -> bool:
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    held = os.fstat(fd)
    return (st.st_ino, st.st_dev) == (held.st_ino, held.st_dev)


def sweep_session_lock_files(state_dir: StrPath) -> int:
    """Remove the lock files older versions kept per session (`<id>.lock`,
    `<id>.archive.lock`); how many. The slots and the named locks stay."""
    folder = locations.locks_dir(state_dir)
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    removed = 0
    for name in names:
        stem = name.removesuffix(".lock")
        kind, _, slot = stem.partition("-")
        if stem == name or stem in _NAMED or (kind in _KINDS and len(slot) == 2):
            continue
        try:
            os.unlink(os.path.join(folder, name))
            removed += 1
        except OSError:
            continue
    return removed


_KINDS = ("session", "archive")
_NAMED = ("index", "registry", "backfill", "shared-secrets")


class Running:
    """Says, for as long as it is held, that a `vv backfill` is at work: a
    shared lock on `<state>/locks/backfill.lock` (backfills may run side by
    side). `vv search` then answers from the index as it is rather than index,
    beside the backfill and against its transactions, the sessions the
    backfill is about to index itself."""

    def __init__(self, state_dir: StrPath) -> None:
        self.path = locations.lock_file(state_dir, "backfill")
        self._fd: int | None = None

    def __enter__(self) -> Running:
        try:
            import fcntl
        except ImportError:  # Windows: searches catch up as usual
            return self
        try:
            os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                         | getattr(os, "O_NONBLOCK", 0), 0o600)
        except OSError:
            return self
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
        except OSError:
            os.close(fd)
            return self
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def backfill_running(state_dir: StrPath) -> bool:
    """Whether a `vv backfill` holds `Running` now."""
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fd = os.open(locations.lock_file(state_dir, "backfill"),
                     os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False  # never made: no backfill ever ran
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # (and with it the lock just taken)
    return False

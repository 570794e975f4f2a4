"""The vault's key for line fingerprints (linediff): 32 random bytes in
`<state>/line-key`, mode 0600, made once by the first process that needs it
(made whole aside, then linked into place: a process racing it reads the one
that won). Kept apart from the states, so a state shown or copied alone does
not let anyone try lines against its fingerprints.
"""

from __future__ import annotations

import contextlib
import os
from functools import cache

from vibe_vault import locations
from vibe_vault.atomic import StrPath

KEY_BYTES = 32


@cache
def load(state_dir: StrPath) -> bytes:
    """The key (made when there is none); b"" when it can be neither read nor
    made (a read-only state: fingerprints are then made with the fixed key)."""
    from vibe_vault.regular import read_regular

    path = locations.line_key(state_dir)
    for _ in range(2):
        try:
            key = read_regular(path, 4 * KEY_BYTES, follow_symlinks=False)
        except FileNotFoundError:
            _make(path)
            continue
        except OSError:
            return b""
        return key if len(key) >= 16 else b""
    return b""


def _make(path: str) -> None:
    """Put a new key at `path` unless one is there already."""
    aside = f"{path}.{os.getpid()}.new"
    try:
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                     | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        return
    try:
        try:
            os.write(fd, os.urandom(KEY_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
        with contextlib.suppress(FileExistsError):
            os.link(aside, path)  # fails when another process's key is there
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            os.unlink(aside)

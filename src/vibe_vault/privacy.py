"""Sessions the user wants kept out of the vault: forgotten ones and excluded
projects.

A forgotten or excluded session leaves a tombstone, `<state>/forgotten/<id>`
(empty: the id is all it says), which every hook, backfill and archive run
checks first, so nothing of the session is written again.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable

from vibe_vault import locations
from vibe_vault.atomic import StrPath, make_private_dir


def is_forgotten(state_dir: StrPath, sid: str) -> bool:
    return os.path.lexists(locations.tombstone(state_dir, sid))


def forgotten(state_dir: StrPath) -> set[str]:
    """The tombstones' names (safe ids): one listing, for a pass over many sessions."""
    try:
        return set(os.listdir(locations.forgotten_dir(state_dir)))
    except OSError:
        return set()


def bury(state_dir: StrPath, sid: str) -> None:
    """Leave the tombstone of a session."""
    make_private_dir(locations.forgotten_dir(state_dir))
    path = locations.tombstone(state_dir, sid)
    if os.path.lexists(path):
        return  # (whatever it is, it stands for the tombstone: is_forgotten says so)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0), 0o600)
    except FileExistsError:
        return
    os.close(fd)


def excluded(patterns: Iterable[str], project: str, cwd: str) -> bool:
    """True when a glob of `exclude_projects` matches the project's name or the
    folder the session ran in (case-sensitively, as paths are)."""
    import fnmatch  # (only when the config names patterns: off every other hook's path)

    for pattern in patterns:
        if fnmatch.fnmatchcase(project, pattern) or (cwd and fnmatch.fnmatchcase(cwd, pattern)):
            return True
    return False


def remove_quietly(path: StrPath) -> bool:
    """Remove a file (never through a symlink's target); True when it was there."""
    with contextlib.suppress(FileNotFoundError, IsADirectoryError, NotADirectoryError):
        os.unlink(path)
        return True
    return False


def scrub_logs(state_dir: StrPath, sids: Iterable[str]) -> None:
    """The state directory's logs without a line naming one of `sids` (a
    forgotten session leaves no trace, its id in a log line included)."""
    from vibe_vault.atomic import write_atomic
    from vibe_vault.regular import read_regular

    needles = [s.encode("utf-8", "surrogateescape") for s in sids if s]
    for path in locations.logs(state_dir):
        try:
            data = read_regular(path, 64 << 20, follow_symlinks=False)
        except OSError:
            continue
        if not any(n in data for n in needles):
            continue
        kept = [line for line in data.splitlines(keepends=True)
                if not any(n in line for n in needles)]
        with contextlib.suppress(OSError):
            write_atomic(path, b"".join(kept), mode=0o600)

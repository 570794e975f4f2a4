"""What `vv backfill` remembers of each transcript folder it left with nothing
to do, so that the next run passes over the folder from its files' stats
alone: no row of the database read, no session looked at.

A folder's mark holds a digest of every .jsonl file under it (path, size,
time, inode, type) as the run planned from them, when the first of its
active sessions is due to be marked idle, and the stat of each vault folder
its notes are in, taken just before a listing showed every one of them
there. The next run skips the folder when the digest of the files as they
are now is the same, none of its sessions is due, and each of those note
folders stats as marked (a note deleted changes its folder's time); the
tombstones (`vv forget`) are part of every mark, and so is the number of its
files the registry knows (rows lost show). Anything else — a file
appended to (its size and time), added, removed or renamed, a subagent's
file anywhere below, a note gone, a session forgotten — and the folder is
planned session by session as before, then marked again. Claude Code appends
to a transcript without touching its folder, so the stat of each file is the
least a run can do to see every session that grew.

The marks live in the database (its `meta` table): a database made anew
(deleted, damaged) has none, and the first run looks at everything.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable

import msgspec
from msgspec import Struct, field

KEY = "backfill_marks"


class Mark(Struct, array_like=True):
    files: str  # digest of the folder's .jsonl files and their stats (files_digest)
    stamps: int  # files of it the registry knew (a row lost, as to a power cut, shows)
    sessions: int  # sessions the run counted in it
    forgotten: int  # of which forgotten (a tombstone)
    skipped: dict[str, int]  # files passed over, by reason
    idle_at: float | None  # epoch seconds: its first active session is due to go idle
    notes: list[tuple[str, int, int]]  # vault folders of its notes: (path, mtime_ns, inode)


class Marks(Struct):
    tombstones: str = ""  # digest of the tombstones' names when the marks were made
    folders: dict[str, Mark] = field(default_factory=dict)


_decode = msgspec.json.Decoder(Marks).decode


def load(conn: object) -> Marks:
    from vibe_vault import vaultdb

    text = vaultdb.meta(conn, KEY)  # type: ignore[arg-type]
    if not text:
        return Marks()
    try:
        return _decode(text)
    except (msgspec.DecodeError, ValueError):  # another version's: start again
        return Marks()


def save(conn: object, marks: Marks) -> None:
    from vibe_vault import vaultdb

    with vaultdb.transaction(conn):  # type: ignore[arg-type]
        vaultdb.set_meta(conn, KEY, msgspec.json.encode(marks).decode())  # type: ignore[arg-type]


def names_digest(names: Iterable[str]) -> str:
    import hashlib

    return hashlib.blake2b("\0".join(sorted(names)).encode("utf-8", "surrogateescape"),
                           digest_size=16).hexdigest()


def files_digest(stats: list[tuple[str, os.stat_result]]) -> str:
    """One string for the files as they are: it changes when any file's path,
    size, time, inode or type does, or a file comes or goes."""
    import hashlib

    paths = "\0".join([path for path, _ in stats]).encode("utf-8", "surrogateescape")
    numbers = msgspec.msgpack.encode([(st.st_size, st.st_mtime_ns, st.st_ino, st.st_mode)
                                      for _, st in stats])
    return hashlib.blake2b(paths + b"\1" + numbers, digest_size=16).hexdigest()


def stat_tree(folder: str) -> list[tuple[str, os.stat_result]] | None:
    """Every .jsonl file under a folder with its stat (a symlinked folder not
    followed); None when the folder is not one, or a folder in it will not
    list or a file not stat. In the order the folders list them, not sorted
    (half the time of a run that finds nothing to do went to sorting and
    walking with jsonl_entries): a folder's order stays as long as it does
    not change, and one that changes is planned anyway."""
    if not os.path.isdir(folder):
        return None
    out = []
    folders = [folder]
    try:
        while folders:
            with os.scandir(folders.pop()) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(entry.path)
                    elif entry.name.endswith(".jsonl"):
                        out.append((entry.path, entry.stat()))
    except OSError:
        return None
    return out


def _stamp(vault: str, folder: str) -> tuple[int, int] | None:
    try:
        st = os.stat(os.path.join(vault, *folder.split("/")))
    except OSError:
        return None
    return st.st_mtime_ns, st.st_ino


def notes_as_marked(vault: str, notes: list[tuple[str, int, int]]) -> bool:
    """Whether each notes folder of a mark stats as it did when marked."""
    return all(_stamp(vault, folder) == (mtime, ino) for folder, mtime, ino in notes)


# A folder's time younger than the clock tick that stamps it is not trusted:
# Linux stamps from its coarse clock (one jiffy, 10 ms at HZ=100, less above;
# 6.13+ stamps finely once a time is read), Windows from its 15.6 ms system
# tick. 40 ms is more than twice the coarsest, and what a backfill waits at
# its end at most (it was 100 ms: a tenth of a second on every run).
FRESH_NS = 40_000_000
COARSE_FRESH_NS = 2_000_000_000  # (a file system keeping whole milliseconds or seconds)


def check_notes(vault: str, expected: dict[str, set[str]]) -> dict[str, tuple[int, int]] | None:
    """The stat of each notes folder, taken before a listing found every
    expected note name in it; None when one is missing. A folder changed in
    the clock tick of its stat may not show it in its time: its stat is taken
    once that tick has passed, so any change after it shows."""
    stamps: dict[str, tuple[int, int]] = {}
    for _ in range(3):  # a folder still being written to: given up, not marked
        wait = 0
        for folder in expected:
            stamp = _stamp(vault, folder)
            if stamp is None:
                return None
            tick = COARSE_FRESH_NS if stamp[0] % 1_000_000 == 0 else FRESH_NS
            wait = max(wait, stamp[0] + tick - time.time_ns())
            stamps[folder] = stamp
        if wait <= 0:
            break
        time.sleep(wait / 1e9)
    else:
        return None
    for folder, names in expected.items():
        try:
            there = set(os.listdir(os.path.join(vault, *folder.split("/"))))
        except OSError:
            return None
        if not names <= there:
            return None
    return stamps

"""The session registry: one small record per session, in `<state>/registry.msgpack`.

It lets backfill skip unchanged sessions from a `stat` alone, and holds what the
indexes (project notes, home note, links between sessions) and `vv stats` need,
without opening any session's state. Written at SessionEnd and at the end of a
backfill, never on every Stop.
"""


import contextlib
import os
from collections.abc import Sequence

import msgspec
from msgspec import Struct, field

from vibe_vault.atomic import StrPath, make_private_dir, write_atomic
from vibe_vault.lock import SessionLock
from vibe_vault.paths import safe_id
from vibe_vault.regular import open_regular, read_fd, read_regular

REGISTRY_VERSION = 2


class FileStamp(Struct, array_like=True):
    path: str
    size: int
    mtime_ns: int
    inode: int


class Record(Struct, omit_defaults=True):
    session_id: str
    project: str = ""
    note: str = ""
    title: str = ""
    summary: str = ""
    cwd: str = ""  # where the session ran: to resume it from
    started: str = ""
    ended: str = ""
    status: str = "active"
    end_reason: str = ""
    duration_minutes: int = 0
    active_minutes: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    cost_usd: float = 0.0
    tokens_by_model: dict[str, list[int]] = field(default_factory=dict)
    cost_by_model: dict[str, float] = field(default_factory=dict)
    files_changed: list[str] = field(default_factory=list)
    tool_calls: int = 0
    prompts: int = 0
    open_tasks: list[str] = field(default_factory=list)
    files: list[FileStamp] = field(default_factory=list)
    first_parent: str = ""
    logical_parent: str = ""
    leaf_refs: list[str] = field(default_factory=list)
    tail_uuids: list[str] = field(default_factory=list)
    has_note: bool = False
    unknown: dict[str, int] = field(default_factory=dict)  # entry types by Claude Code version
    previous: str = ""  # the links last written into the note, so a link pass
    next: str = ""  # can tell what changed without loading every state
    continues: str = ""
    continued_by: list[str] = field(default_factory=list)


class Registry(Struct):
    version: int = REGISTRY_VERSION
    sessions: dict[str, Record] = field(default_factory=dict)
    agent_owners: dict[str, str] = field(default_factory=dict)  # legacy agent file -> session


_decoder = msgspec.msgpack.Decoder(Registry)
_encoder = msgspec.msgpack.Encoder()
_record_decoder = msgspec.msgpack.Decoder(Record)
_record_encoder = _encoder


def path_of(state_dir: StrPath) -> str:
    return os.path.join(state_dir, "registry.msgpack")


def load(state_dir: StrPath) -> Registry:
    """The registry, with the records SessionEnd staged since it was last written."""
    reg = _load_main(state_dir)
    for _, _, rec in staged(state_dir):
        reg.sessions[rec.session_id] = rec
    return reg


def _load_main(state_dir: StrPath) -> Registry:
    try:
        reg = _decoder.decode(read_regular(path_of(state_dir), 1 << 34, follow_symlinks=False))
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return Registry()
    return reg if reg.version == REGISTRY_VERSION else Registry()


def size_of(state_dir: StrPath) -> int:
    """Bytes of the registry file: what loading it costs, roughly."""
    try:
        return os.stat(path_of(state_dir)).st_size
    except OSError:
        return 0


def save(state_dir: StrPath, reg: Registry) -> None:
    write_atomic(path_of(state_dir), _encoder.encode(reg), mode=0o600)


def staged_dir(state_dir: StrPath) -> str:
    return os.path.join(state_dir, "registry.d")


def stage(state_dir: StrPath, record: Record) -> None:
    """Leave one session's record beside the registry, to be merged into it
    later: a file of its own, so SessionEnd costs the same whatever the
    registry's size, and takes no lock."""
    folder = staged_dir(state_dir)
    make_private_dir(folder)
    write_atomic(os.path.join(folder, f"{safe_id(record.session_id)}.msgpack"),
                 _record_encoder.encode(record), mode=0o600)


def staged(state_dir: StrPath) -> list[tuple[str, tuple[int, int, int], Record]]:
    """(path, stamp, record) of each staged record, oldest first."""
    out = []
    try:
        entries = list(os.scandir(staged_dir(state_dir)))
    except OSError:
        return []
    for entry in entries:
        if not entry.name.endswith(".msgpack"):
            continue
        try:
            fd, st = open_regular(entry.path, follow_symlinks=False)
            try:
                rec = _record_decoder.decode(read_fd(fd, st.st_size))
            finally:
                os.close(fd)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            continue
        out.append((entry.path, (st.st_ino, st.st_size, st.st_mtime_ns), rec))
    out.sort(key=lambda item: item[1][2])
    return out


def locked(state_dir: StrPath, timeout: float = 10.0) -> SessionLock:
    make_private_dir(state_dir)
    make_private_dir(os.path.join(state_dir, "locks"))
    return SessionLock(os.path.join(state_dir, "locks", "registry.lock"), timeout)


def merge(state_dir: StrPath, records: dict[str, Record],
          owners: dict[str, str] | None = None, only_known: bool = False,
          timeout: float = 10.0) -> Registry:
    """Write records (and legacy agent-file owners) into the registry on disk,
    under its lock, keeping what other processes wrote meanwhile, and fold in
    the staged records; the result. `only_known` updates sessions already there
    and adds none. Raises LockTimeout when the lock stays held past `timeout`."""
    with locked(state_dir, timeout):
        reg = _load_main(state_dir)
        folded = staged(state_dir)
        for _, _, rec in folded:
            reg.sessions[rec.session_id] = rec
        for sid, rec in records.items():
            if not only_known or sid in reg.sessions:
                reg.sessions[sid] = rec
        if owners:
            reg.agent_owners.update(owners)
        save(state_dir, reg)
        for path, st, _ in folded:
            # Only what was read: a record staged again meanwhile waits for next time.
            try:
                now = os.stat(path)
                if (now.st_ino, now.st_size, now.st_mtime_ns) == st:
                    os.unlink(path)
            except OSError:
                continue
    return reg


def remove(state_dir: StrPath, sids: set[str], timeout: float = 10.0) -> Registry:
    """Take sessions out of the registry (and their staged records); the result."""
    with locked(state_dir, timeout):
        reg = _load_main(state_dir)
        for path, _, rec in staged(state_dir):
            if rec.session_id in sids:
                with contextlib.suppress(OSError):
                    os.unlink(path)
            else:
                reg.sessions[rec.session_id] = rec
        for sid in sids:
            reg.sessions.pop(sid, None)
        reg.agent_owners = {k: v for k, v in reg.agent_owners.items() if v not in sids}
        save(state_dir, reg)
    return reg


def stamp(path: StrPath) -> FileStamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return FileStamp(path=os.fspath(path), size=st.st_size, mtime_ns=st.st_mtime_ns,
                     inode=st.st_ino)


def unchanged(rec: Record, stamps: Sequence[FileStamp | None]) -> bool:
    """True when every file of the session (as `stamp` sees it now) is as it was
    when the record was made."""
    if len(rec.files) != len(stamps):
        return False
    old = {f.path: f for f in rec.files}
    return all(now is not None and old.get(now.path) == now for now in stamps)

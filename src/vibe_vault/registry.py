"""The session registry: one row per session in the vault's database (vaultdb).

It lets backfill skip unchanged sessions from a `stat` alone (the transcript
files' stamps have a table of their own), and holds what the indexes (links
between sessions, project notes, the home note) and `vv stats` need without
opening any session's state: each session's record, with the columns those
indexes query (project, start, status, note, active minutes, cost) beside it.
Written row by row, at SessionEnd and by backfill; never on every Stop.

Like the rest of the database it is derived: a missing or unreadable database
is built again from the session states, and the registry file of earlier
versions (`registry.msgpack`) is taken in once.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeVar

import msgspec
from msgspec import Struct, field

from vibe_vault import locations, vaultdb
from vibe_vault.atomic import StrPath, make_private_dir, write_atomic
from vibe_vault.records import Record, Row, encode_record, row_of
from vibe_vault.regular import open_regular, read_fd, read_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vibe_vault.config import Config

REGISTRY_VERSION = 2
R = TypeVar("R")


class Registry(Struct):
    """Every record at once: for the commands that want them all (forget,
    reprocess, doctor), not for the paths that must stay flat."""

    version: int = REGISTRY_VERSION
    sessions: dict[str, Record] = field(default_factory=dict)
    agent_owners: dict[str, str] = field(default_factory=dict)  # legacy agent file -> session


_decoder = msgspec.msgpack.Decoder(Registry)
_record_decoder = msgspec.msgpack.Decoder(Record)


def legacy_path(state_dir: StrPath) -> str:
    """The registry file of versions before the database."""
    return locations.legacy_registry(state_dir)


# -- the database ---------------------------------------------------------------------


class NotReady(Exception):
    """The registry is still to be taken in or built (too long for a hook)."""


QUICK_FILL = 50  # states few enough to build the registry from inside a hook
QUICK_SUMS = 2000  # records few enough to make the per-project sums from inside a hook


def _quick_to_fill(state_dir: str) -> bool:
    if os.path.exists(legacy_path(state_dir)):
        return False
    try:
        with os.scandir(locations.sessions_dir(state_dir)) as entries:
            return sum(1 for _ in zip(entries, range(QUICK_FILL + 1), strict=False)) <= QUICK_FILL
    except OSError:
        return True


def connect(cfg: Config, timeout: float = 10.0, fill: bool = True) -> sqlite3.Connection:
    """The vault's database with the registry in it: on first use taken in
    from the old registry file, or built from the session states (when
    `fill` is False, only if that is quick; else NotReady)."""
    conn = vaultdb.connect(cfg.state_dir, timeout=timeout)
    try:
        if vaultdb.meta(conn, "registry") != "ready":
            if not fill and not _quick_to_fill(cfg.state_dir):
                raise NotReady
            _fill(cfg, conn)
        from vibe_vault import aggregates

        if (vaultdb.meta(conn, "aggregates") != "ready"
                or vaultdb.meta(conn, "aggregates_zone") != aggregates.zone_key()):
            # A database from before the per-project sums, or whose days are
            # another zone's: made again from its records.
            if not fill and count(conn) > QUICK_SUMS:
                raise NotReady
            with vaultdb.transaction(conn):
                aggregates.rebuild(conn)
        if vaultdb.meta(conn, "link_keys") != "ready":
            # A database from before the keys of the links' neighbours.
            if not fill and count(conn) > QUICK_SUMS:
                raise NotReady
            from vibe_vault import neighbours

            with vaultdb.transaction(conn):
                neighbours.rebuild(conn)
        _fold_staged(conn, cfg.state_dir)
    except BaseException:
        conn.close()
        raise
    return conn


@contextlib.contextmanager
def opened(cfg: Config, timeout: float = 10.0) -> Iterator[sqlite3.Connection]:
    conn = connect(cfg, timeout)
    try:
        yield conn
    finally:
        conn.close()


def _fill(cfg: Config, conn: sqlite3.Connection) -> None:
    legacy = legacy_path(cfg.state_dir)
    try:
        old = _decoder.decode(read_regular(legacy, 1 << 34, follow_symlinks=False))
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        old = None
    with vaultdb.transaction(conn):
        if old is not None and old.version == REGISTRY_VERSION:
            for rec in old.sessions.values():
                put(conn, rec)
            set_owners(conn, old.agent_owners)
        else:
            _from_states(cfg, conn)
            # every index note is owed: written again from the rebuilt rows
            vaultdb.set_meta(conn, "owed", "\n".join(
                row[0] for row in conn.execute(
                    "SELECT DISTINCT project FROM records WHERE has_note ORDER BY project")))
        vaultdb.set_meta(conn, "registry", "ready")
    if old is not None:
        with contextlib.suppress(OSError):
            os.replace(legacy, legacy + ".imported")


def _from_states(cfg: Config, conn: sqlite3.Connection) -> None:
    """Records for every saved state (a database lost or unreadable)."""
    folder = locations.sessions_dir(cfg.state_dir)
    try:
        names = sorted(n for n in os.listdir(folder) if locations.state_key(n) is not None)
    except OSError:
        return
    from vibe_vault.figures import options_for
    from vibe_vault.records import make_record
    from vibe_vault.state import read_saved

    opts = options_for(cfg)
    for name in names:
        key = str(locations.state_key(name))
        state, _ = read_saved(locations.saved_state(cfg.state_dir, key), key)
        if state is None:
            continue
        # subagent files are kept by their path beside the transcript
        beside = os.path.dirname(state.transcript)
        files = [str(state.transcript), *(os.path.join(beside, agent_name) for agent_name, agent
                                          in sorted(state.agents.items()) if not agent.foreign)]
        put(conn, make_record(state, files, opts))


_COLUMNS = ("session_id, project, started, ended, status, has_note, note, active_minutes, "
            "cost_usd, body")


def put(conn: sqlite3.Connection, rec: Record) -> None:
    """Write a session's record (in the caller's transaction), replacing its old one."""
    put_row(conn, row_of(rec))


def put_row(conn: sqlite3.Connection, row: Row) -> None:
    """`put`, of a record made into its rows already. Only what changed is
    written: a record whose columns and body are as stored is left alone, a
    changed one is updated in place (its rowid kept, so are the keys that find
    it as a neighbour, but those that changed), its share of the sums moved
    only when what they count changed, its files' stamps and unknown entry
    types rewritten only when they differ. (A backfill's link pass changes
    most records' links and nothing else: replacing each row whole was four
    index entries, a dozen key rows and the sums taken out and put back.)"""
    from vibe_vault import aggregates, neighbours

    sid = row.session_id
    columns = (row.project, row.started, row.ended, row.status, int(row.has_note), row.note,
               row.active_minutes, row.cost_usd)
    old = conn.execute(
        "SELECT rowid, body, project, started, ended, status, has_note, note, active_minutes, "
        "cost_usd FROM records WHERE session_id = ?", (sid,)).fetchone()
    if old is None:
        if row.has_note:
            aggregates.count(conn, row.body, 1)
        cur = conn.execute(f"INSERT INTO records({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)",
                           (sid, *columns, row.body))
        if cur.lastrowid is not None:
            neighbours.count(conn, cur.lastrowid, row.body, 1)
    elif old[1] != row.body or tuple(old[2:]) != columns:
        # The sums change by the session's change: its old record's share
        # out, the new one's in; so do the keys that find it as a neighbour.
        aggregates.change(conn, old[1], row.body)
        conn.execute("UPDATE records SET project = ?, started = ?, ended = ?, status = ?, "
                     "has_note = ?, note = ?, active_minutes = ?, cost_usd = ?, body = ? "
                     "WHERE rowid = ?", (*columns, row.body, old[0]))
        neighbours.change(conn, old[0], old[1], row.body)
    stamps = [(f.path, sid, f.size, f.mtime_ns, f.inode) for f in row.files]
    if old is None or sorted(conn.execute(
            "SELECT path, session_id, size, mtime_ns, inode FROM stamps WHERE session_id = ?",
            (sid,))) != sorted(stamps):
        conn.execute("DELETE FROM stamps WHERE session_id = ?", (sid,))
        conn.executemany("INSERT OR REPLACE INTO stamps(path, session_id, size, mtime_ns, inode) "
                         "VALUES (?, ?, ?, ?, ?)", stamps)
    unknown = [(sid, k, n) for k, n in row.unknown.items()]
    if old is None or sorted(conn.execute(
            "SELECT session_id, kind, n FROM unknown WHERE session_id = ?",
            (sid,))) != sorted(unknown):
        conn.execute("DELETE FROM unknown WHERE session_id = ?", (sid,))
        conn.executemany("INSERT INTO unknown(session_id, kind, n) VALUES (?, ?, ?)", unknown)


def delete(conn: sqlite3.Connection, sid: str) -> None:
    old = conn.execute("SELECT rowid, body FROM records WHERE session_id = ?",
                       (sid,)).fetchone()
    if old is not None:
        from vibe_vault import aggregates, neighbours

        aggregates.count(conn, old[1], -1)
        neighbours.count(conn, old[0], old[1], -1)
    for table in ("records", "stamps", "unknown"):
        conn.execute(f"DELETE FROM {table} WHERE session_id = ?", (sid,))
    conn.execute("DELETE FROM owners WHERE session_id = ?", (sid,))


def get(conn: sqlite3.Connection, sid: str) -> Record | None:
    row = conn.execute("SELECT body FROM records WHERE session_id = ?", (sid,)).fetchone()
    if row is None:
        return None
    try:
        return _record_decoder.decode(row[0])
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise sqlite3.DatabaseError(f"a record cannot be read: {exc}") from exc


def _fields_of(struct: type[Struct], name: str, keep: tuple[str, ...]) -> type[Struct]:
    """A Struct of some of another's fields, each with its type and default:
    a record encodes its fields left at their default by omitting them, so a
    reader of some fields must take their defaults from the record itself."""
    spec: list[tuple[str, object] | tuple[str, object, object]] = []
    for f in msgspec.structs.fields(struct):
        if f.name not in keep:
            continue
        if f.required:
            spec.append((f.name, f.type))
        elif f.default_factory is not msgspec.NODEFAULT:
            spec.append((f.name, f.type, field(default_factory=f.default_factory)))
        else:
            spec.append((f.name, f.type, f.default))
    return msgspec.defstruct(name, spec)


# The fields of a Record that reports read: decoded faster than a whole one.
Summary = _fields_of(Record, "Summary", (
    "session_id", "project", "note", "title", "started", "ended", "status",
    "duration_minutes", "active_minutes", "input_tokens", "output_tokens",
    "cache_read_tokens", "cache_creation_tokens", "cost_usd", "tokens_by_model",
    "cost_by_model", "files_changed", "tool_calls", "prompts"))


_summary_decoder: msgspec.msgpack.Decoder[Any] = msgspec.msgpack.Decoder(Summary)


def _decoded(conn: sqlite3.Connection, where: str, params: Sequence[object],
             decoder: msgspec.msgpack.Decoder[R]) -> Iterator[R]:
    for (body,) in conn.execute(f"SELECT body FROM records WHERE {where}", params):
        try:
            yield decoder.decode(body)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            # A damaged page SQLite did not notice (its bytes are a record's):
            # the database is damaged, and is rebuilt from the states.
            raise sqlite3.DatabaseError(f"a record cannot be read: {exc}") from exc


def records_where(conn: sqlite3.Connection, where: str = "1",
                  params: Sequence[object] = ()) -> Iterator[Record]:
    """Records one at a time (a cursor, not a list: memory stays flat)."""
    return _decoded(conn, where, params, _record_decoder)


def summaries_where(conn: sqlite3.Connection, where: str = "1",
                    params: Sequence[object] = ()) -> Iterator[Any]:
    """The same, with only what reports read."""
    return _decoded(conn, where, params, _summary_decoder)


def of_projects(conn: sqlite3.Connection, projects: Iterable[str]) -> dict[str, Record]:
    out: dict[str, Record] = {}
    for project in sorted(set(projects)):
        for rec in records_where(conn, "project = ? AND has_note", (project,)):
            out[rec.session_id] = rec
    return out


class _Named(Struct):
    """What of a record names other sessions' messages: the parents it
    continues from, the leaves of the summaries its file holds."""

    first_parent: str = ""
    logical_parent: str = ""
    summaries: dict[str, str] = field(default_factory=dict)


_named_decoder = msgspec.msgpack.Decoder(_Named)
_BLANK = Record(session_id="")


def link_records_of(conn: sqlite3.Connection, project: str,
                    tellers: dict[str, Record]) -> dict[str, Record]:
    """A project's records with a note as the link pass reads them
    (links.compute_links, index.apply_links): without what only notes and
    reports show (tokens, costs, files, tasks: the blank record's empty
    ones, shared, never to be changed or written back), and with only the
    tail uuids some session of the project or a teller names. A project of
    12,500 sessions read whole was 66 MB, most of a first backfill's peak."""
    where, params = "project = ? AND has_note", (project,)
    wanted: set[str] = set()
    for named in _decoded(conn, where, params, _named_decoder):
        wanted.update(ref for ref in (named.first_parent, named.logical_parent) if ref)
        wanted.update(named.summaries)
    for teller in tellers.values():
        wanted.update(teller.summaries)
    out: dict[str, Record] = {}
    for rec in records_where(conn, where, params):
        out[rec.session_id] = msgspec.structs.replace(
            rec, tail_uuids=[u for u in rec.tail_uuids if u in wanted], summary="", cwd="",
            tokens_by_model=_BLANK.tokens_by_model, cost_by_model=_BLANK.cost_by_model,
            files_changed=_BLANK.files_changed, open_tasks=_BLANK.open_tasks,
            files=_BLANK.files, leaf_refs=_BLANK.leaf_refs, unknown=_BLANK.unknown)
    return out


def tellers(conn: sqlite3.Connection, projects: Iterable[str]) -> dict[str, Record]:
    """Sessions without a note whose files sum up other sessions of these
    projects (Claude Code 1.0 writes a session's summary into the next file)."""
    out: dict[str, Record] = {}
    for project in sorted(set(projects)):
        for rec in records_where(conn, "project = ? AND NOT has_note", (project,)):
            if rec.summaries:
                out[rec.session_id] = rec
    return out


def count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM records").fetchone()[0])


def unknown_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Entry types this version does not know, summed over every session."""
    return dict(conn.execute("SELECT kind, sum(n) FROM unknown GROUP BY kind ORDER BY kind"))


def latest_of_project(conn: sqlite3.Connection, project: str, other_than: str) -> Record | None:
    return next(records_where(
        conn, "project = ? AND session_id != ? AND has_note "
        "ORDER BY started DESC, session_id DESC LIMIT 1", (project, other_than)), None)


def owners(conn: sqlite3.Connection) -> dict[str, str]:
    """Legacy agent files' sessions, by the file's key in the database
    (stored_paths.file_key: no path is kept); look one up so."""
    return dict(conn.execute("SELECT path, session_id FROM owners").fetchall())


def set_owners(conn: sqlite3.Connection, found: dict[str, str]) -> None:
    """Keep which session each legacy agent file is of, by the file's key
    (a path may hold a secret)."""
    from vibe_vault.stored_paths import file_key

    rows = sorted((file_key(path), sid) for path, sid in found.items())
    conn.executemany("INSERT OR REPLACE INTO owners(path, session_id) VALUES (?, ?)", rows)


def load(cfg: Config) -> Registry:
    """Every record, and the legacy agent files' owners."""
    with opened(cfg) as conn:
        reg = Registry(agent_owners=owners(conn))
        for rec in records_where(conn):
            reg.sessions[rec.session_id] = rec
    return reg


def merge(cfg: Config, records: dict[str, Record]) -> None:
    """Write records into the registry, in one transaction."""
    with opened(cfg) as conn, vaultdb.transaction(conn):
        for _, rec in sorted(records.items()):
            put(conn, rec)


def remove(cfg: Config, sids: set[str]) -> set[str]:
    """Take sessions out of the registry (and their staged records); their projects."""
    projects: set[str] = set()
    for path, _, rec in staged(cfg.state_dir):
        if rec.session_id in sids:
            with contextlib.suppress(OSError):
                os.unlink(path)
    with opened(cfg) as conn, vaultdb.transaction(conn):
        for sid in sorted(sids):
            row = conn.execute("SELECT project FROM records WHERE session_id = ?",
                               (sid,)).fetchone()
            if row:
                projects.add(row[0])
            delete(conn, sid)
    return projects


# -- SessionEnd's way in when the database is busy ---------------------------------------


def stage(state_dir: StrPath, record: Record) -> None:
    """Leave one session's record beside the database, to be taken in by the
    next process that opens it: a file of its own, so a SessionEnd that finds
    the database busy still keeps its record without waiting."""
    from vibe_vault.privacy import is_forgotten

    make_private_dir(locations.staged_dir(state_dir))
    path = locations.staged_file(state_dir, record.session_id)
    write_atomic(path, encode_record(record), mode=0o600)
    # A `vv forget` of the session that wrote its tombstone before this file
    # was there has already removed the session's files: this one goes too.
    # (One that writes it after removes this file itself.)
    if is_forgotten(state_dir, record.session_id):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def staged(state_dir: StrPath) -> list[tuple[str, tuple[int, int, int], Record]]:
    """(path, stamp, record) of each staged record, oldest first."""
    out = []
    try:
        entries = list(os.scandir(locations.staged_dir(state_dir)))
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


def _fold_staged(conn: sqlite3.Connection, state_dir: StrPath) -> None:
    folded = staged(state_dir)
    if not folded:
        return
    from vibe_vault.paths import safe_id
    from vibe_vault.privacy import forgotten

    buried = forgotten(state_dir)  # staged by a hook that raced `vv forget`
    with vaultdb.transaction(conn):
        for _, _, rec in folded:
            if safe_id(rec.session_id) not in buried:
                put(conn, rec)
        # their notes of the indexes are still to be written: `vv index` or backfill
        owed = set(owed_projects(conn)) | {rec.project for _, _, rec in folded}
        vaultdb.set_meta(conn, "owed", "\n".join(sorted(owed)))
    for path, st, _ in folded:
        # Only what was read: a record staged again meanwhile waits for next time.
        try:
            now = os.stat(path)
            if (now.st_ino, now.st_size, now.st_mtime_ns) == st:
                os.unlink(path)
        except OSError:
            continue


def owed_projects(conn: sqlite3.Connection) -> list[str]:
    """Projects whose index notes are owed (records taken in, notes not yet written)."""
    return [p for p in vaultdb.meta(conn, "owed").split("\n") if p]


def paid(conn: sqlite3.Connection, projects: Iterable[str]) -> None:
    left = set(owed_projects(conn)) - set(projects)
    with vaultdb.transaction(conn):
        vaultdb.set_meta(conn, "owed", "\n".join(sorted(left)))


# -- file stamps ----------------------------------------------------------------------------


_UNDER = "path = ? OR (path > ? AND path < ?) OR (path > ? AND path < ?)"


def _under(folder: str) -> tuple[str, ...]:
    from vibe_vault.stored_paths import folder_key

    folder = folder_key(folder.rstrip("/\\"))  # as the stamps keep it
    return (folder, folder + "/", folder + "0", folder + "\\", folder + "]")


def stamps_under(conn: sqlite3.Connection,
                 folder: str) -> dict[str, tuple[str, int, int, int]]:
    """The transcript files the registry knows in a folder (or the file itself):
    path -> (session, size, mtime, inode), from the index on paths."""
    return {row[0]: row[1:] for row in conn.execute(
        f"SELECT path, session_id, size, mtime_ns, inode FROM stamps WHERE {_UNDER}",
        _under(folder))}


def count_under(conn: sqlite3.Connection, folder: str) -> int:
    """How many transcript files the registry knows in a folder (the index on
    paths alone: no row read)."""
    return int(conn.execute(f"SELECT count(*) FROM stamps WHERE {_UNDER}",
                            _under(folder)).fetchone()[0])


def sessions_under(conn: sqlite3.Connection, folder: str) -> set[str]:
    """The sessions whose transcript files the registry knows in a folder."""
    return {row[0] for row in conn.execute(
        f"SELECT session_id FROM stamps WHERE {_UNDER}", _under(folder))}


def brief_under(conn: sqlite3.Connection,
                folder: str) -> dict[str, tuple[str, str, str, bool, str]]:
    """(project, status, ended, has_note, note) of the sessions whose files are
    in a folder, without their records."""
    return {row[0]: (row[1], row[2], row[3], bool(row[4]), row[5]) for row in conn.execute(
        # the covering index: no record's body (a page of its own, each) is read
        "SELECT session_id, project, status, ended, has_note, note FROM records "
        "INDEXED BY records_brief WHERE "
        f"session_id IN (SELECT session_id FROM stamps WHERE {_UNDER})", _under(folder))}



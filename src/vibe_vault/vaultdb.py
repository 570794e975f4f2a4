"""The vault's database (`<state>/vault.db`, SQLite): the session registry
(registry.py: what backfill, the indexes and `vv stats` read) and the search
index (this module: what `vv search`, `vv files`, `vv show` and `vv resume`
read).

It is derived data: every row comes from a session's saved state, so a
missing, corrupt or outdated database is deleted and built again from the
states, never repaired. The hooks that run on every turn (Stop, the tool
hooks) never open it; SessionEnd updates its own session's rows, backfill and
`vv search` catch up with every state that changed since it was indexed.

Text is kept in a contentless FTS5 table (only the inverted index, no second
copy of the words), so rows cannot be deleted from it: a session indexed again
gets a new row, the old one is left unreachable (no `sessions` row points to
it) and counted, and the whole index is rebuilt when the dead outnumber the
living. A session that leaves (forgotten, excluded) must leave no word behind:
its leaving deletes the database, and the next reader builds it again.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time

from vibe_vault import filestamp, locations
from vibe_vault.search_query import ASKED, COLUMNS, SAID, index_text
from vibe_vault.times import day_start, utc_iso_of_epoch

TYPE_CHECKING = False  # typing costs `vv search` 3 ms to import
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from vibe_vault.config import Config
    from vibe_vault.document import Document

SCHEMA_VERSION = 11
# The search index's own version: when it changes, only the search tables are
# dropped and built again from the states (the registry is kept).
# 4: a change's figures carry the note's mark (`changes.mark`), and a file
# changed in a worktree of the session's repository is kept under its path there.
# 5: a renamed file is found by its old path too (`changes.renamed_from`, `renamed_to`).
# 6: no per-row sizes (`columnsize=0`) and a ballast column: ranking a hit no
# longer looks its size up (see BALLAST); a session's `doc` tells when it
# started (see doc_number), so hits are ranked without reading `sessions`.
# 7: Claude Code's recaps are a part of their own (`recaps`), every one of
# them, not the latest among the answers.
# 8: subagents' instructions, descriptions, reports and conversations in a
# column of their own (a hit there says `subagent`, not `answer`), and the
# columns reordered so a command or a file says so before it says `action`.
# 10: what happened to a changed file, in the note's words (`changes.change`:
# "deleted by a command"…), for `vv files`.
# 11: a change's commit's own count (`commit_files`, `commit_added`,
# `commit_removed`), whether it holds only part of the session's lines
# (`partly`), and the earlier commits that hold the file too (`earlier`).
# 12: a long prompt's middle (a paste, mostly) in a column of its own
# (`pasted`, document.asked_and_pasted), ranked with paths and commands.
# 13: the states an older vv saved are found by an index of their own
# (`indexed_older`): every search counts them, and at 100,000 sessions a
# count over the whole `indexed` table took ~5 ms of a ~34 ms search.
# 14: a doc's lowest bits say how long the session's conversation is (see
# LENGTH_BITS): bm25 is divided by it, so a long session no longer outranks
# a short one that says the same words as often.
SEARCH_VERSION = "14"
# A scan of the state folder is skipped while the folder is as it was at the
# last one; a folder stamp younger than the file system's clock tick may not
# show a rename made in the same tick, so it is not trusted. Most file systems
# keep stamps to the jiffy; one that keeps whole seconds (or ms) gets more time.
FRESH_NS = 100_000_000
COARSE_FRESH_NS = 2_000_000_000
TRANSACTION_SECONDS = 0.12

# Sessions whose client recorded replies' output tokens before they ended (their
# totals are lower than what was produced), and about how many tokens more.
UNDER_RECORDED = """
CREATE TABLE IF NOT EXISTS agg_short(project TEXT NOT NULL, day TEXT NOT NULL,
    sessions INTEGER NOT NULL, unrecorded INTEGER NOT NULL, PRIMARY KEY(project, day))
    WITHOUT ROWID;
"""
# The per-project sums (aggregates.py): sessions, minutes, tokens and cost by
# project and day, by model, and the files changed.
AGGREGATES = """
CREATE TABLE agg_days(project TEXT NOT NULL, day TEXT NOT NULL, sessions INTEGER NOT NULL,
    minutes INTEGER NOT NULL, input INTEGER NOT NULL, output INTEGER NOT NULL,
    cache_read INTEGER NOT NULL, cache_creation INTEGER NOT NULL, cost INTEGER NOT NULL,
    PRIMARY KEY(project, day)) WITHOUT ROWID;
-- `unpriced`: sessions where the model answered and had no price
CREATE TABLE agg_models(project TEXT NOT NULL, day TEXT NOT NULL, model TEXT NOT NULL,
    sessions INTEGER NOT NULL, tokens INTEGER NOT NULL, cost INTEGER NOT NULL,
    unpriced INTEGER NOT NULL, PRIMARY KEY(project, day, model)) WITHOUT ROWID;
CREATE TABLE agg_files(project TEXT NOT NULL, day TEXT NOT NULL, path TEXT NOT NULL,
    sessions INTEGER NOT NULL, PRIMARY KEY(project, day, path)) WITHOUT ROWID;
""" + UNDER_RECORDED

# The keys that find a session's neighbours for its links (neighbours.py):
# 64-bit hashes of (project, message uuid or title) -> the record's rowid.
LINK_KEYS = """
CREATE TABLE link_tails(h INTEGER NOT NULL, rec INTEGER NOT NULL, PRIMARY KEY(h, rec))
    WITHOUT ROWID;
CREATE TABLE link_refs(h INTEGER NOT NULL, rec INTEGER NOT NULL, PRIMARY KEY(h, rec))
    WITHOUT ROWID;
CREATE TABLE link_told(h INTEGER NOT NULL, rec INTEGER NOT NULL, PRIMARY KEY(h, rec))
    WITHOUT ROWID;
CREATE TABLE link_titles(h INTEGER NOT NULL, rec INTEGER NOT NULL, PRIMARY KEY(h, rec))
    WITHOUT ROWID;
"""

# Versions taken up to this one in place (their rows kept): the tables each
# lacks, and what fills them is owed (the registry fills them from its records).
_MIGRATIONS = {
    7: (AGGREGATES + LINK_KEYS, ("aggregates", "link_keys")),  # the per-project sums, ...
    8: (LINK_KEYS + UNDER_RECORDED, ("link_keys", "aggregates")),  # the links' keys, ...
    9: (UNDER_RECORDED, ("aggregates",)),  # 9 -> 10: the under-recorded sessions' sums
    10: ("", ()),  # 10 -> 11: transcript files by key, not path (_rekey_files)
}

# The registry (registry.py): a record per session, and what finds them fast.
_REGISTRY = """
CREATE TABLE records(
    session_id TEXT PRIMARY KEY, project TEXT NOT NULL, started TEXT NOT NULL,
    ended TEXT NOT NULL, status TEXT NOT NULL, has_note INTEGER NOT NULL, note TEXT NOT NULL,
    active_minutes INTEGER NOT NULL, cost_usd REAL NOT NULL,
    body BLOB NOT NULL);  -- the whole Record, msgpack
-- covering the per-project sums of the home note: no record's body is read for them
CREATE INDEX records_by_project ON records(project, has_note, started, session_id,
    active_minutes, cost_usd);
CREATE INDEX records_by_start ON records(started);
-- covering what backfill checks of each session, so no record's body is read
CREATE INDEX records_brief ON records(session_id, project, status, ended, has_note, note);
-- the transcript files of each session as last read: backfill's "unchanged"
CREATE TABLE stamps(path TEXT PRIMARY KEY, session_id TEXT NOT NULL, size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX stamps_by_session ON stamps(session_id);
-- entry types this version does not know, by Claude Code version
CREATE TABLE unknown(session_id TEXT NOT NULL, kind TEXT NOT NULL, n INTEGER NOT NULL);
CREATE INDEX unknown_by_session ON unknown(session_id);
-- legacy subagent files (agent-*.jsonl beside the transcripts) and their session
CREATE TABLE owners(path TEXT PRIMARY KEY, session_id TEXT NOT NULL) WITHOUT ROWID;
-- per-project sums by day, model and file, kept up by each record's change
""" + AGGREGATES + LINK_KEYS + """
INSERT INTO meta(key, value) VALUES ('aggregates', 'ready'), ('link_keys', 'ready');
"""

# The search index: rebuilt from the states whenever a session leaves.
_SEARCH = f"""
CREATE TABLE sessions(
    doc INTEGER PRIMARY KEY,  -- rowid of its text in `search`: doc_number()
    session_id TEXT NOT NULL UNIQUE,
    project TEXT NOT NULL,  -- (its title is read from the note: the index stays small)
    folder INTEGER NOT NULL,  -- where it ran: `folders`
    started INTEGER NOT NULL, ended INTEGER NOT NULL,  -- seconds since 1970 (UTC), 0 unknown
    note TEXT NOT NULL, status TEXT NOT NULL);
-- the folders sessions ran in, each once (most sessions share a few)
CREATE TABLE folders(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
-- the state file each session was indexed from, as it was (also for sessions
-- with no note, so they are not looked at again until they change)
CREATE TABLE indexed(state TEXT PRIMARY KEY, stamp INTEGER NOT NULL, has_text INTEGER NOT NULL)
    WITHOUT ROWID;
-- (has_text 2: saved by an older vv, its text not indexed until backfill reads it)
CREATE INDEX indexed_older ON indexed(has_text) WHERE has_text = 2;
CREATE TABLE changes(
    doc INTEGER NOT NULL,  -- the session's, as in `sessions`
    path TEXT NOT NULL, added INTEGER NOT NULL, removed INTEGER NOT NULL,
    sha TEXT NOT NULL, subject TEXT NOT NULL, committed INTEGER NOT NULL,
    mark TEXT NOT NULL,  -- how the note tells added/removed: '' exact, '≈' estimated, '?' unknown
    -- a file renamed: the new path's row says where from, the old path's where to
    renamed_from TEXT NOT NULL DEFAULT '', renamed_to TEXT NOT NULL DEFAULT '',
    change TEXT NOT NULL DEFAULT '',  -- in the note's words: 'modified', 'deleted by a command'…
    -- the commit's own count as git printed it (files 0: none printed), partly 1
    -- when that count is less than the session's lines to the file, earlier
    -- the shas of commits before its last change that hold it too, space-separated
    -- (no semicolon in these comments: the schema is split on them)
    commit_files INTEGER NOT NULL DEFAULT 0, commit_added INTEGER NOT NULL DEFAULT 0,
    commit_removed INTEGER NOT NULL DEFAULT 0, partly INTEGER NOT NULL DEFAULT 0,
    earlier TEXT NOT NULL DEFAULT '');
CREATE INDEX changes_by_path ON changes(path);
-- each session's text by column (title, prompts, …), compressed: what a hit's
-- snippet is cut from (the index itself keeps no text)
CREATE TABLE texts(doc INTEGER PRIMARY KEY, body BLOB NOT NULL);
CREATE INDEX changes_by_doc ON changes(doc);
-- the docs of text rows whose words could not be given back (dead rows): no
-- session is given one of them again
CREATE TABLE dead_docs(doc INTEGER PRIMARY KEY);
-- Text comes in folded and split into tokens (search_query.index_text), as a
-- query is: the tokenizer only splits it at the spaces and punctuation left.
-- No sizes kept per row (columnsize=0): see BALLAST.
CREATE VIRTUAL TABLE search USING fts5({", ".join(COLUMNS)}, ballast, content='',
    columnsize=0, tokenize='unicode61 remove_diacritics 0');
-- Segments merged 8 at a time, not 4: a rebuild of 100,000 sessions took 6.1 s,
-- not 7.0, and queries measured the same.
INSERT INTO search(search, rank) VALUES ('automerge', 8);
INSERT OR REPLACE INTO meta(key, value) VALUES ('search_version', '{SEARCH_VERSION}');
"""
_SEARCH_TABLES = ("sessions", "folders", "indexed", "changes", "texts", "dead_docs", "search")

_SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
{_REGISTRY}
{_SEARCH}
PRAGMA user_version = {SCHEMA_VERSION};
"""


class Hit:
    """A session found."""

    __slots__ = ("cwd", "doc", "ended", "note", "project", "score", "session_id", "started",
                 "status")

    def __init__(self, session_id: str, project: str, cwd: str, started: str,
                 ended: str, note: str, status: str, score: float = 0.0, doc: int = 0) -> None:
        self.session_id = session_id
        self.project = project
        self.cwd = cwd
        self.started = started
        self.ended = ended
        self.note = note  # relative to the vault
        self.status = status
        self.score = score  # higher is better
        self.doc = doc  # its rowid in the index (texts_of)


class Change:
    """A file a session changed."""

    __slots__ = ("added", "change", "commit_added", "commit_files", "commit_removed",
                 "committed", "earlier", "mark", "partly", "path", "removed", "renamed_from",
                 "renamed_to", "session", "sha", "subject")

    def __init__(self, session: Hit, path: str, added: int, removed: int, sha: str,
                 subject: str, committed: bool, mark: str = "", renamed_from: str = "",
                 renamed_to: str = "", change: str = "", commit_files: int = 0,
                 commit_added: int = 0, commit_removed: int = 0, partly: bool = False,
                 earlier: str = "") -> None:
        self.session = session
        self.path = path
        self.added = added
        self.removed = removed
        self.sha = sha
        self.subject = subject
        self.committed = committed
        self.mark = mark  # as the note tells the figures: "" exact, "≈" estimated, "?" unknown
        self.renamed_from = renamed_from  # renamed from that path (this is the new one)
        self.renamed_to = renamed_to  # renamed to that path (this is the old one)
        self.change = change  # what happened to it, in the note's words
        # the commit's own count (files 0: git printed none); `partly`: that
        # count is less than the session's lines; `earlier`: shas, space-separated
        self.commit_files = commit_files
        self.commit_added = commit_added
        self.commit_removed = commit_removed
        self.partly = partly
        self.earlier = earlier


def path_of(state_dir: str) -> str:
    return locations.database(state_dir)


def _remove(path: str) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path + suffix)


def _wal(conn: sqlite3.Connection, timeout: float) -> None:
    """WAL mode for a new database. Switching waits on no busy handler: with
    another process making the same database at that moment it says "locked"
    at once (one of six processes meeting a missing database failed so), so
    it is tried again until the timeout."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.005)


def _open(path: str, timeout: float) -> sqlite3.Connection:
    if not os.path.lexists(path):
        # Made by us, for the user only, before SQLite opens it.
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW, 0o600))
    elif os.path.islink(path):
        raise sqlite3.DatabaseError("the database is a symlink")
    elif not os.path.isfile(path):  # a FIFO would hang SQLite's first read
        raise sqlite3.DatabaseError("the database is not a regular file")
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
    try:
        conn.execute("PRAGMA secure_delete = ON")  # a deleted row leaves no bytes behind
        # No fsync at each commit (WAL mode stays consistent; a power cut can
        # only lose the last commits): everything here is rebuilt from the
        # states when missing, and a backfill's commits waited ~50 ms each.
        conn.execute("PRAGMA synchronous = NORMAL")
        # Both read in one snapshot: read apart, another process's schema (its
        # tables and user_version are one transaction) could commit between
        # them, and version 0 beside its tables would read as a foreign
        # schema, the database deleted from under every process using it.
        conn.execute("BEGIN")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            empty = not conn.execute("SELECT 1 FROM sqlite_master").fetchone()
        finally:
            conn.execute("COMMIT")
        if version == 0 and empty:
            conn.execute("PRAGMA auto_vacuum = FULL")  # pages freed go back to the disk
            _wal(conn, timeout)
            try:
                conn.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} COMMIT;")
            except sqlite3.OperationalError as exc:
                # Another process made the database between our look and our
                # write: its schema stands. Deleting it (as for a broken file)
                # would pull it from under that process.
                if "already exists" not in str(exc):
                    raise
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                if version != SCHEMA_VERSION:
                    raise sqlite3.DatabaseError(f"schema {version}, not {SCHEMA_VERSION}") from exc
        elif version in _MIGRATIONS:
            _migrate(conn, version)
        elif version != SCHEMA_VERSION:
            raise sqlite3.DatabaseError(f"schema {version}, not {SCHEMA_VERSION}")
    except BaseException:
        conn.close()
        raise
    return conn


def _migrate(conn: sqlite3.Connection, version: int) -> None:
    """Take a database of an earlier schema up to this one, keeping its rows:
    the tables it lacks are made, and what fills them is owed (the registry
    sees `aggregates` not ready and fills them from its records)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        now = conn.execute("PRAGMA user_version").fetchone()[0]
        if now == version:  # (not done by another process meanwhile)
            tables, owed = _MIGRATIONS[version]
            for statement in tables.split(";"):
                if statement.strip():
                    conn.execute(statement)
            for name in owed:
                conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, 'owed')",
                             (name,))
            if version < 11:
                _rekey_files(conn)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        elif now != SCHEMA_VERSION:
            raise sqlite3.DatabaseError(f"schema {now}, not {SCHEMA_VERSION}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    empty_wal(conn)  # (its frames held the old pages, paths and all)


def _rekey_files(conn: sqlite3.Connection) -> None:
    """Schema 11 keeps each transcript file read by a key, not its path
    (stored_paths.file_key: a folder named after a working directory can hold
    a token no rule reads): the stamps, the legacy agent files' owners and
    each record's files are keyed again, and backfill's marks (keyed by
    folder) dropped, so its next run plans every folder once. A path kept in
    the gate's form (a name as a digest) gets a key no file has: that file is
    read again once, as unchanged."""
    import msgspec

    from vibe_vault.records import Record, encode_record
    from vibe_vault.stored_paths import file_key

    for table in ("stamps", "owners"):
        rows = conn.execute(f"SELECT path FROM {table}").fetchall()
        for (path,) in rows:
            conn.execute(f"UPDATE OR REPLACE {table} SET path = ? WHERE path = ?",
                         (file_key(path), path))
    decode = msgspec.msgpack.Decoder(Record).decode
    for sid, body in conn.execute("SELECT session_id, body FROM records").fetchall():
        try:
            rec = decode(body)
        except (msgspec.DecodeError, ValueError):
            continue  # (read as damaged where it is used, as before)
        if rec.files:
            for f in rec.files:
                f.path = file_key(f.path)
            conn.execute("UPDATE records SET body = ? WHERE session_id = ?",
                         (encode_record(rec), sid))
    conn.execute("DELETE FROM meta WHERE key = 'backfill_marks'")


def reader(state_dir: str, timeout: float = 10.0) -> sqlite3.Connection:
    """A read-only connection to the database as it is: for a forked worker
    that reads while the process that forked it writes. It never creates,
    migrates or deletes the database (`connect` does)."""
    from urllib.parse import quote

    uri = f"file:{quote(os.path.abspath(path_of(state_dir)))}?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)


def connect(state_dir: str, timeout: float = 5.0) -> sqlite3.Connection:
    """The database, created when missing; one that cannot be read (corrupt,
    another schema, not a database) is deleted and made anew, empty. A search
    index of another version is dropped (the next reader builds it again from
    the states), so no writer puts rows of this version into it."""
    conn = _connect(state_dir, timeout)
    try:
        if meta(conn, "search_version") != SEARCH_VERSION:
            reset_search(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _connect(state_dir: str, timeout: float) -> sqlite3.Connection:
    os.makedirs(state_dir, mode=0o700, exist_ok=True)
    path = path_of(state_dir)
    try:
        return _open(path, timeout)
    except sqlite3.DatabaseError as exc:
        if trouble(exc) != "damaged":
            raise  # busy, read-only, no permission: not the database's fault
        rebuilt(state_dir, exc)
    return _open(path, timeout)


def rebuilt(state_dir: str, exc: BaseException) -> None:
    """The database found damaged by `exc`: checked, deleted (the next
    connection builds it again from the states), and one line says so."""
    from vibe_vault import log

    verdict = heal(state_dir)
    what = " ".join(str(exc).split())[:120]
    # On stderr from a command; a hook only logs it.
    log.warn(state_dir, f"the database was damaged ({what}; quick_check: {verdict}); "
             "rebuilding it from the saved states", stderr=log.IN_COMMAND)


def trouble(exc: BaseException) -> str:
    """What an SQLite error says of the database: "busy" (another process
    writes it), "readonly" (the file or its folder cannot be written),
    "damaged" (corrupt pages or index, a table or column gone, not a
    database: rebuilt from the states), or "other"."""
    if not isinstance(exc, sqlite3.Error):
        return "other"
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return "busy"
    if "readonly" in text or "read-only" in text:
        return "readonly"
    if isinstance(exc, (sqlite3.IntegrityError, sqlite3.ProgrammingError,
                        sqlite3.InterfaceError, sqlite3.NotSupportedError)):
        return "other"
    if type(exc) is sqlite3.DatabaseError or any(word in text for word in _DAMAGE_WORDS):
        return "damaged"
    return "other"


_DAMAGE_WORDS = ("malformed", "corrupt", "not a database", "no such table", "no such column",
                 "schema", "fts5", "vtable", "disk image", "no such index", "has no column")


def heal(state_dir: str) -> str:
    """The database found damaged: what `PRAGMA quick_check` says of it (or
    why it could not run), and the database deleted, so the next connection
    builds it again from the states (as when it is missing)."""
    from urllib.parse import quote

    path = path_of(state_dir)
    verdict = "unreadable"
    if os.path.islink(path) or not os.path.isfile(path):
        _remove(path)  # (a FIFO would hang SQLite's first read)
        return "not a regular file"
    try:
        conn = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True,
                               timeout=2.0)
        try:
            rows = conn.execute("PRAGMA quick_check(5)").fetchall()
            verdict = "; ".join(str(r[0]) for r in rows) or "no answer"
        finally:
            conn.close()
    except sqlite3.Error as exc:
        verdict = str(exc)
    _remove(path)
    return verdict[:200]


def read_only(state_dir: str, timeout: float = 2.0) -> sqlite3.Connection:
    """The database opened read only, as it is: never made, mended or rebuilt
    (what `vv doctor` reads through). Raises sqlite3.Error when it cannot be
    opened so, or is not a regular file."""
    from urllib.parse import quote

    path = path_of(state_dir)
    if os.path.islink(path) or not os.path.isfile(path):
        raise sqlite3.DatabaseError("the database is not a regular file")
    return sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True,
                           timeout=timeout)


def health(state_dir: str) -> tuple[str, int, int, int]:
    """(quick_check's verdict, bytes on disk with its journal, sessions,
    dead text rows), read only; raises sqlite3.Error when it cannot be read."""
    path = path_of(state_dir)
    conn = read_only(state_dir)
    size = sum(os.path.getsize(path + s) for s in ("", "-wal") if os.path.exists(path + s))
    try:
        verdict = "; ".join(str(r[0]) for r in conn.execute("PRAGMA quick_check(5)"))
        sessions = int(conn.execute("SELECT count(*) FROM records").fetchone()[0])
        dead = int(meta(conn, "dead", "0"))
    finally:
        conn.close()
    return verdict, size, sessions, dead


def search_check(state_dir: str, timeout: float = 2.0) -> str:
    """What FTS5's own check says of the search index: "ok", or its error.
    quick_check reads only the b-trees, and a search block garbled inside a
    sound page passes it, while a query that reads the block can fail in any
    way, even as SQLite's out of memory (a length read from garbage). The
    check is written as an insert, so it runs in a write transaction that is
    rolled back: it changes nothing."""
    conn = sqlite3.connect(path_of(state_dir), timeout=timeout, isolation_level=None)
    try:
        conn.execute("BEGIN")
        try:
            conn.execute("INSERT INTO search(search) VALUES ('integrity-check')")
        except sqlite3.Error as exc:
            return str(exc) or type(exc).__name__
        except MemoryError:
            # (the check itself read a garbled length: the blocks are damaged,
            # what no sound index of a vault's size does)
            return "out of memory checking the search index"
        finally:
            conn.execute("ROLLBACK")
    finally:
        conn.close()
    return "ok"


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def meta(conn: sqlite3.Connection, key: str, default: str = "") -> str:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else default


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))


def reset_search(conn: sqlite3.Connection) -> None:
    """Drop the search index, words and all (deleted pages are zeroed), and
    make it anew, empty: the next reader fills it from the states."""
    with transaction(conn):
        for table in _SEARCH_TABLES:
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in _SEARCH.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute("DELETE FROM meta WHERE key IN ('states', 'dead', 'dead_counted')")


def _drop_session(conn: sqlite3.Connection, sid: str) -> dict[str, str] | None:
    """Take a session's rows out. Its words leave the search index too, given
    back to FTS5's `delete` as they were indexed (from the texts kept for
    snippets): a contentless index cannot find them itself. A session indexed
    before its texts were kept leaves its words behind, a dead row, counted."""
    row = conn.execute("SELECT doc FROM sessions WHERE session_id = ?", (sid,)).fetchone()
    if row is None:
        return None
    texts = _indexed_texts(conn, row[0])
    if texts is not None:
        conn.execute(_DELETE_TEXT, (row[0], *(index_text(texts.get(c, "")) for c in COLUMNS)))
    conn.execute("DELETE FROM sessions WHERE doc = ?", row)
    conn.execute("DELETE FROM changes WHERE doc = ?", row)
    conn.execute("DELETE FROM texts WHERE doc = ?", row)
    if texts is None:
        set_meta(conn, "dead", str(int(meta(conn, "dead", "0")) + 1))
        conn.execute("INSERT OR IGNORE INTO dead_docs(doc) VALUES (?)", row)
    return texts


# A doc number is the second the session started, shifted left by DOC_BITS,
# then ID_BITS bits from its id, then LENGTH_BITS saying how long the
# session is: ordered by doc, sessions are ordered by when they started (and
# by those bits within a second), so a search ranks its hits, newest first
# among equals, from the index alone. Joining every hit's `sessions` row for
# its start was a quarter of a query's time at 100,000 sessions (each a
# lookup), and most hits are not shown.
DOC_BITS = 20
LENGTH_BITS = 10
ID_BITS = DOC_BITS - LENGTH_BITS
LENGTH_MASK = (1 << LENGTH_BITS) - 1


def length_of(said: int) -> int:
    """A doc's length bits: 1 + the square root of the words the session
    said (see RANK), at most what LENGTH_BITS hold."""
    import math

    return min(LENGTH_MASK, 1 + math.isqrt(max(0, said)))


def doc_number(conn: sqlite3.Connection, session_id: str, started: int,
               said: int = 0) -> int:
    """The doc for a session: its start's, bits of its id and its length
    (`said`: the words of what was said, see RANK); another of the same
    second and length when those are taken (by a session or a dead row)."""
    import zlib

    base = (max(0, started) << DOC_BITS) | length_of(said)
    low = zlib.crc32(session_id.encode("utf-8", "surrogatepass")) & ((1 << ID_BITS) - 1)
    for step in range(1 << ID_BITS):
        doc = base | (((low + step) & ((1 << ID_BITS) - 1)) << LENGTH_BITS)
        if conn.execute("SELECT 1 FROM sessions WHERE doc = ? UNION ALL "
                        "SELECT 1 FROM dead_docs WHERE doc = ?", (doc, doc)).fetchone() is None:
            return doc
    raise sqlite3.OperationalError("no doc number left for that second")


# -- words that must leave the file, not just the index --------------------------------
#
# FTS5 deletes by writing a tombstone in a new segment: the old segment keeps
# the word's bytes until a merge takes both in, which may be never (and the
# WAL keeps copies of every page written). SQLite 3.42's 'secure-delete'
# option would remove it at once; older ones (3.40 here) need an 'optimize',
# which rewrites the whole index: 5 s for 10,000 sessions on a loaded
# machine, so it runs when a text lost a secret (a redaction more than when
# it was indexed: one learned late), in the background on large indexes.
PURGE_INLINE_SESSIONS = 1000
REDACTED = "[REDACTED"


def _lost_a_secret(old: dict[str, str], new: dict[str, str]) -> bool:
    return sum(t.count(REDACTED) for t in new.values()) > sum(
        t.count(REDACTED) for t in old.values())


def purge_owed(conn: sqlite3.Connection) -> bool:
    return meta(conn, "purge") == "1"


def purge(conn: sqlite3.Connection) -> None:
    """Merge the search index into one segment, so no word deleted from it is
    left in the file, and empty the WAL of the pages that held it."""
    with transaction(conn):
        if not purge_owed(conn):
            return
        conn.execute("INSERT INTO search(search) VALUES ('optimize')")
        conn.execute("DELETE FROM meta WHERE key = 'purge'")
    empty_wal(conn)


def empty_wal(conn: sqlite3.Connection) -> None:
    """Write the WAL into the database and cut it to nothing: its frames keep
    the old pages (deleted text too) until they are written over. Another
    reader in the middle of a read keeps it (busy): the next purge does it."""
    with contextlib.suppress(sqlite3.OperationalError):
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()


def purge_soon(conn: sqlite3.Connection, cfg: Config) -> None:
    """The purge a late-learned secret owes: now on a small index, else by a
    `vv index` in the background."""
    if not purge_owed(conn):
        return
    count = conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
    if count <= PURGE_INLINE_SESSIONS:
        purge(conn)
        return
    from vibe_vault.detach import run_detached

    run_detached(cfg, "index", "--quiet")


def _indexed_texts(conn: sqlite3.Connection, doc: int,
                   errors: str = "surrogatepass") -> dict[str, str] | None:
    """The texts a session's words were indexed from, by column; None when
    they are not kept whole (a row of an older version, or unreadable).
    `errors`: "replace" for a snippet, which may show a damaged text's rest."""
    import zlib

    row = conn.execute("SELECT body FROM texts WHERE doc = ?", (doc,)).fetchone()
    if row is None:
        return None
    try:
        data = zlib.decompress(row[0]).decode("utf-8", errors)
    except (zlib.error, TypeError, UnicodeDecodeError):
        return None
    out: dict[str, str] = {}
    for record in data.split(_RECORD) if data else ():
        column, _, text = record.partition(_UNIT)
        out[column] = text
    return out


# Ranking a hit (bm25) took most of a query's time looking up the row's size
# (its length in tokens, a statement run per row: 32 M instructions of a
# 100,000-session query's 220 M), so the index keeps none (`columnsize=0`).
# FTS5 then gives bm25 a length of -1 a column, and bm25's length term, 0.25
# + 0.75 * length / average length, stays near 0.25 (a session of the
# average length, not length-normalised) only when the average is far above
# the columns' count: each row carries BALLAST_TOKENS of a token no query can
# hold (a private-use character: a query's words are letters and digits) in a
# column of its own, weighing nothing. The columns' weights are scaled by
# 0.25 to match: a match weighs against bm25's k1 = 1.2 as it did in a
# session of average length.
BALLAST_TOKENS = 48
BALLAST = " ".join(["\ue000"] * BALLAST_TOKENS)
WEIGHTS = ", ".join([*(str(w * 0.25) for w in COLUMNS.values()), "0"])
# bm25 without the rows' sizes (above) does not weigh a session's length:
# a session of 7,000 words saying a query's words across its pasted logs
# ranked before the 300-word one that was about them. So a hit's bm25 is
# divided by the square root of the words said in its session (the title,
# prompts, commits, errors, todos, recaps and answers: search_query.SAID;
# tool output is not counted, its words weigh little), kept in the doc's
# lowest bits: no lookup a row, and no SQL function SQLite may lack. Measured
# by bench/search_quality.py (a real bm25, with every row's size, ranked no
# better and costs a lookup a hit).
RANK = f"bm25(search, {WEIGHTS}) / (search.rowid & {LENGTH_MASK})"
_INSERT_TEXT = (f"INSERT INTO search(rowid, {', '.join(COLUMNS)}, ballast) VALUES "
                f"(?{', ?' * len(COLUMNS)}, '{BALLAST}')")
_DELETE_TEXT = (f"INSERT INTO search(search, rowid, {', '.join(COLUMNS)}, ballast) VALUES "
                f"('delete', ?{', ?' * len(COLUMNS)}, '{BALLAST}')")


def put(conn: sqlite3.Connection, doc: Document, folders: dict[str, int] | None = None) -> None:
    """Index a session (in the caller's transaction), replacing what it had.
    `folders` remembers folder ids across the calls of one transaction."""
    old = _drop_session(conn, doc.session_id)
    if old is not None and _lost_a_secret(old, doc.texts):
        set_meta(conn, "purge", "1")
    folders = {} if folders is None else folders
    folder = folders.get(doc.cwd)
    if folder is None:
        conn.execute("INSERT OR IGNORE INTO folders(path) VALUES (?)", (doc.cwd,))
        folder = folders[doc.cwd] = conn.execute(
            "SELECT id FROM folders WHERE path = ?", (doc.cwd,)).fetchone()[0]
    indexed = {c: index_text(doc.texts.get(c, "")) for c in COLUMNS}
    number = doc_number(conn, doc.session_id, doc.started,
                        sum(len(indexed[c].split()) for c in SAID))
    conn.execute(
        "INSERT INTO sessions(doc, session_id, project, folder, started, ended, note, status)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (number, doc.session_id, doc.project, folder, doc.started, doc.ended, doc.note,
         doc.status))
    conn.execute(_INSERT_TEXT, (number, *(indexed[c] for c in COLUMNS)))
    conn.execute("INSERT INTO texts(doc, body) VALUES (?, ?)", (number, pack_texts(doc.texts)))
    if doc.files:
        conn.executemany(
            "INSERT INTO changes(doc, path, added, removed, sha, subject, committed, mark,"
            " renamed_from, renamed_to, change, commit_files, commit_added, commit_removed,"
            " partly, earlier) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(number, f.path, f.added, f.removed, f.commit, f.subject, int(f.committed),
              f.mark, f.renamed_from, f.renamed_to, f.change, f.commit_files, f.commit_added,
              f.commit_removed, int(f.partly), " ".join(f.earlier)) for f in doc.files])


_UNIT, _RECORD = "\x1f", "\x1e"


def pack_texts(texts: dict[str, str]) -> bytes:
    """A session's texts by column, compressed (to a third: zlib's fastest
    level, three times as fast as its default for a tenth more bytes)."""
    import zlib

    clean = str.maketrans(_UNIT + _RECORD, "  ")
    return zlib.compress(_RECORD.join(
        f"{column}{_UNIT}{texts[column].translate(clean)}" for column in COLUMNS
        if texts.get(column)).encode("utf-8", "surrogatepass"), 1)


def texts_of(conn: sqlite3.Connection, doc: int) -> dict[str, str]:
    """The texts a session was indexed with, by column ({} when none are kept)."""
    return _indexed_texts(conn, doc, errors="replace") or {}


def forget(state_dir: str) -> None:
    """Sessions were forgotten: drop the search index, words and all (it keeps
    no text it could delete theirs from); the next reader builds it again from
    the states that are left. The registry's rows go one by one (registry.remove)."""
    if not os.path.exists(path_of(state_dir)):
        return
    conn = connect(state_dir)
    try:
        reset_search(conn)
        empty_wal(conn)
    finally:
        conn.close()


def put_indexed(conn: sqlite3.Connection, key: str, stamp: int, sid: str,
                doc: Document | None, folders: dict[str, int] | None = None) -> None:
    """A session's search rows (or none, for a session without a note) and the
    stamp of the state file they were made from (in the caller's transaction)."""
    if doc is not None:
        put(conn, doc, folders)
    elif sid and sid != OLDER:
        _drop_session(conn, sid)
    conn.execute("INSERT OR REPLACE INTO indexed(state, stamp, has_text) VALUES (?, ?, ?)",
                 (key, stamp, 2 if sid == OLDER else int(doc is not None)))


# A state's key, its stamp (None: it went meanwhile), session id and text.
Indexed = tuple[str, "int | None", str, "Document | None"]


def _read_one(state_dir: str, key: str) -> Indexed:
    """What the index holds of one saved state."""
    from vibe_vault.document import document_of
    from vibe_vault.state import read_saved

    path = locations.saved_state(state_dir, key)
    state, st = read_saved(path, key)
    if st is None:
        return key, None, "", None
    if state is None and _older(path):
        return key, filestamp.of(st), OLDER, None
    doc = document_of(state) if state is not None else None
    return key, filestamp.of(st), state.session_id if state else "", doc


OLDER = "\0older"  # (_read_one's session id for a state an older vv saved)


def _older(path: str) -> bool:
    """Whether the state at `path` was saved by an older vv (a lower
    STATE_VERSION): its session is in no search row until it is read again."""
    from vibe_vault.state import STATE_VERSION, saved_version

    try:
        with open(path, "rb") as f:
            return 0 < saved_version(f.read()) < STATE_VERSION
    except OSError:
        return False


def older_states(conn: sqlite3.Connection) -> int:
    """States an older vv saved that the search index could not hold (their
    sessions are found again once `vv backfill` has read them)."""
    return int(conn.execute("SELECT count(*) FROM indexed WHERE has_text = 2").fetchone()[0])


def _read_chunk(state_dir: str, keys: list[str]) -> list[Indexed]:
    return [_read_one(state_dir, key) for key in keys]


PARALLEL_FROM = 2000  # states to index, past which they are read on every core
CHUNK = 256  # states a worker reads per job


def _read_all(state_dir: str, keys: list[str]) -> Iterator[Indexed]:
    """_read_one of each key, in the keys' order. Many are read by forked
    workers, one per core (reading a state and making its text is two thirds
    of indexing it; a rebuild of 100,000 sessions: ~7 s on one core); the
    rows still go in in the same order, so the index is the same either way."""
    cores = os.cpu_count() or 1
    if len(keys) >= PARALLEL_FROM and cores > 1:
        from vibe_vault import workers  # (only for many: a search's catch-up is a few)

        if workers.available():
            from vibe_vault.document import Document

            chunks = [keys[i : i + CHUNK] for i in range(0, len(keys), CHUNK)]
            for rows in workers.in_order(lambda chunk: _read_chunk(state_dir, chunk), chunks,
                                         cores, list[tuple[str, int | None, str, Document | None]]):
                yield from rows
            return
    yield from (_read_one(state_dir, key) for key in keys)


class Left(Exception):
    """Sessions in the index have no state any more: the index must be built
    again without their words."""


def catch_up(conn: sqlite3.Connection, state_dir: str, force: bool = False) -> int:
    """Index every session whose state changed since it was indexed; how many
    were looked at. One `stat` when nothing changed. Raises Left when a
    session with text in the index is gone."""
    folder = locations.sessions_dir(state_dir)
    try:
        st = os.stat(folder)
    except OSError:
        st = None
    mark = f"{st.st_mtime_ns}:{st.st_ino}" if st is not None else "none"
    if not force and meta(conn, "states") == mark:
        return 0
    seen: dict[str, int] = {}
    if st is not None:
        stamp_of = filestamp.of
        # (locations.state_key's test, inline: a call per file would cost this scan)
        suffix, cut = locations.STATE_SUFFIX, -len(locations.STATE_SUFFIX)
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if name.endswith(suffix):
                    # try/except, not a suppress() per file: that was a fifth
                    # of this scan (100,000 states: 0.50-0.60 -> 0.44 s).
                    try:
                        seen[name[:cut]] = stamp_of(entry.stat(follow_symlinks=False))
                    except OSError:
                        continue
    known = dict(conn.execute("SELECT state, stamp FROM indexed").fetchall())
    changed = sorted(k for k, stamp in seen.items() if known.get(k) != stamp)
    gone = [k for k in known if k not in seen]
    looked = 0
    with transaction(conn):
        for key in gone:
            row = conn.execute("SELECT has_text FROM indexed WHERE state = ?", (key,)).fetchone()
            if row and row[0] == 1:
                raise Left(key)
            conn.execute("DELETE FROM indexed WHERE state = ?", (key,))
    rows = _read_all(state_dir, changed)
    folders: dict[str, int] = {}
    more = True
    while more:
        # As many sessions to a transaction as fit in TRANSACTION_SECONDS: few
        # large FTS segments (less merging) while a SessionEnd hook, which
        # waits 0.2 s for the database, still gets in between.
        more = False
        with transaction(conn):
            began = time.monotonic()
            for key, stamp, sid, doc in rows:
                if stamp is not None:
                    put_indexed(conn, key, stamp, sid, doc, folders)
                    looked += 1
                if time.monotonic() - began >= TRANSACTION_SECONDS:
                    more = True
                    break
    tick = COARSE_FRESH_NS if st is not None and st.st_mtime_ns % 1_000_000 == 0 else FRESH_NS
    trusted = st is not None and time.time_ns() - st.st_mtime_ns > tick
    with transaction(conn):
        set_meta(conn, "states", mark if trusted else "")
    return looked + len(gone)


def needs_rebuild(conn: sqlite3.Connection) -> bool:
    """Unreachable text rows outnumber the sessions (and are many). The
    sessions are counted once for each number of dead rows, not at every
    search: counting 100,000 took 13 ms, a third of a search, and an index
    of an older version can keep thousands of dead rows for good."""
    dead = meta(conn, "dead", "0")
    if int(dead) <= 1000 or meta(conn, "dead_counted") == dead:
        return False
    live = int(conn.execute("SELECT count(*) FROM sessions").fetchone()[0])
    if int(dead) > live:
        return True
    with transaction(conn):
        set_meta(conn, "dead_counted", dead)
    return False


def ready(state_dir: str, reindex: bool = False, caught_up: bool = True) -> sqlite3.Connection:
    """The database, its search index caught up with the states: built from
    scratch when asked, when missing or unreadable, or when most of its text
    rows are dead. `caught_up=False` takes the index as it is (a backfill at
    work is indexing the states itself)."""
    conn = connect(state_dir)
    if not caught_up and not reindex:
        return conn
    if reindex:
        reset_search(conn)
    try:
        if needs_rebuild(conn):
            reset_search(conn)
        try:
            catch_up(conn, state_dir)
        except Left:
            reset_search(conn)
            catch_up(conn, state_dir)
    except sqlite3.DatabaseError as exc:
        conn.close()
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            raise
        if trouble(exc) != "damaged":
            raise
        # corrupt beyond what opening it showed: start again
        rebuilt(state_dir, exc)
        conn = connect(state_dir)
        catch_up(conn, state_dir)
    return conn


_HIT = "s.session_id, s.project, f.path, s.started, s.ended, s.note, s.status, s.doc"
_FOLDER = " JOIN folders f ON f.id = s.folder"


def since_seconds(day: str) -> int:
    """The start of a day (YYYY-MM-DD, where the user is) in seconds since 1970."""
    return int(day_start(day).timestamp())


def _hit(row: Any, score: float = 0.0) -> Hit:
    return Hit(row[0], row[1], row[2], utc_iso_of_epoch(row[3]), utc_iso_of_epoch(row[4]),
               row[5], row[6], score, row[7])


def search(conn: sqlite3.Connection, fts: str, project: str = "", since: str = "",
           limit: int = 10, phrase: str = "", tiers: list[str] | None = None,
           left_out: str = "", as_typed: str = "", near: list[str] | None = None,
           exact: tuple[str, list[str], list[str]] | None = None) -> list[Hit]:
    """Sessions matching an FTS5 expression, best first: by bm25 (with the
    columns' weights, for the session's length: RANK), those holding
    `phrase` first, the newest first among equals. Given `tiers`
    (search_query.Query.tiers: the query's sessions holding every word in
    the title or prompts, in what was said, anywhere; each matching those
    the one before matches), `phrase` as the query's `together` and `near`
    as its `near` (every word within a few tokens of the others in one
    column of each tier's), the hits come in stages: those of the first two
    tiers that hold the words side by side, then those holding them close
    together, then each tier's others (in the last, those holding them close
    first), each stage by bm25 of its own expression (a NEAR's counts only
    the words it finds close together). So the words said together in a
    short prompt beat the same words scattered through long ones, however
    often those say them. A stage is asked only when those before it hold
    fewer sessions than `limit`: then every one of them is among the hits,
    and a later stage skips them. `left_out`: sessions it matches are left
    out of every stage.

    A hit's score says its place: its stage's band (odd, from 2 × stages - 1
    for the first down to 1 for the last; one more for a hit its stage puts
    first; 2 for a hit holding `phrase` and 1 for the rest without tiers),
    and bm25 (b) as b / (1 + b) for the rest, so the scores of the hits, in
    their order, never increase (bm25 alone weighs the forms of a
    word each by its own rarity, and the stages' order is not its).

    Ranked from the index alone (a doc tells when its session started:
    doc_number), then only the sessions shown are read; a project's are
    picked by their rows, and so are all when the best hold a dead row.

    `exact`: the `together`, `tiers` and `near` of the query without its
    related words (search_query.Query.exact): each stage is asked of those
    first, so a word's related words (`folder` for `subfolder`) find a
    session below those holding the word as typed, in any of its forms,
    in the same place."""
    if not tiers:
        return _searched(conn, fts, project, since, limit, phrase, 1, left_out)
    stages = _stages(phrase, tiers, near, as_typed)
    if exact is not None:
        own = _stages(exact[0], exact[1], exact[2], as_typed)
        if len(own) == len(stages):  # (always: the same words, fewer forms)
            stages = [stage for pair in zip(own, stages, strict=True) for stage in pair]
    out: list[Hit] = []
    for rank, (expr, first) in enumerate(stages):
        found = {hit.doc for hit in out}
        out += [hit for hit in _searched(conn, expr, project, since, limit, first,
                                         2 * (len(stages) - rank) - 1, left_out)
                if hit.doc not in found][:limit - len(out)]
        if len(out) >= limit:
            break
    return out


def _stages(phrase: str, tiers: list[str], near: list[str] | None,
            as_typed: str) -> list[tuple[str, str]]:
    """search's stages: each an expression, and what puts a hit first in it
    (an FTS5 expression its sessions match, or ASKED_FIRST)."""
    close = near if near is not None else ["" for _ in tiers]
    return [*((f"({tier}) AND ({phrase})", as_typed) for tier in tiers[:2] if phrase),
            *([(close[1], ASKED_FIRST)] if close[1] else []),
            *((tier, "") for tier in tiers[:2]), (tiers[2], close[2])]


# A stage's `first` that puts first the hits whose matches (the instances
# its expression finds: of a NEAR, only those close together) include one in
# the title or a prompt: bm25 weighing only those columns is then below 0
# (FTS5 counts a word's rarity as at least 1e-6, never 0). The words close
# together in what was said are so asked once, not once for the title and
# prompts and again for the rest (each NEAR of a few words in up to 32 choices
# of forms took ~3 ms at 10,000 sessions).
ASKED_FIRST = "\x00asked"
_ASKED_WEIGHTS = ", ".join([*(str(w * 0.25) if c in ASKED else "0" for c, w in COLUMNS.items()),
                            "0"])


def _searched(conn: sqlite3.Connection, fts: str, project: str, since: str, limit: int,
              phrase: str, base: int, left_out: str = "") -> list[Hit]:
    ranked = _ranked(conn, fts, project, since, limit, phrase, bool(project), left_out)
    hits = _hits_of(conn, [doc for doc, _, _ in ranked])
    if len(hits) < len(ranked):  # a dead row (no session) among them
        ranked = _ranked(conn, fts, project, since, limit, phrase, True, left_out)
        hits = _hits_of(conn, [doc for doc, _, _ in ranked])
    return [_hit(hits[doc], score_of(base + together, -score))
            for doc, score, together in ranked if doc in hits]


def score_of(band: int, relevance: float) -> float:
    """A hit's score: its band (what it holds where), and a relevance of 0 or
    more (bm25's, or the closest matches' weight) as a fraction below 1. Kept
    to 4 decimals (rounding keeps the order: it never turns a higher score
    lower)."""
    relevance = max(relevance, 0.0)
    return round(band + relevance / (1.0 + relevance), 4)


def _ranked(conn: sqlite3.Connection, fts: str, project: str, since: str, limit: int,
            phrase: str, join: bool, left_out: str = "") -> list[tuple[int, float, int]]:
    """(doc, bm25, 1 when it holds `phrase` else 0) of the best `limit` hits;
    `join`: only docs with a session. `phrase` ASKED_FIRST: 1 for a hit whose
    matches include one in the title or a prompt."""
    together = "0"
    params: list[Any] = []
    if phrase == ASKED_FIRST:
        together = f"bm25(search, {_ASKED_WEIGHTS}) < 0"
    elif phrase:
        together = "search.rowid IN (SELECT rowid FROM search WHERE search MATCH ?)"
        params.append(phrase)
    sql = f"SELECT search.rowid, {RANK} AS score, {together} AS together" \
          " FROM search"
    where = " WHERE search MATCH ?"
    params.append(fts)
    if join:
        sql += " JOIN sessions s ON s.doc = search.rowid"
    if project:
        where += " AND s.project = ? COLLATE NOCASE"
        params.append(project)
    if since:  # (a doc is its start's second, shifted)
        where += " AND search.rowid >= ?"
        params.append(since_seconds(since) << DOC_BITS)
    if left_out:
        where += " AND search.rowid NOT IN (SELECT rowid FROM search WHERE search MATCH ?)"
        params.append(left_out)
    order = " ORDER BY together DESC, score, search.rowid DESC LIMIT ?"  # (deterministic)
    return [(int(doc), float(score), int(held)) for doc, score, held in
            conn.execute(sql + where + order, [*params, limit])]


def _hits_of(conn: sqlite3.Connection, docs: list[int]) -> dict[int, Any]:
    """The `sessions` rows (_HIT) of some docs, by doc."""
    if not docs:
        return {}
    return {row[7]: row for row in conn.execute(
        f"SELECT {_HIT} FROM sessions s{_FOLDER} WHERE s.doc IN ({', '.join('?' * len(docs))})",
        docs)}


def closest(conn: sqlite3.Connection, parts: tuple[str, ...], unwanted: tuple[str, ...] = (),
            project: str = "", since: str = "", limit: int = 10,
            exact: dict[str, str] | None = None) -> list[tuple[Hit, tuple[str, ...]]]:
    """When fewer sessions than asked for hold every wanted part: the sessions
    holding most of them (at least half), each with the parts it holds (in
    the query's order). People
    type a sentence ("agent name shows Agent instead of Claude Code") whose
    every word no one session has; the one they mean holds most of its rarer
    words. So the parts a session holds are weighed by how rare each is (its
    idf, as bm25 weighs it: log(sessions / sessions holding it)), the heaviest
    first, then the most parts, then bm25: "where did we add the codeowners
    for the maintainers group" finds the session that says codeowners and
    maintainers before those saying where, did, we, the and for.

    The candidates are those holding a rarer part (one in at most `_RARE`
    sessions), ranked by bm25 of those parts: a part in most sessions (`the`,
    `fix` at 100,000 sessions) tells sessions apart by nothing, and ranking
    everything holding it cost 0.66 s there. Common parts are counted for the
    few shown only. A query of common words only has no closest sessions.

    `exact`: a part's expression without its related words (`subfolder`
    without folder: search_query.Query.exact), by part; a session holding
    a part only in a related word counts it at half its weight, so it comes
    below one holding the word itself."""
    import math

    held_by = {part: holding(conn, part, _RARE + 1) for part in parts}
    rare = [part for part in parts if held_by[part] <= _RARE]
    if not rare:
        return []
    total = max(_indexed_rows(conn), *held_by.values())
    weight = {part: math.log((total + 1) / max(1, n)) for part, n in held_by.items()}
    expr = " OR ".join(rare)
    for phrase in unwanted:
        expr = f"({expr}) NOT {phrase}"
    narrow, params = _narrowed(project, since)
    rows = conn.execute(
        f"SELECT {_HIT}, bm25(search, {WEIGHTS}) AS score FROM search "
        f"JOIN sessions s ON s.doc = search.rowid{_FOLDER} WHERE search MATCH ?"
        + narrow + " ORDER BY score LIMIT ?", [expr, *params, _POOL]).fetchall()
    if not rows:
        return []
    held = {row[7]: 0 for row in rows}
    holds: dict[int, set[str]] = {row[7]: set() for row in rows}
    weighed = {row[7]: 0.0 for row in rows}

    def count_held(docs: list[int], of: list[str]) -> None:
        marks = ", ".join("?" * len(docs))
        for part in of:  # (in the query's order: the same sums for the same parts)
            sql = f"SELECT rowid FROM search WHERE search MATCH ? AND rowid IN ({marks})"
            own = ({doc for (doc,) in conn.execute(sql, [exact[part], *docs])}
                   if exact and part in exact else None)
            for (doc,) in conn.execute(sql, [part, *docs]):
                held[doc] += 1
                holds[doc].add(part)
                weighed[doc] += weight[part] if own is None or doc in own else weight[part] / 2

    def order(row: Any) -> tuple[Any, ...]:
        doc = row[7]
        return (-round(weighed[doc], 9), -held[doc], row[8], -(row[3] or 0), row[0])

    count_held([row[7] for row in rows], rare)
    rows = sorted(rows, key=order)[:3 * limit]
    common = [part for part in parts if part not in rare]
    if common:
        count_held([row[7] for row in rows], common)
    least = max(1, (len(parts) + 1) // 2)
    ranked = sorted((row for row in rows if held[row[7]] >= least), key=order)
    # (below every hit holding all the words: search's bands start at 2)
    return [(_hit(row, score_of(0, weighed[row[7]])),
             tuple(part for part in parts if part in holds[row[7]])) for row in ranked[:limit]]


def forms_of(conn: sqlite3.Connection, word: str) -> list[str]:
    """The forms of a word (stem.forms: those of its stem), and of its other
    spelling (stem.spellings: color, colour), that some session holds, the
    word first: `improve` finds improved, improvement, improvements,
    improver, improving. Each is asked of the index (a lookup
    that stops at its first session: ~17 us at 10,000 sessions), so the
    query holds no word no session has (bm25 walks each of its phrases for
    every hit)."""
    from vibe_vault.stem import forms, spellings

    candidates = forms(word)
    for other in spellings(word):  # color: colour, colours, coloured
        candidates += [form for form in forms(other) if form not in candidates]
    sql = "SELECT 1 FROM search WHERE search MATCH ? LIMIT 1"
    return [word, *(form for form in candidates[1:]
                    if conn.execute(sql, (f'"{form}"',)).fetchone() is not None)]


def related_of(conn: sqlite3.Connection, word: str, forms: list[str]) -> list[str]:
    """The words (or phrases of two) some session holds that a word also
    finds besides its forms (`forms`, as forms_of gives them), in related.py's
    sense, with their own forms: the word its prefix is put on (`subfolder`:
    folder, folders; and `sub folder`), the words a prefix makes of it or of
    its forms (`agent`: subagent, subagents), and the other words for the
    same thing (`folder`: directory, dir; `subfolder`: subdirectory). Each is
    one lookup that stops at its first session."""
    from vibe_vault.related import made_from, root_of, same_as

    sql = "SELECT 1 FROM search WHERE search MATCH ? LIMIT 1"
    seen = set(forms)
    out: list[str] = []

    def held(text: str) -> bool:
        return conn.execute(sql, (f'"{text}"',)).fetchone() is not None

    def add(text: str) -> None:
        if text not in seen:
            seen.add(text)
            if held(text):
                out.append(text)

    # The words it is made from or means the same as; a prefix is put on the
    # word and on those meaning the same, not on the word a compound is made
    # from (`subfolder` finds folder, not multifolder).
    bases = same_as(word)
    made = root_of(word)
    if made is not None and not any(held(form) for form in forms_of(conn, made[1])):
        made = None  # (no word of its own left: `repository` is no re-pository)
    if made is not None:
        prefix, rest = made
        bases += [rest, *(prefix + other for other in same_as(rest)), *same_as(rest)]
        add(f"{prefix} {rest}")
    compounded = list(forms)
    for base in dict.fromkeys(bases):
        if base not in seen:
            found = [f for f in forms_of(conn, base) if f not in seen]
            if found and found[0] == base and not held(base):
                found = found[1:]
            seen.update(found)
            out += found
            if made is None:
                compounded += found
    for form in compounded:
        for compound in made_from(form):
            add(compound)
    return out


def holding(conn: sqlite3.Connection, part: str, cap: int) -> int:
    """How many sessions hold a part of a query (an FTS5 expression), counted
    up to `cap`."""
    sql = "SELECT count(*) FROM (SELECT rowid FROM search WHERE search MATCH ? LIMIT ?)"
    return int(conn.execute(sql, (part, cap)).fetchone()[0])


def weights(conn: sqlite3.Connection, parts: tuple[str, ...] | list[str]) -> list[float]:
    """How much each part weighs, as bm25 weighs a word: log(sessions /
    sessions holding it), a part in more than _RARE sessions counted as in
    _RARE + 1 (telling sessions apart by next to nothing)."""
    import math

    held = [holding(conn, part, _RARE + 1) for part in parts]
    total = max(_indexed_rows(conn), *held, 1)
    return [math.log((total + 1) / max(1, n)) for n in held]


def _indexed_rows(conn: sqlite3.Connection) -> int:
    """The rows of the search index, as bm25 counts them: the first varint of
    FTS5's averages record (row 1 of its data table; one read, where counting
    100,000 sessions took 13 ms); the sessions counted when it cannot be read."""
    row = conn.execute("SELECT block FROM search_data WHERE id = 1").fetchone()
    block = row[0] if row is not None else b""
    value = 0
    for i, byte in enumerate(block[:9] if isinstance(block, bytes) else b""):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value
    return int(conn.execute("SELECT count(*) FROM sessions").fetchone()[0])


# A part in more sessions than this is common (see `closest`); the closest
# matches are looked for among this many sessions holding a rarer part.
_RARE = 5000
_POOL = 200


def _narrowed(project: str, since: str) -> tuple[str, list[Any]]:
    """The SQL (and its parameters) keeping only a project's sessions, or
    those started since a day."""
    sql = ""
    params: list[Any] = []
    if project:
        sql += " AND s.project = ? COLLATE NOCASE"
        params.append(project)
    if since:
        sql += " AND s.started >= ?"
        params.append(since_seconds(since))
    return sql, params


def changes_of(conn: sqlite3.Connection, paths: list[str], suffix: str = "",
               project: str = "", since: str = "", limit: int = 100,
               suffix_project: str = "") -> list[Change]:
    """Every change of one of `paths` (or, when none, of a path ending in
    `/suffix` in a session of `suffix_project`: another checkout of the same
    repository), newest first."""
    sql = (f"SELECT {_HIT}, c.path, c.added, c.removed, c.sha, c.subject, c.committed, c.mark, "
           "c.renamed_from, c.renamed_to, c.change, c.commit_files, c.commit_added, "
           "c.commit_removed, c.partly, c.earlier "
           f"FROM changes c JOIN sessions s ON s.doc = c.doc{_FOLDER} WHERE ")

    def newest_first(of_project: str) -> tuple[str, list[Any]]:
        tail, params = _narrowed(of_project, since)
        return tail + " ORDER BY s.started DESC, c.path LIMIT ?", [*params, limit]

    tail, params = newest_first(project)
    rows = conn.execute(sql + f"c.path IN ({', '.join('?' * len(paths))})" + tail,
                        [*paths, *params]).fetchall() if paths else []
    if not rows and suffix:
        posix, windows = "/" + suffix.replace("\\", "/"), "\\" + suffix.replace("/", "\\")
        tail, params = newest_first(project or suffix_project)
        rows = conn.execute(sql + "(c.path LIKE ? ESCAPE '^' OR c.path LIKE ? ESCAPE '^')" + tail,
                            [_ends_with(posix), _ends_with(windows), *params]).fetchall()
    return [Change(_hit(row), row[8], row[9], row[10], row[11], row[12], bool(row[13]), row[14],
                   row[15], row[16], row[17], row[18], row[19], row[20], bool(row[21]),
                   row[22]) for row in rows]


def paths_ending(conn: sqlite3.Connection, suffix: str, project: str = "",
                 limit: int = 20) -> list[tuple[str, str]]:
    """(path, project) of the files changed in any session whose path ends in
    `/suffix`, each once, the most recently changed first: what a name alone
    (`ci.yml`, typed outside its repository) may mean."""
    posix, windows = "/" + suffix.replace("\\", "/"), "\\" + suffix.replace("/", "\\")
    narrow, params = ("AND s.project = ? ", [project]) if project else ("", [])
    return [(path, proj) for path, proj in conn.execute(
        "SELECT c.path, s.project FROM changes c JOIN sessions s ON s.doc = c.doc "
        "WHERE (c.path LIKE ? ESCAPE '^' OR c.path LIKE ? ESCAPE '^') " + narrow +
        "GROUP BY c.path, s.project ORDER BY max(s.started) DESC, c.path LIMIT ?",
        [_ends_with(posix), _ends_with(windows), *params, limit])]


def _ends_with(text: str) -> str:
    """A LIKE pattern for paths ending in `text` (`^` escapes)."""
    return "%" + text.replace("^", "^^").replace("%", "^%").replace("_", "^_")


def sessions_whose_note(conn: sqlite3.Connection, like: str, limit: int = 10) -> list[Hit]:
    """Sessions whose note's path is LIKE `like` (a scan: for what an id does not find)."""
    return [_hit(row) for row in conn.execute(
        f"SELECT {_HIT} FROM sessions s{_FOLDER} WHERE s.note LIKE ? "
        "ORDER BY s.session_id LIMIT ?", (like, limit))]


def sessions_starting(conn: sqlite3.Connection, prefix: str, limit: int = 10) -> list[Hit]:
    """Sessions whose id starts with `prefix`."""
    return [_hit(row) for row in conn.execute(
        f"SELECT {_HIT} FROM sessions s{_FOLDER} WHERE s.session_id >= ? AND s.session_id < ? "
        "ORDER BY s.session_id LIMIT ?", (prefix, prefix + "\U0010ffff", limit))]

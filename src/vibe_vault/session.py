"""Bring one session's note up to date: the pipeline shared by hook and backfill.

locate → lock → load state → read new complete lines → decode → fold →
render → write the note atomically → save the state (after the note, so a
crash between the two only means the same bytes are folded again).
"""


import contextlib
import os
import stat
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import msgspec
from msgspec import Struct

from vibe_vault import locations, privacy, running, shared_secrets
from vibe_vault.atomic import StrPath, make_private_dir, write_atomic
from vibe_vault.config import Config
from vibe_vault.entries import Entry, Malformed, decode_lines
from vibe_vault.figures import Figures, figures, options_for
from vibe_vault.fold import LAST_ANSWER_CHARS, fold, fold_agent
from vibe_vault.fold.context import Learned, gate_outside, scrub
from vibe_vault.fold.todos import running_in_background
from vibe_vault.lock import LockTimeout, SessionLock, slot_path
from vibe_vault.note import free_relpath, moved_note, write_note, write_session_note
from vibe_vault.paths import safe_id
from vibe_vault.project import project_name
from vibe_vault.reader import (
    HEAD,
    Cursor,
    LineReader,
    head_of,
    must_restart,
    reader_of,
    tail_of,
    unchanged,
)
from vibe_vault.redact import DEFAULT, Redacted, Redactor
from vibe_vault.regular import NotAFile, missing, open_regular, read_fd, read_regular
from vibe_vault.render import render
from vibe_vault.render.memo import Memo
from vibe_vault.running import Listed
from vibe_vault.state import (
    MAX_STATE,
    AgentFile,
    AgentFold,
    Fold,
    SessionState,
    decode_kept,
    decode_state,
    encode_state,
    load_said,
    said_path,
    spill_said,
    worth_a_note,
)
from vibe_vault.vault import USER_HEADING, USER_HINT
from vibe_vault.work import settle_by_files

if TYPE_CHECKING:
    from vibe_vault.document import Document
    from vibe_vault.links import Links
    from vibe_vault.records import Record, Row

MAX_DURATIONS = 400
WAITING_GRACE = 7 * 24 * 3600  # seconds a session waiting on background work stays active


class Updated(Struct):
    session_id: str
    # (Their types are named in strings: a Stop makes none of them, and does
    # not import their modules, ~2.5 M instructions; `name_updated_types`
    # makes them known to a decoder.)
    record: "Record | None" = None
    row: "Row | None" = None  # the record as its rows, when a backfill worker sends it
    # With the record: what the search index holds of the session, and the
    # state file it comes from (its name, and its stamp once saved).
    document: "Document | None" = None
    state_key: str = ""
    state_stamp: int = 0
    note: str = ""
    wrote: bool = False
    bytes_read: int = 0
    complete: bool = True  # False when a deadline stopped the read early
    has_note: bool = False
    forgotten: bool = False  # forgotten, or of an excluded project: nothing was kept


def name_updated_types() -> None:
    """Import the types `Updated`'s fields name in strings where msgspec
    looks them up (this module's globals): before a decoder of it is made
    (a backfill's workers send theirs), which the Stop hook never makes."""
    from vibe_vault.document import Document
    from vibe_vault.records import Record, Row

    globals().update(Document=Document, Record=Record, Row=Row)


_ENSURED: set[str] = set()  # state directories whose folders this process checked
_LAST: list[object] = [None]  # the last update's state and figures (update_session)


class SessionFiles(Struct, frozen=True):
    """Every file vibe-vault keeps of one session under `<state>/` (see
    `locations`), worked out once: `Store.files`."""

    session_id: str
    state: str  # sessions/<id>.state
    said: str  # the state's side file of early `said`
    journal: str  # tool timings the Pre/PostToolUse hooks append
    lock: str  # the lock slot the session shares with others
    legacy_lock: str  # the session's own lock file, as versions before slots kept it
    staged: str  # a record SessionEnd could not write to the database
    archive_pending: str  # the marker of an archive run yet to finish
    tombstone: str  # there when the session is forgotten, or of an excluded project

    @property
    def forgotten(self) -> bool:
        return os.path.lexists(self.tombstone)


class Store:
    """The state directory's layout."""

    def __init__(self, root: StrPath) -> None:
        self.root = os.fspath(root)

    def files(self, sid: str) -> SessionFiles:
        """Every file of session `sid` under the state directory."""
        state = locations.state_file(self.root, sid)
        return SessionFiles(
            session_id=sid, state=state, said=said_path(state),
            journal=locations.journal_file(self.root, sid),
            lock=slot_path(self.root, sid),
            legacy_lock=locations.session_lock_file(self.root, sid),
            staged=locations.staged_file(self.root, sid),
            archive_pending=locations.archive_pending_file(self.root, sid),
            tombstone=locations.tombstone(self.root, sid))

    def state_path(self, sid: str) -> str:
        return locations.state_file(self.root, sid)

    def lock_path(self, sid: str) -> str:
        return slot_path(self.root, sid)

    def legacy_lock_path(self, sid: str) -> str:
        """The session's own lock file, as versions before lock slots kept it."""
        return locations.session_lock_file(self.root, sid)

    def journal_path(self, sid: str) -> str:
        return locations.journal_file(self.root, sid)

    def transcript_of(self, sid: str) -> str:
        """The transcript's path as the session's state keeps it ('' without a
        state): the database keeps only its key (stored_paths.file_key), so
        where the file was is asked of the state."""
        from vibe_vault.state import read_saved

        state, _ = read_saved(self.state_path(sid), safe_id(sid))
        return str(state.transcript) if state is not None else ""

    def ensure(self) -> None:
        """The state folders, each a real folder: a symlink or a file in the
        place of one is set aside, so nothing is written outside the state
        directory. Checked once per process (a backfill updates thousands of
        sessions, each of which asks)."""
        if self.root in _ENSURED:
            return
        for path in (locations.sessions_dir(self.root), locations.locks_dir(self.root),
                     locations.journal_dir(self.root)):
            try:
                st = os.lstat(path)
            except FileNotFoundError:
                make_private_dir(self.root)
                make_private_dir(path)
                continue
            if not stat.S_ISDIR(st.st_mode):
                set_aside(self.root, path)
                make_private_dir(path)
        _ENSURED.add(self.root)

    def load(self, sid: str, path: str = "") -> SessionState | None:
        """The saved state (at `path`, its `SessionFiles.state` when known), or
        None. A state path that holds something else (a folder, a symlink, a
        FIFO, another session's state) is set aside, so the session is rebuilt
        from its transcript once, not failed forever (a symlink to nothing
        reads as no state: saving replaces the link itself, never what it
        names)."""
        path = path or self.state_path(sid)
        if missing(path):
            return None
        try:
            data = read_regular(path, MAX_STATE, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except NotAFile:
            set_aside(self.root, path)
            return None
        state = decode_state(data)
        if state is not None and state.session_id != sid:
            set_aside(self.root, path)
            return None
        if state is not None and state.fold.said_from:
            # Its early `said` stays in the side file until something needs
            # it (load_said); a side file shorter than the state counts (lost,
            # cut by a crash) makes the state one to rebuild.
            try:
                st = os.lstat(said_path(path))
            except OSError:
                return None
            if not stat.S_ISREG(st.st_mode) or st.st_size < state.fold.said_bytes:
                return None
        return state

    def kept(self, sid: str, path: str = "") -> SessionState | None:
        """What a saved state of another version keeps (`decode_kept`), or None."""
        path = path or self.state_path(sid)
        try:
            data = read_regular(path, MAX_STATE, follow_symlinks=False)
        except (OSError, NotAFile):
            return None
        state = decode_kept(data)
        return state if state is not None and state.session_id == sid else None

    def load_said(self, state: SessionState, path: str = "") -> None:
        """The state's `said` whole (for the search document, or to scrub it
        of a secret learned late); `path` is the state's file, when known. A
        side file that does not hold it (damaged since the load) leaves the
        later entries only: the next re-read of the transcript brings the
        rest back."""
        if not load_said(state, path or self.state_path(state.session_id)):
            state.fold.said_from = state.fold.said_bytes = 0

    def save(self, state: SessionState, path: str = "") -> None:
        path = path or self.state_path(state.session_id)
        write_atomic(path, encode_state(spill_said(state, path)), mode=0o600)


def set_aside(state_dir: str, path: str) -> None:
    """Rename what is in the way to `<name>.set-aside-<time>`, with a log line."""
    from vibe_vault.log import warn

    aside = f"{path}.set-aside-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
    try:
        os.rename(path, aside)
    except OSError as exc:
        warn(state_dir, f"cannot set aside {path}: {exc.strerror or exc}", stderr=False)
        return
    warn(state_dir, f"set aside {path} (not a state vibe-vault wrote) as {aside}",
         stderr=False)


def gate(raw: str, limit: int, redactor: Redactor, learned: list[str] | None = None) -> Redacted:
    """A name from hook input or a file beside the transcript, as the state and
    the note may hold it: one line, through the transcript's full gate (private
    spans, secrets, the session's learned ones), cut only after that."""
    from vibe_vault import text as tx

    if not raw:
        return Redacted("")
    line = tx.one_line(tx.cut(raw, max(limit * 8, 4096)), 1 << 30)  # collapsed, not cut
    return gate_outside(line, limit, redactor, learned or [])


def redactor_for(cfg: Config) -> Redactor:
    extra = cfg.get("redact_patterns")
    allow = cfg.get("redact_allow")
    if not extra and not allow:
        return DEFAULT
    return Redactor(extra=[(str(k), str(v)) for k, v in extra.items()],
                    allow=[str(a) for a in allow])


def read_new(path: StrPath, cursor: Cursor, deadline: float | None,
             on_restart: Callable[[], None],
             consume: Callable[[Iterator[Entry | Malformed]], object],
             ) -> tuple[Cursor, int, bool, int]:
    """Hand the file's new complete lines, decoded, to `consume`.

    Calls `on_restart` first when the file is not the one the cursor was
    reading (truncated, replaced, rewritten). Returns the new cursor, the bytes
    read, whether the read finished before the deadline, and how many
    oversized lines were skipped. The cursor claims only the bytes read: after
    a read cut short by the deadline, the next one goes on from there.
    """
    fd, st = open_regular(path)
    try:
        f = reader_of(fd)
        if must_restart(cursor, f, st):
            on_restart()
            cursor = Cursor()
        if cursor.offset and unchanged(cursor, st):
            return cursor, 0, True, 0
        reader = LineReader(f, cursor.offset, deadline, limit=st.st_size,
                            in_long_line=cursor.in_long_line)
        consume(decode_lines(reader))
        head = (cursor.head_len, cursor.head_crc) if cursor.head_len >= HEAD else head_of(
            f, reader.end)
        tail = tail_of(f, reader.end) if reader.end else (0, 0)
        finished = reader.end == st.st_size or not reader.stopped_early
        new = Cursor(offset=reader.end, inode=st.st_ino,
                     # What a stat must show for there to be nothing new: only
                     # true of the file as it was when the read got to its end.
                     size=st.st_size if finished else reader.end,
                     mtime_ns=st.st_mtime_ns if finished else 0,
                     head_len=head[0], head_crc=head[1], tail_len=tail[0], tail_crc=tail[1],
                     in_long_line=reader.in_long_line)
        return new, reader.end - cursor.offset, not reader.stopped_early, reader.oversized
    finally:
        os.close(fd)


def read_main(state: SessionState, path: StrPath, deadline: float | None,
              redactor: Redactor, keep_thinking: bool = False) -> tuple[int, bool]:
    """Fold the main transcript's new complete lines; (bytes read, complete)."""
    def restart() -> None:
        state.fold, state.provisional = Fold(), Redacted("")

    before_answer = state.fold.last_answer
    state.cursor, read, complete, oversized = read_new(
        path, state.cursor, deadline, restart,
        lambda entries: fold(state.fold, entries, redactor, keep_thinking))
    state.fold.oversized += oversized
    if state.provisional and state.fold.last_answer != before_answer:
        state.provisional = Redacted("")  # the transcript caught up with the Stop hook
    return read, complete


def read_agent(af: AgentFile, path: StrPath, deadline: float | None,
               redactor: Redactor = DEFAULT) -> int:
    """Fold a subagent file's new complete lines; bytes read."""
    def restart() -> None:
        af.fold = AgentFold()

    af.cursor, read, _, oversized = read_new(
        path, af.cursor, deadline, restart,
        lambda entries: fold_agent(af.fold, entries, redactor))
    af.fold.oversized += oversized
    return read


# Seconds a folder's mtime must lie in the past for its stamp to be kept: a
# name added in the same tick of the file system's clock (coarse: a jiffy, or
# 2 s on FAT) as the listing leaves the mtime as it was.
SETTLED_FOLDER_S = 3.0


def discover_agents(transcript: str, sid: str, known: dict[str, AgentFile],
                    folder_stamp: tuple[int, ...] = ()) -> tuple[list[str], tuple[int, ...]]:
    """Subagent files of a session: `<sid>/subagents/agent-*.jsonl`, and legacy
    `agent-*.jsonl` beside the transcript whose sessionId is the session's;
    and the transcript's folder's stamp to keep (`folder_stamp` next time).

    The folder is the project's: it holds every transcript of the project,
    and listing 12,500 names cost a Stop ~7 ms. While its stamp (inode and
    mtime: a name added, removed or renamed changes it) is `folder_stamp`,
    the one kept when every agent file in it was known, it holds the same
    names: the legacy files found are those the state knows as the
    session's, and the folder is not listed. () to keep when a name in it is
    still unknown (a file not yet holding its sessionId) or its mtime is
    too recent to vouch for the names (SETTLED_FOLDER_S)."""
    found: list[str] = []
    parent = os.path.dirname(transcript)
    flows: list[str] = []
    try:
        with os.scandir(locations.subagents_dir(transcript)) as it:
            for entry in it:
                if locations.is_agent_file(entry.name) and entry.name.endswith(".jsonl"):
                    found.append(entry.path)
                elif entry.name == "workflows":
                    flows.append(entry.path)
    except OSError:
        pass
    # A workflow's agents (2.1.2xx+): subagents/workflows/wf_<run>/agent-*.jsonl
    for flow in flows:
        try:
            with os.scandir(flow) as it:
                runs = [e.path for e in it if e.name.startswith("wf_")
                        and e.is_dir(follow_symlinks=False)]
            for run in sorted(runs):
                with os.scandir(run) as it:
                    found.extend(e.path for e in it if locations.is_agent_file(e.name)
                                 and e.name.endswith(".jsonl"))
        except OSError:
            continue
    base = parent or "."
    try:
        st = os.stat(base)
    except OSError:
        return sorted(found), ()
    stamp: tuple[int, ...] = (st.st_ino, st.st_mtime_ns)
    if folder_stamp and stamp == tuple(folder_stamp):
        for key, agent in known.items():
            if ("/" not in key and not agent.foreign and locations.is_agent_file(key)
                    and key.endswith(".jsonl")):
                path = os.path.join(base, key)
                if os.path.isfile(path):  # (a key of a file elsewhere, given by backfill)
                    found.append(path)
        return sorted(found), stamp
    if st.st_mtime_ns > (time.time() - SETTLED_FOLDER_S) * 1e9:
        stamp = ()
    try:
        for name in _agent_names(os.listdir(base)):
            if not (locations.is_agent_file(name) and name.endswith(".jsonl")):
                continue
            path = os.path.join(base, name)
            key = locations.agent_key(transcript, path)
            af = known.get(key)
            if af is not None:
                if not af.foreign:
                    found.append(path)
                continue
            from vibe_vault.discover import sniff_session_id

            owner = sniff_session_id(path)
            if owner == sid:
                found.append(path)
            elif owner is not None:
                known[key] = AgentFile(foreign=True)
            else:
                stamp = ()  # (not known yet: to be looked at again)
    except OSError:
        return sorted(found), ()
    return sorted(found), stamp


def _agent_names(names: list[str]) -> list[str]:
    """Of a folder's names, those that begin as a subagent's file does. The
    folder is a project's, which holds every transcript of the project: a
    scandir entry for each, or even a Python test of each name, cost a Stop
    ~3 k or ~1 k instructions a file (31 M, 10 M in a project of 10,000
    sessions); the names joined are searched at C's pace instead."""
    mark = "\n" + locations.AGENT_PREFIX
    joined = "\n" + "\n".join(names)
    if joined.count("\n") != len(names):  # (a name holding a newline: one at a time)
        return [n for n in names if locations.is_agent_file(n)]
    out: list[str] = []
    at = joined.find(mark)
    while at >= 0:
        end = joined.find("\n", at + 1)
        out.append(joined[at + 1:end] if end >= 0 else joined[at + 1:])
        at = joined.find(mark, at + 1)
    return out


def _agent_meta(path: StrPath) -> tuple[str, str]:
    try:
        meta = msgspec.json.decode(
            read_regular(os.path.splitext(os.fspath(path))[0] + ".meta.json", 1 << 20))
    except (OSError, msgspec.DecodeError):
        return "", ""
    if not isinstance(meta, dict):
        return "", ""
    return str(meta.get("agentType") or ""), str(meta.get("description") or "")


def fold_journal(state: SessionState, path: StrPath) -> None:
    """Tool durations recorded by the PreToolUse/PostToolUse hooks."""
    if missing(path):
        return
    try:
        fd, st = open_regular(path, follow_symlinks=False)
        try:
            data = read_fd(fd, min(8 << 20, st.st_size - state.journal_offset),
                           state.journal_offset)
        finally:
            os.close(fd)
    except OSError:
        return
    end = data.rfind(b"\n") + 1
    if end <= 0:
        return
    starts: dict[str, float] = {}
    for line in data[:end].split(b"\n"):
        try:
            rec = msgspec.json.decode(line)
        except msgspec.DecodeError:
            continue
        if not isinstance(rec, dict) or not isinstance(rec.get("id"), str):
            continue
        tid = rec["id"]
        if rec.get("e") == "pre" and isinstance(rec.get("t"), (int, float)):
            starts[tid] = float(rec["t"])
        elif rec.get("e") == "post":
            ms = rec.get("ms")
            if isinstance(ms, (int, float)):
                state.durations[tid] = int(ms)
            elif tid in starts and isinstance(rec.get("t"), (int, float)):
                state.durations[tid] = int((float(rec["t"]) - starts[tid]) * 1000)
    state.journal_offset += end
    # The note shows durations for its last commands and turns only: keep the
    # newest, so a long session's state (and every Stop) stays the same size.
    while len(state.durations) > MAX_DURATIONS:
        del state.durations[next(iter(state.durations))]


class Update(Struct, kw_only=True, frozen=True):
    """What one `update_session` call is asked to do: bring session
    `session_id`, read from `transcript`, up to date. The defaults are a Stop's
    catch-up."""

    session_id: str
    transcript: str
    # time.monotonic() past which reading stops (complete=False): the hook's budget
    deadline: float | None = None
    lock_timeout: float | None = None  # None: the config's lock_timeout
    end_reason: str | None = None  # SessionEnd's reason: the session ended
    # Stop's last_assistant_message: shown until the transcript brings the answer
    provisional: str | None = None
    # Stop's and SubagentStop's background_tasks and session_crons, shapes checked
    listed: Listed | None = None
    listed_whole: bool = False  # a Stop's: they replace what an earlier one listed
    agent_files: list[str] | None = None  # None: looked for beside the transcript
    fresh: bool = False  # read again from byte 0
    # epoch seconds: a session still active whose last entry is older has ended (idle)
    idle_before: float | None = None
    want_record: bool = False  # return the registry record and search document too
    links: "Links | None" = None  # links to the session's neighbours, set into the state
    cwd_hint: str | None = None  # the hook's cwd, for a note made before the transcript
    # The transcript is gone (Claude Code deleted it): nothing to read, the
    # note made again from the saved state (a warm backfill, the note deleted)
    gone: bool = False
    # Fold, save and make the record, but leave the note (named, not written)
    # and the search row to the end of the run, when every session's links
    # are known: a first backfill writes each note once (index.regenerate's
    # `owed`), not once with guessed links and again with the right ones.
    defer_note: bool = False
    # Only to take in the secrets other sessions shared since it was written
    # (a backfill's or a reprocess's last pass): nothing is written unless
    # the state held one of them.
    shared_only: bool = False


class Places:
    """Where one session's files are, worked out once for an update and handed
    to each step: its transcript and subagent files (Claude Code's), its own
    files under `<state>/`, and its note in the vault (by the path the state
    keeps, relative to the vault)."""

    __slots__ = ("agents", "files", "transcript", "vault")

    def __init__(self, transcript: str, files: SessionFiles, vault: str) -> None:
        self.transcript = transcript
        self.files = files
        self.vault = vault
        self.agents: list[str] = []  # found once the state says which are known

    def note(self, relpath: str) -> str:
        return os.path.join(self.vault, *relpath.split("/"))


class _Work:
    """One update's inputs, for its steps: what was asked, where the session's
    files are, and how the config has it read."""

    __slots__ = ("cfg", "keep_thinking", "opts", "places", "redactor", "request", "store")

    def __init__(self, cfg: Config, request: Update, store: Store, places: Places) -> None:
        self.cfg, self.request, self.store, self.places = cfg, request, store, places
        self.keep_thinking = bool(cfg.get("show_thinking"))
        self.redactor = redactor_for(cfg)
        self.opts = options_for(cfg)


def update_session(cfg: Config, request: Update, store: Store | None = None) -> Updated:
    """Fold whatever is new for one session and rewrite its note.

    Raises LockTimeout when another process holds the session, NotAFile or
    OSError for a transcript that cannot be read, OSError when the vault or
    state cannot be written (then the state is not advanced).
    """
    store = store or Store(cfg.state_dir)
    store.ensure()
    from vibe_vault import line_key, linediff

    linediff.use_key(line_key.load(cfg.state_dir))
    places = Places(request.transcript, store.files(request.session_id), cfg.vault)
    timeout = cfg.get("lock_timeout") if request.lock_timeout is None else request.lock_timeout
    if places.files.forgotten:
        return Updated(session_id=request.session_id, forgotten=True)
    with SessionLock(places.files.lock, timeout):
        # Again under the lock: `vv forget` leaves its tombstone, then takes the
        # lock to remove the files; a writer that found no tombstone before
        # waiting for the lock must not bring them back.
        if places.files.forgotten:
            return Updated(session_id=request.session_id, forgotten=True)
        work = _Work(cfg, request, store, places)
        state, started_over = _state_to_fold_into(work)
        # What other sessions learned, taken in before the read: kept out of
        # what it reads, and out of what the state holds already (below).
        home = shared_secrets.load(cfg.state_dir)
        taught = _take_shared(state, home) if home else False
        if request.shared_only and not _held_shared(store, state, places, taught):
            return Updated(session_id=request.session_id)
        learned_before = _learned_lists(state)
        # (a huge text not gated by the deadline is withheld: see redact.HUGE_TEXT)
        before, work.redactor.deadline = work.redactor.deadline, request.deadline
        try:
            main_read, read, complete = _read_new(work, state)
        finally:
            work.redactor.deadline = before
        _settle_status(work, state, main_read=main_read, started_over=started_over,
                       complete=complete)
        _settle_running(work, state)
        if taught or not _learned_kept(state, learned_before):
            learned = _learned_anywhere(state)
            if taught or learned != _learned_anywhere(state, learned_before) \
                    or _unshared(state, learned):
                # A secret learned in this read, by the main agent or a subagent:
                # every fold of the session knows it from now on (a sibling's
                # next read keeps it out as it folds), and it is out of what the
                # state holds already, beside the facts too (the Stop hook's
                # answer, hook and meta.json names), and out of what the fold
                # said before, in the side file.
                _share_learned(state, learned)
                store.load_said(state, places.files.state)
                scrub(state, SessionState, Learned(learned))
        if request.links is not None:
            from vibe_vault.links import set_links

            set_links(state, request.links)
        if _of_an_excluded_project(work, state):
            return Updated(session_id=request.session_id, forgotten=True)
        out = Updated(session_id=request.session_id, bytes_read=read, complete=complete)
        fig = _write_the_note(work, state, out)
        store.save(state, places.files.state)
        _share(cfg, state, home, timeout)
        if request.want_record:
            _add_the_record(work, state, out, fig)
        # Held until the next update: a hook's process ends here (os._exit),
        # and letting go of a long session's state and figures object by
        # object cost a Stop some 1% of its instructions for nothing.
        _LAST[0] = (state, fig)
        return out


def _take_shared(state: SessionState, home: list[str]) -> bool:
    """Put the keys other sessions shared in every fold of this one; whether
    one was new to it (then what it holds is scrubbed of them)."""
    taught = False
    for f in _folds(state):
        have = set(f.learned)
        if not have.issuperset(home):
            f.learned.extend(k for k in home if k not in have)
            taught = True
    return taught


def _held_shared(store: Store, state: SessionState, places: Places, taught: bool) -> bool:
    """Whether a text of the state held a secret it was just `taught`."""
    if not taught:
        return False
    store.load_said(state, places.files.state)
    before = msgspec.msgpack.encode(state)
    scrub(state, SessionState, Learned(_learned_anywhere(state)))
    return msgspec.msgpack.encode(state) != before


def _share(cfg: Config, state: SessionState, home: list[str], timeout: float) -> None:
    """Give the home the keys this session learned that it shares
    (fold.context.shareable), once its own note and state hold none of them.
    A lock held past `timeout` or a write that fails leaves them to its next
    update (the state keeps them)."""
    known = set(home)
    keys = [k for f in _folds(state) for k in f.shared if k not in known]
    if not keys or len(home) >= shared_secrets.MAX_KEYS:
        return
    from vibe_vault.log import log_to_file

    try:
        shared_secrets.add(cfg.state_dir, keys, timeout)
    except (LockTimeout, OSError) as exc:
        log_to_file(cfg.state_dir, "warn", f"shared secrets left to the next update: {exc}")


def _folds(state: SessionState) -> list[Fold]:
    """The session's folds: the main transcript's and each subagent file's."""
    return [state.fold, *(af.fold.work for af in state.agents.values())]


def _learned_anywhere(state: SessionState,
                      lists: list[tuple[list[str], int]] | None = None) -> set[str]:
    """The digests of the secrets any fold of the session has learned (as
    `_learned_lists` found them, when given)."""
    if lists is not None:
        return {d for learned, k in lists for d in learned[:k]}
    return {d for f in _folds(state) for d in f.learned}


def _learned_lists(state: SessionState) -> list[tuple[list[str], int]]:
    """Each fold's learned digests as they are now: the list and its length
    (a fold only appends to its list), so what the folds knew before a read
    can be told after it without a set of every digest at every Stop."""
    return [(f.learned, len(f.learned)) for f in _folds(state)]


def _learned_kept(state: SessionState, before: list[tuple[list[str], int]]) -> bool:
    """Whether the read taught no fold anything (the same folds, their lists
    as long as before) and every fold knows the same secrets: then there is
    nothing to share or scrub. Compared list to list (a Stop of a session
    that learned a thousand secrets made two sets of them all, per fold)."""
    folds = _folds(state)
    if len(folds) != len(before):
        return False
    first = folds[0].learned
    for f, (learned, k) in zip(folds, before, strict=True):
        if f.learned is not learned or len(learned) != k or learned != first:
            return False
    return len(set(first)) == len(first)


def _unshared(state: SessionState, learned: set[str]) -> bool:
    return any(len(f.learned) != len(learned) for f in _folds(state))


def _share_learned(state: SessionState, learned: set[str]) -> None:
    """Every fold knows every secret the session learned, in one order (so
    the state does not depend on which file taught it first)."""
    union = sorted(learned)
    for f in _folds(state):
        f.learned = list(union)


def _state_to_fold_into(work: _Work) -> tuple[SessionState, bool]:
    """The saved state, or a new one (and True: read from byte 0) when there is
    none, when asked to start over, or when thinking was switched on or off."""
    sid = work.request.session_id
    old = work.store.load(sid, work.places.files.state)
    if (old is not None and not work.request.fresh
            and old.fold.keeps_thinking == work.keep_thinking):
        return old, False
    if old is None:  # none, or one of another version: its note stays where it is
        old = work.store.kept(sid, work.places.files.state)
    state = SessionState(session_id=sid)
    if old is not None:  # keep the note where it is, so links survive
        state.note, state.project = old.note, old.project
        state.user_notes, state.user_pending = old.user_notes, old.user_pending
        # Reading again from byte 0 (reprocess, --force) changes nothing
        # of how the session ended.
        state.status, state.end_reason = old.status, old.end_reason
        # What the client said runs is no transcript's to tell again.
        state.running, state.running_more = old.running, old.running_more
        state.running_malformed = old.running_malformed
    return state, True


def _shown_transcript(path: Redacted, cwd: str) -> Redacted:
    """The transcript's path as the state keeps it: a secret the gate hid in
    the session's folder is hidden in Claude Code's name for that folder too
    (`-home-dev-ghp-x…`, a name no rule reads as a token)."""
    if "[REDACTED" not in cwd:
        return path
    from vibe_vault.folder_names import shown_folder

    folder, sep, name = path.rpartition("/")
    parent, sep2, slug = folder.rpartition("/")
    if not sep or not sep2:
        return path
    return Redacted(f"{parent}/{shown_folder(slug, cwd)}/{name}")


def _read_new(work: _Work, state: SessionState) -> tuple[int, int, bool]:
    """Fold what is new in the transcript, the subagent files and the journal:
    (bytes of the transcript, bytes in all, complete: no deadline cut it short)."""
    request, places, redactor = work.request, work.places, work.redactor
    deadline = request.deadline
    state.transcript = gate(places.transcript, 1000, redactor)
    try:
        read, complete = read_main(state, places.transcript, deadline, redactor,
                                   work.keep_thinking)
        state.transcript = _shown_transcript(state.transcript, state.fold.cwd)
    except FileNotFoundError:
        if request.gone:
            return 0, 0, True
        if request.provisional is None:
            raise
        # `claude -p`: the first Stop can come before the transcript exists.
        # Claude's answer, from the event, makes the note until it does.
        read, complete = 0, True
        if not state.started_hint:
            from vibe_vault.times import now_utc_iso

            state.started_hint = now_utc_iso()
            state.cwd_hint = gate(request.cwd_hint or "", 1000, redactor)
    main_read = read
    stamp: tuple[int, ...] = ()
    if request.agent_files is None:
        places.agents, stamp = discover_agents(places.transcript, request.session_id,
                                               state.agents, state.agents_folder)
    else:
        places.agents = request.agent_files
    for path in places.agents:
        if deadline is not None and time.monotonic() > deadline:
            complete = False
            break
        key = locations.agent_key(places.transcript, path)
        af = state.agents.get(key)
        if af is None:
            af = state.agents[key] = AgentFile()
            agent_type, description = _agent_meta(path)
            af.agent_type = gate(agent_type, 60, redactor, state.fold.learned)
            af.description = gate(description, 120, redactor, state.fold.learned)
        try:
            read += read_agent(af, path, deadline, redactor)
        except (OSError, NotAFile):
            continue
    # (kept once every file found is one the state knows: a read the deadline
    # cut short may not have come to them all)
    state.agents_folder = stamp if complete else ()
    settle_by_files(state)  # (a background agent whose file tells its end)
    fold_journal(state, places.files.journal)
    return main_read, read, complete


def _settle_status(work: _Work, state: SessionState, *, main_read: int, started_over: bool,
                   complete: bool) -> None:
    """Ended (SessionEnd, or idle too long), active again (resumed), and the
    Stop hook's provisional answer."""
    request, redactor = work.request, work.redactor
    end_reason, idle_before = request.end_reason, request.idle_before
    if end_reason is None and main_read and not started_over and state.status == "ended":
        # Resumed: the user came back. A subagent's file written after the
        # end (its last lines flushed late) is not that. (Before the idle
        # check: lines come back whose last is old, the session ends again
        # in this run, as a first read of the whole would have it.)
        state.status, state.end_reason = "active", Redacted("")
    if end_reason is not None:
        state.status, state.end_reason = "ended", gate(end_reason, 60, redactor)
        state.provisional = Redacted("")
    elif state.status == "active" and complete and state.fold.ended_by:
        # The transcript ends with the user's `/exit` (`/clear`, `/logout`):
        # ended then, as Claude Code's own SessionEnd would have said (had a
        # hook been there).
        state.status, state.end_reason = "ended", Redacted(state.fold.ended_by)
        state.provisional = Redacted("")
    elif idle_before is not None and state.status == "active" and complete:
        # A session whose last entry is old has ended, whatever the files'
        # times say (a copied or restored transcript has a fresh mtime).
        last = last_activity(state) or max(
            (_mtime(p) for p in [work.places.transcript, *work.places.agents]), default=0.0)
        # One waiting on work it left running in the background is not
        # idle, for a week at most (the client may have died with it).
        if running_in_background(state.fold) or running.waiting(state):
            idle_before -= WAITING_GRACE
        if 0 < last < idle_before:
            state.status, state.end_reason = "ended", Redacted("idle")
    provisional = request.provisional
    if (provisional is not None and end_reason is None and provisional.strip()
            and provisional.strip() != state.fold.last_answer):
        # Not counted: the transcript will bring the same text, and count it then.
        state.provisional = gate_outside(provisional.strip(), LAST_ANSWER_CHARS, redactor,
                                         state.fold.learned)


def _settle_running(work: _Work, state: SessionState) -> None:
    """What the client listed running at this Stop (or SubagentStop), each
    string through the session's full gate, as the Stop's answer is."""
    found = work.request.listed
    if found is None:
        return
    learned, redactor = state.fold.learned, work.redactor
    entries = running.gated(found, lambda raw, limit: gate(raw, limit, redactor, learned))
    running.take(state, found, entries, work.request.listed_whole)


def _of_an_excluded_project(work: _Work, state: SessionState) -> bool:
    """Whether the session's project is one `exclude_projects` names; if so,
    its files are gone (the user's words in its note kept) and it is buried."""
    patterns = work.cfg.get("exclude_projects")
    if not (patterns and state.fold.cwd and privacy.excluded(
            patterns, state.project or project_name(state.fold.cwd), state.fold.cwd)):
        return False
    _forget(work.cfg, work.store, work.places.files, state.note, keep_user_words=True)
    privacy.bury(work.cfg.state_dir, work.request.session_id)
    return True


def _write_the_note(work: _Work, state: SessionState, out: Updated) -> Figures | None:
    """Render and write the note, when the session is worth one (found where
    the user moved it, else named now); its figures (None without a note)."""
    places, sid = work.places, work.request.session_id
    if not (worth_a_note(state.fold) or (state.provisional and state.started_hint)):
        return None
    if state.note and missing(places.note(state.note)):
        # Not where it was written: the user may have moved or renamed it.
        moved = moved_note(places.vault, sid)
        if moved is not None:
            state.note = moved
    if not state.note:
        state.project = project_name(state.fold.cwd or state.cwd_hint)
        state.note = free_relpath(places.vault, state.project, sid,
                                  state.fold.first_ts or state.started_hint)
    fig = figures(state, work.opts)
    out.note = state.note
    out.has_note = True
    if work.request.defer_note:
        return fig  # (written by the link pass: out.wrote stays False)
    memo = Memo(state.rendered, state.rendered_parts)
    note = render(state, work.opts, fig, memo)
    state.rendered, state.rendered_parts = memo.new, memo.new_parts
    out.wrote = write_session_note(places.vault, state, note, work.cfg.state_dir)
    return fig


def _add_the_record(work: _Work, state: SessionState, out: Updated,
                    fig: Figures | None) -> None:
    """The registry record and the search document, for the database."""
    from vibe_vault import filestamp
    from vibe_vault.document import document_of
    from vibe_vault.records import make_record

    places = work.places
    out.record = make_record(state, [places.transcript, *places.agents], work.opts, fig)
    if work.request.defer_note and out.has_note:
        return  # indexed once its note is written (the search catch-up after the link pass)
    work.store.load_said(state, places.files.state)
    out.document = document_of(state, fig)
    out.state_key = safe_id(work.request.session_id)
    out.state_stamp = filestamp.of(os.stat(places.files.state))


def forget_files(cfg: Config, store: Store, sid: str, note: str,
                 keep_user_words: bool = False) -> list[str]:
    """Remove what vibe-vault keeps of a session in files: its note, state,
    journal, staged record, archive, and a lock file an older version left;
    the paths removed. (The shared lock slots name no session.)

    `keep_user_words` (a session let go because its project is excluded, not
    by the user's own `vv forget`): a note whose "My notes" holds the user's
    words keeps them, and only them, with the words of theirs the state held
    for the note's next write (SessionState.user_pending), read here before
    the state goes, so no caller can leave them behind."""
    return _forget(cfg, store, store.files(sid), note, keep_user_words)


def _forget(cfg: Config, store: Store, files: SessionFiles, note: str,
            keep_user_words: bool = False) -> list[str]:
    from vibe_vault import archive
    removed = []
    paths = [files.state, files.said, files.journal, files.legacy_lock, files.staged,
             files.archive_pending]
    kept = False  # the note, holding the user's words alone
    if note and keep_user_words:
        left = store.load(files.session_id, files.state)
        kept = _only_user_words_kept(cfg.vault, note,
                                     left.user_pending if left is not None else "")
    if note and not kept:
        paths.append(os.path.join(cfg.vault, *note.split("/")))
    for path in paths:
        if privacy.remove_quietly(path):
            removed.append(path)
    # under the archive's lock: no run writes it back
    folder = archive.remove(cfg, files.session_id)
    if folder:
        removed.append(folder)
    return removed


EXCLUDED_NOTE = ("# Notes of a session of an excluded project\n\n"
                 "vibe-vault took out what it had written here, as `exclude_projects` asks; "
                 "what you wrote stays.\n\n" + USER_HEADING + "\n" + USER_HINT + "\n")


def _only_user_words_kept(vault: str, note: str, pending: str = "") -> bool:
    """Rewrite a note to hold only what the user wrote in it (and `pending`,
    their words no write has put in yet), when they wrote anything; whether it
    was (else the note can go). Through `write_note`, which keeps the user's
    part as every note write does (read whole, an editor's save in progress
    waited for, never written over)."""
    from vibe_vault.note import has_user_words, user_section

    if not has_user_words(vault, note) and not user_section(pending).strip():
        return False
    # Not rewritten (an error): still, never removed with the user's words in it.
    with contextlib.suppress(OSError):
        write_note(vault, note, EXCLUDED_NOTE, pending=pending)
    return True


def last_activity(state: SessionState) -> float:
    """Epoch seconds of the session's last entry, its subagents' included; 0 if none."""
    from vibe_vault.times import epoch

    last = state.fold.last_epoch
    for af in state.agents.values():
        if af.fold.last_ts and not af.foreign:
            last = max(last, epoch(af.fold.last_ts) or 0.0)
    return last


def _mtime(path: StrPath) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


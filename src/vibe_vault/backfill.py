"""Backfill: a note for every session found under some folders, through the
same reader, fold and renderer as the hook, in parallel, skipping what has not
changed since last time from a `stat` alone.

plan (one folder at a time, against the registry's rows; folders as their
marks say passed over) -> jobs, newest first, with the links each note will
most likely carry -> the jobs in worker
processes (session.update_session) -> each finished session's rows into the
database, in large transactions -> the forgotten removed, the index notes, the
files of finished sessions pruned, the search index caught up. `vv backfill`
(commands/backfill.py) reads the arguments and shows what this returns.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from msgspec import Struct, field
from msgspec.structs import replace

from vibe_vault import locations, shared_secrets, vaultdb
from vibe_vault.config import Config
from vibe_vault.records import Record
from vibe_vault.stored_paths import file_key, folder_key
from vibe_vault.times import epoch

if TYPE_CHECKING:
    from vibe_vault.discover import Start
    from vibe_vault.links import Links
    from vibe_vault.session import Updated


class Request(Struct, kw_only=True, frozen=True):
    """What a backfill is asked to do (`vv backfill`'s options)."""

    force: bool = False  # re-read every transcript from byte 0
    dry_run: bool = False  # plan only: nothing written
    since: float | None = None  # epoch seconds: only sessions active since
    project: str | None = None  # only sessions of this project
    workers: int = 0  # parallel workers; 0: the number of cores
    archive: bool = False  # check every session's archive copy, unchanged ones too
    prune: bool = True  # the whole transcripts directory: prune what is gone from it
    quiet: bool = False  # warnings to the log only, not stderr


class RunCounts(Struct):
    sessions: int = 0
    written: int = 0
    unchanged: int = 0
    without_note: int = 0
    failed: int = 0
    filtered: int = 0
    forgotten: int = 0  # sessions forgotten (vv forget) or of an excluded project
    skipped_files: dict[str, int] = field(default_factory=dict)
    bytes: int = 0
    seconds: float = 0.0
    index_notes_written: int = 0
    files_pruned: int = 0  # locks and journals of sessions whose transcripts are gone
    indexed: int = 0  # sessions the search index holds
    archived_bytes: int = 0
    unknown_entry_types: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


class Job(Struct, gc=False):
    """One session to bring up to date, as a worker process is handed it.
    (Not tracked by the cycle collector: it holds strings and a Links, never
    itself; a cold backfill plans one per session.)"""

    session_id: str
    transcript: str
    agent_files: list[str]
    force: bool  # read again from byte 0
    idle_before: float  # epoch seconds: active with nothing newer -> ended (idle)
    archive: bool  # archive its files once read
    # ... its copies left to the run to sync (archive.sync_all, before the
    # rows that record the session are committed), not synced one by one
    archive_synced_by_run: bool
    links: Links | None = None  # the links its note will most likely carry
    defer_note: bool = False  # its note written at the end, with the links known (owed)
    shared_only: bool = False  # only the secrets other sessions shared since (_shared_pass)


class Done(Struct):
    """What a backfill did; with `Request.dry_run`, what it would do (`planned`)."""

    summary: RunCounts
    planned: list[Job] = field(default_factory=list)


class Watcher(Protocol):
    """Who is told how a run goes as it goes (the command's progress bar)."""

    def say(self, text: str) -> None: ...  # one line for the user
    def start(self, sessions: int, nbytes: int) -> None: ...  # the jobs begin
    def step(self, nbytes: int) -> None: ...  # one job finished
    def close(self) -> None: ...  # every job finished
    def phase(self, text: str) -> None: ...  # what the run does after the jobs


class Silent:
    """A Watcher that tells nobody."""

    def say(self, text: str) -> None:
        pass

    def start(self, sessions: int, nbytes: int) -> None:
        pass

    def step(self, nbytes: int) -> None:
        pass

    def close(self) -> None:
        pass

    def phase(self, text: str) -> None:
        pass


def _epoch(iso_ts: str) -> float:
    """Epoch seconds of a record's ISO stamp; infinity when it has none."""
    ep = epoch(iso_ts) if iso_ts else None
    return ep if ep is not None else float("inf")



def _last_activity(main: str, stats: list[os.stat_result | None]) -> int:
    """A session's last activity (ns since 1970), to order the jobs by: its
    transcript's last timestamp (discover.last_stamp: a read of its end),
    else its files' latest time. Not the files' time first: a home copied
    or restored (a new machine, a backup) gives every file the copy's time,
    and its newest sessions would come in no particular order."""
    from vibe_vault.discover import last_stamp

    seconds = last_stamp(main)
    if seconds is not None:
        return int(seconds * 1e9)
    return max((st.st_mtime_ns for st in stats if st), default=0)


# -- the work of one session, in a worker process ---------------------------------

_cfg: Config | None = None


def _init(cfg: Config) -> None:
    global _cfg
    _cfg = cfg


def _work(job: Job) -> tuple[str, Updated | None, str]:
    """Process one session; (session id, Updated or None, error text)."""
    sid, main = job.session_id, job.transcript
    agents: list[str] | None = job.agent_files
    from vibe_vault.lock import LockTimeout
    from vibe_vault.regular import NotAFile
    from vibe_vault.session import Update, update_session

    assert _cfg is not None
    if job.shared_only and not main:  # a session of an earlier run: where its state saw it
        from vibe_vault.session import Store

        main, agents = Store(_cfg.state_dir).transcript_of(sid), None
        if not main:
            return sid, None, f"session {sid}: no state"
    try:
        out = update_session(_cfg, Update(
            session_id=sid, transcript=main, agent_files=agents, fresh=job.force,
            lock_timeout=30.0, idle_before=job.idle_before, want_record=True, links=job.links,
            defer_note=job.defer_note, shared_only=job.shared_only, gone=job.shared_only))
        if job.archive and not job.shared_only:
            from vibe_vault.archive import archive_files, session_files

            archive_files(_cfg, sid, session_files(main, agents or []), level=1,
                          sync=not job.archive_synced_by_run)
    except LockTimeout:
        return sid, None, f"session {sid} stayed locked"
    except (NotAFile, OSError) as exc:
        return sid, None, f"{main}: {getattr(exc, 'strerror', None) or exc}"
    if out.record is not None:
        # Sent as its rows: the parent, which writes them, is one process for
        # every worker, and decoding whole records was a tenth of its time.
        from vibe_vault.records import row_of

        out.row, out.record = row_of(out.record), None
    return sid, out, ""


def backfill(cfg: Config, roots: list[Path], request: Request,
             watcher: Watcher | None = None) -> Done:
    """Bring the notes of every session under `roots` up to date (or, with
    `request.dry_run`, plan only), then the indexes."""
    from vibe_vault import registry
    from vibe_vault.lock import Running
    from vibe_vault.session import Store

    t0 = time.monotonic()
    Store(cfg.state_dir).ensure()
    # No cycle collections while the jobs are planned: each one walked every
    # job made so far (100,000 sessions: 0.8 s of the 2-3 s before the first
    # job, all of it serial). Turned on again, with the plan out of its way,
    # when the jobs start (_collect_again).
    gc.disable()
    try:
        with Running(cfg.state_dir):  # searches meanwhile leave the indexing to this run
            conn = registry.connect(cfg)  # on the first run, takes the old registry in
            try:
                # Projects whose records SessionEnd left (the database busy), notes owed.
                owed = set(registry.owed_projects(conn))
                done = _backfill(cfg, conn, roots, request, watcher or Silent(), t0, owed)
                if not request.dry_run:
                    registry.paid(conn, owed)
                return done
            finally:
                conn.close()
    finally:
        gc.unfreeze()
        gc.enable()


def _collect_again() -> None:
    """The jobs and what was read to plan them stay until the run ends: kept
    out of every later collection (in the workers too, which inherit them
    and would otherwise copy every page a collection touches)."""
    gc.freeze()
    gc.enable()


class _RowWriter:
    """Writes each finished session's registry row and search rows (made by
    the worker, with the stamp of the state they come from, so the catch-up at
    the end reads no state again), committing every COMMIT_ROWS sessions or
    COMMIT_SECONDS. Few large transactions, not many small ones: each commit
    writes every page it changed to the WAL, and the indexes keyed by session
    id change pages all over: 100,000 sessions in batches of 500 wrote 19
    times the database's size (6.8 GB) in 19 s; in batches of 5,000, 2.1 GB
    in 11 s."""

    def __init__(self, conn: Any, before_commit: Callable[[], None] | None = None) -> None:
        self.conn = conn
        self.before_commit = before_commit  # (the archive copies of the rows' sessions synced)
        self.pending = 0
        self.since = 0.0
        self.ids: dict[str, int] = {}  # the search index's folder ids, across commits
        # Fewer checkpoints, each copying a page written many times only once.
        conn.execute(f"PRAGMA wal_autocheckpoint = {CHECKPOINT_PAGES}")
        conn.execute(f"PRAGMA cache_size = -{CACHE_KB}")

    def put(self, done: Any) -> None:
        from vibe_vault import registry

        if not self.pending:
            self.conn.execute("BEGIN IMMEDIATE")
            self.since = time.monotonic()
        try:
            registry.put_row(self.conn, done.row)
            if done.state_key:
                vaultdb.put_indexed(self.conn, done.state_key, done.state_stamp,
                                    done.session_id, done.document, self.ids)
        except BaseException:
            self.conn.execute("ROLLBACK")
            self.pending = 0
            raise
        self.pending += 1
        if self.pending >= COMMIT_ROWS or time.monotonic() - self.since > COMMIT_SECONDS:
            self.commit()

    def commit(self) -> None:
        if self.pending:
            if self.before_commit is not None:
                self.before_commit()
            self.conn.execute("COMMIT")
            self.pending = 0


COMMIT_ROWS = 5000
COMMIT_SECONDS = 2.0  # also lets a SessionEnd hook in between (it waits, then stages)
# SQLite's page cache for the run (its default is 2 MB): the pages of the
# indexes being added to stay in memory rather than being read back from the
# file between commits (100,000 sessions: the parent's system time 4.7-5.2 ->
# 3.1 s, its writes 3.3 -> 2.0 GB); within the 150 MB a run may take.
CACHE_KB = 16384
CHECKPOINT_PAGES = 16384  # WAL pages (64 MB) before copying them into the database


FIRST_STAGE = 2000  # the newest sessions, done before the rest's links are foreseen


def _stages(jobs: list[Job]) -> list[list[Job]]:
    """The jobs (newest first) in the stages they run in. A large run first
    does its newest FIRST_STAGE sessions, their links foreseen from their own
    first lines, then the rest: reading the first lines of every new
    transcript before any note (a first backfill of 100,000 sessions: a few
    seconds, more on a busy machine) would come between the user and their
    latest notes. The first stage's oldest session of each project is the
    one whose guess misses its previous session; the link pass at the end of
    the run sets it, as it does for any guess that was wrong. The later
    stage's notes are left to that pass (Job.defer_note): a guess cannot
    know the tags that tell apart sessions of the same title, which only
    their folds tell, and a note written with a wrong guess is written twice."""
    if len(jobs) <= 2 * FIRST_STAGE:
        return [jobs]
    return [jobs[:FIRST_STAGE], jobs[FIRST_STAGE:]]


STATE_VERSION_KEY = "state_version"  # (meta) the STATE_VERSION of the last whole run

_NO_AGENTS: list[str] = []  # shared by the jobs of sessions without subagents (most): never changed


class Known(Struct):
    """What the registry says of a session, enough to tell it is unchanged."""

    project: str
    status: str
    ended: str
    has_note: bool
    note: str


def _backfill(cfg: Config, conn: Any, roots: list[Path], request: Request, watcher: Watcher,
              t0: float, staged: set[str]) -> Done:
    from vibe_vault import folder_marks, registry
    from vibe_vault.atomic import sweep_temp_files
    from vibe_vault.discover import discover, groups
    from vibe_vault.log import warn

    owners = registry.owners(conn)  # legacy subagent files: few
    notes = _NoteFolders(cfg.vault)
    summary = RunCounts(sessions=0, skipped_files={})
    idle_before = time.time() - float(cfg.get("idle_hours")) * 3600
    jobs: list[Job] = []
    sizes: dict[str, int] = {}
    recency: dict[str, int] = {}  # session -> its last activity (ns): _last_activity
    # Archiving is on unless the config says otherwise: Claude Code deletes
    # transcripts after cleanupPeriodDays, and the archive is what `vv restore`
    # puts back. By default only the sessions read are archived (a warm run
    # stays a stat per file); --archive checks every session's copy.
    archiving = bool(request.archive or cfg.get("archive"))
    synced_by_run = False
    if archiving:
        from vibe_vault import archive
        from vibe_vault.archive import (
            finish_pending,
            move_out_of_vault,
            needs_archive,
            session_files,
        )

        # The copies are synced by the run, once before each commit of the
        # rows that record their sessions as read (_RowWriter), not by an
        # fsync of each member and manifest (three a session: most of a
        # first backfill's time went waiting on them).
        synced_by_run = archive.can_sync_all()

        moved = move_out_of_vault(cfg)
        if moved:
            watcher.say(f"vv: {moved}")
        if not request.dry_run:
            finish_pending(cfg)  # archive runs hooks were stopped in

    from vibe_vault.paths import safe_id
    from vibe_vault.privacy import forgotten

    buried = forgotten(cfg.state_dir)
    since, project = request.since, request.project
    plain = not (request.force or project or request.archive or since is not None)
    # States saved by an older vv (another STATE_VERSION) are read again once,
    # whatever the files' stats say: until a run has, the search index cannot
    # hold them (it is made from the states) and their notes are an older
    # vv's. The database says which version its last whole run left.
    from vibe_vault.state import STATE_VERSION

    stale = vaultdb.meta(conn, STATE_VERSION_KEY) != str(STATE_VERSION)
    # A plain run passes over a folder whose files, notes and tombstones are as
    # its mark says (folder_marks): a warm run over a large history costs a
    # stat per file, no row read. Other runs neither use nor make marks.
    marks = folder_marks.load(conn) if plain and not stale else folder_marks.Marks()
    tombstones = folder_marks.names_digest(buried)
    if marks.tombstones != tombstones:
        marks = folder_marks.Marks()
    listed: dict[str, _Listed] = {}  # folders planned session by session this run
    passed: list[str] = []  # folders passed over on their marks
    gone: set[str] = set()  # forgotten sessions the registry still knows
    found: set[str] = set()
    known: dict[str, Known] = {}  # of the sessions processed or forgotten: what was
    owners_found: dict[str, str] = {}
    # One folder at a time, each checked against its own rows (indexed reads):
    # memory in proportion to one folder.
    stats: dict[str, os.stat_result] = {}
    for group in groups(roots):
        key = str(group)
        walked = folder_marks.stat_tree(key) if plain else None
        mark = marks.folders.get(folder_key(key))
        if (mark is not None and walked is not None
                and (mark.idle_at is None or mark.idle_at >= idle_before)
                and folder_marks.notes_as_marked(cfg.vault, mark.notes)
                and folder_marks.files_digest(walked) == mark.files
                and registry.count_under(conn, key) == mark.stamps):
            passed.append(key)
            summary.sessions += mark.sessions
            summary.unchanged += mark.sessions - mark.forgotten
            summary.forgotten += mark.forgotten
            for reason, k in mark.skipped.items():
                summary.skipped_files[reason] = summary.skipped_files.get(reason, 0) + k
            continue
        stamps = registry.stamps_under(conn, key)
        rows = registry.brief_under(conn, key)
        if walked is not None:
            listed[key] = seen = _Listed(folder_marks.files_digest(walked))
        else:
            seen = _Listed("")  # not to be marked
        if plain and not stale and walked is not None and _folder_unchanged(
                walked, stamps, rows, buried, notes, idle_before):
            # Every file as last read, nothing new, nothing to mark: no session looked at.
            sids = set(rows) - found
            found |= sids
            summary.sessions += len(sids)
            summary.unchanged += len(sids)
            seen.sessions = len(sids)
            continue
        # discover takes each file's stat from here rather than asking again
        stats = dict(walked or ())
        sources, skipped = discover([group], owners, stats)
        seen.skipped = skipped
        for reason, k in skipped.items():
            summary.skipped_files[reason] = summary.skipped_files.get(reason, 0) + k
        files_known: dict[str, int] = {}
        for sid, *_ in stamps.values():
            files_known[sid] = files_known.get(sid, 0) + 1
        for src in sources:
            sid = src.session_id
            if sid in found:
                summary.skipped_files["duplicate session id"] = summary.skipped_files.get(
                    "duplicate session id", 0) + 1
                seen.skipped["duplicate session id"] = seen.skipped.get(
                    "duplicate session id", 0) + 1
                continue
            found.add(sid)
            summary.sessions += 1
            seen.sessions += 1
            owners_found.update((a, sid) for a in src.agents
                                if not locations.in_subagents_dir(a))
            row = rows.get(sid)
            rec = Known(*row) if row else None
            if buried and safe_id(sid) in buried:
                summary.forgotten += 1
                seen.forgotten += 1
                if rec is not None:
                    gone.add(sid)
                    known[sid] = rec
                continue
            files = [src.main, *src.agents]
            # One stat per file tells all: unchanged or not, how recent, how big.
            now = [stats.get(p) for p in files]
            newest = max((st.st_mtime_ns for st in now if st), default=0) / 1e9
            if since is not None and newest < since:
                summary.filtered += 1
                continue
            if project:
                its = (rec.project if rec and rec.project
                       else os.path.basename(os.path.dirname(src.main)))
                if its != project and not its.endswith("-" + project):
                    summary.filtered += 1
                    continue
            if (rec is not None and not request.force and not stale
                    and files_known.get(sid) == len(files)
                    and all(st is not None and stamps.get(file_key(p)) == (
                        sid, st.st_size, st.st_mtime_ns, st.st_ino)
                        for p, st in zip(files, now, strict=True))
                    and not (rec.status == "active"
                             and min(newest, _epoch(rec.ended)) < idle_before)
                    # A note deleted (or the whole vault) is written again.
                    and not (rec.has_note and not notes.exists(rec.note))
                    and not (request.archive and needs_archive(
                        cfg, sid, session_files(src.main, src.agents)))):
                summary.unchanged += 1
                continue
            if rec is not None:
                known[sid] = rec
            sizes[sid] = sum(st.st_size for st in now if st)
            recency[sid] = _last_activity(src.main, now)
            jobs.append(Job(sid, src.main, src.agents or _NO_AGENTS, request.force,
                            idle_before, archiving, synced_by_run))
    # The last folder's files and their stats (12,500 in a large project, ~9 MB)
    # are not needed past here: not kept through the run.
    walked, sources = None, []
    stats.clear()
    # Newest first: what a user waits for after a first backfill is their
    # recent work, whose notes then come within seconds of the start, and a
    # run stopped anywhere has written every session newer than those it has
    # not. (Largest first, then by session id, left the writes to the
    # database's indexes in their order, ~0.4 of them.)
    jobs.sort(key=lambda j: (-recency[j.session_id], j.session_id))
    recency.clear()
    if request.dry_run:
        _predict_links(conn, jobs, known, request.workers)
        return Done(summary, planned=jobs)
    sweep_temp_files(locations.sessions_dir(cfg.state_dir))  # left by a writer that was killed
    watcher.start(len(jobs), sum(sizes.values()))
    # Each session's rows go to the database as it finishes (what is kept in
    # memory is a project name and a note folder per session, not a record).
    writer = _RowWriter(conn, (lambda: archive.sync_all(cfg)) if synced_by_run else None)
    projects: set[str] = set(staged)
    folders: set[str] = set()
    unsettled: set[str] = set()  # sessions that failed or were forgotten by a worker
    owed: set[str] = set()  # sessions whose notes the link pass writes (Job.defer_note)
    shared_before = len(shared_secrets.load(cfg.state_dir))
    shared_seen = int(vaultdb.meta(conn, SHARED_PASSED, "0") or 0)
    shared_passed = 0
    try:
        for n, stage in enumerate(_stages(jobs)):
            if n:
                # The later stage's links are foreseen with the earlier
                # stage's sessions in the database (its rows committed), and
                # without cycle collections, as the first stage's were.
                writer.commit()
                gc.disable()
                for job in stage:
                    job.defer_note = True
            _predict_links(conn, stage, known, request.workers)
            _collect_again()
            for sid, out, err in _run_jobs(cfg, stage, request.workers):
                watcher.step(sizes.get(sid, 0))
                if out is None:
                    summary.failed += 1
                    summary.errors.append(err)
                    unsettled.add(sid)
                    warn(cfg.state_dir, f"backfill: {err}", stderr=not request.quiet)
                    continue
                summary.bytes += out.bytes_read
                if out.forgotten:
                    summary.forgotten += 1
                    unsettled.add(sid)
                    gone.add(sid)
                    continue
                if out.row is not None:
                    writer.put(out)
                    projects.add(out.row.project)
                    if sid in known:
                        projects.add(known[sid].project)
                    if out.row.note:
                        folders.add(os.path.dirname(out.row.note))
                if not out.has_note:
                    summary.without_note += 1
                elif n:  # (the later stage's: Job.defer_note)
                    owed.add(sid)  # counted once written
                elif out.wrote:
                    summary.written += 1
                else:
                    summary.unchanged += 1
        shared_now = len(shared_secrets.load(cfg.state_dir))
        if shared_now > shared_before or shared_now > shared_seen:
            # (the sessions of earlier runs too when a hook shared a key since
            # the last pass: a session written before another caught it)
            ran = {j.session_id for j in jobs}
            earlier = [] if shared_now <= shared_seen else [
                sid for (sid,) in conn.execute("SELECT session_id FROM records") if sid not in ran]
            for out in _shared_pass(cfg, jobs, earlier, unsettled, request.workers):
                writer.put(out)
                if out.row is not None:
                    projects.add(out.row.project)
            if not unsettled:
                shared_passed = shared_now
    finally:  # what finished is kept, even when Ctrl-C stops the rest
        writer.commit()
    if shared_passed:
        with vaultdb.transaction(conn):
            vaultdb.set_meta(conn, SHARED_PASSED, str(shared_passed))
    watcher.close()
    # A folder with a session that failed, or that a worker found excluded,
    # is planned session by session again next time.
    for job in jobs:
        if job.session_id in unsettled:
            for key in list(listed):
                if job.transcript.startswith(key + os.sep):
                    del listed[key]
    # What the jobs were (a tenth of a kB a session) is not needed past here:
    # freed before the index notes are made, it is not part of the peak.
    processed = bool(jobs)
    jobs.clear()
    sizes.clear()
    if gone:
        from vibe_vault.session import Store, forget_files

        store = Store(cfg.state_dir)
        for sid in gone:
            was = known.get(sid)
            # left by a hook (an excluded project): `vv forget` removes its own
            forget_files(cfg, store, sid, was.note if was else "", keep_user_words=True)
        projects |= registry.remove(cfg, gone)
    first = (not conn.execute("SELECT 1 FROM records LIMIT 1").fetchone()
             or not os.path.exists(os.path.join(cfg.vault, "index.md")))
    if gone or processed or first or staged:
        with vaultdb.transaction(conn):
            registry.set_owners(conn, owners_found)
        from vibe_vault import index

        if owed:
            watcher.phase(f"writing the notes of {len(owed):,} sessions, with their links")
        count = len(owed)
        summary.index_notes_written = index.regenerate(cfg, None if first else projects,
                                                       conn=conn, owed=owed, index_rows=True)
        summary.written += count - len(owed)
        for sid in sorted(owed):  # (its lock held past the pass: the next run writes it)
            summary.failed += 1
            summary.errors.append(f"session {sid}: its note is left to the next run")
        for folder in sorted(folders):
            sweep_temp_files(os.path.join(cfg.vault, folder))
    vanished = [key for key in marks.folders if key not in listed and key not in passed]
    if request.prune and (listed or vanished or not passed):
        # The sessions of folders passed over are there as marked; pruning has
        # nothing new to find when every folder was (files deleted change the
        # digest of their folder, or its mark is left without a folder).
        there = set(found)
        for key in passed:
            there.update(registry.sessions_under(conn, key))
        missing = [row[0] for row in conn.execute("SELECT session_id FROM records")
                   if row[0] not in there]
        summary.files_pruned = prune_finished(cfg, conn, missing)
        if not request.dry_run:
            summary.written += write_gone_notes(cfg, conn, missing)
        # Last, not first: ext4 looks past every recently deleted inode at each
        # create, and an upgrade may leave one lock file per session ever seen.
        from vibe_vault.lock import sweep_session_lock_files

        sweep_session_lock_files(cfg.state_dir)
    if plain and (listed or vanished):
        _mark(cfg, conn, marks, tombstones, listed, passed)
    # (only a run over the whole transcripts folder has read every session:
    # `vv backfill <one project's folder>` leaves the others' states old)
    whole = os.path.realpath(cfg.projects_root) in {os.path.realpath(r) for r in roots}
    if stale and whole and not (project or since is not None or request.dry_run
                                or summary.failed):
        with vaultdb.transaction(conn):
            vaultdb.set_meta(conn, STATE_VERSION_KEY, str(STATE_VERSION))
    summary.indexed = _catch_up_search(cfg)
    summary.unknown_entry_types = registry.unknown_counts(conn)
    summary.seconds = round(time.monotonic() - t0, 3)
    return Done(summary)


# How many of the shared keys (shared_secrets) every session known was gone
# over for by a backfill's last pass (_shared_pass).
SHARED_PASSED = "shared_keys_passed"


def _shared_pass(cfg: Config, jobs: list[Job], earlier: list[str], unsettled: set[str],
                 workers: int) -> Iterator[Updated]:
    """The run's sessions again, for the secrets a session of it learned and
    shared (shared_secrets) after they were written: a session is written
    newest first, so one that repeats a secret an older one caught was
    written before the secret was known; and the `earlier` runs' sessions,
    for those a hook shared since the last pass. Each whose state held one
    is scrubbed of it and written again (the others are only read); what
    each wrote, for its rows."""
    again = [Job(j.session_id, j.transcript, j.agent_files, False, j.idle_before, False, False,
                 j.links, j.defer_note, shared_only=True)
             for j in jobs if j.session_id not in unsettled]
    again += [Job(sid, "", [], False, 0.0, False, False, shared_only=True) for sid in earlier]
    for _, out, _ in _run_jobs(cfg, again, workers):
        if out is not None and out.row is not None:
            yield out


def _catch_up_search(cfg: Config) -> int:
    """Bring the search index up to date with every session's state."""
    import sqlite3

    from vibe_vault import vaultdb
    from vibe_vault.log import warn

    try:
        conn = vaultdb.ready(cfg.state_dir)
        vaultdb.purge_soon(conn, cfg)
    except (sqlite3.Error, OSError) as exc:
        warn(cfg.state_dir, f"backfill: search index not updated ({exc}); vv search will")
        return 0
    try:
        return conn.execute("SELECT count(*) FROM sessions").fetchone()[0]  # type: ignore[no-any-return]
    finally:
        conn.close()


class _Listed:
    """A folder planned session by session: what its mark will say."""

    __slots__ = ("files", "forgotten", "sessions", "skipped")

    def __init__(self, files: str) -> None:
        self.files = files
        self.sessions = 0
        self.forgotten = 0
        self.skipped: dict[str, int] = {}


def _mark(cfg: Config, conn: Any, marks: Any, tombstones: str, listed: dict[str, _Listed],
          passed: list[str]) -> None:
    """Save the marks of the folders passed over and of those planned this run
    that are now settled (folder_marks): what is due of each and where its
    notes are, read from the database as the run left it."""
    from vibe_vault import folder_marks, registry

    new = folder_marks.Marks(tombstones=tombstones)
    for key in passed:
        new.folders[folder_key(key)] = marks.folders[folder_key(key)]
    for key, seen in sorted(listed.items()):
        newest: dict[str, int] = {}
        stamps_now = registry.stamps_under(conn, key)
        for sid, _, mtime, _ in stamps_now.values():
            newest[sid] = max(newest.get(sid, 0), mtime)
        idle_at: float | None = None
        expected: dict[str, set[str]] = {}
        for sid, (_, status, ended, has_note, note) in registry.brief_under(conn, key).items():
            if status == "active":
                due = min(newest.get(sid, 0) / 1e9, _epoch(ended))
                idle_at = due if idle_at is None else min(idle_at, due)
            if has_note:
                folder, _, name = note.rpartition("/")
                expected.setdefault(folder, set()).add(name)
        stamps = folder_marks.check_notes(cfg.vault, expected)
        if stamps is None:
            continue  # a note gone meanwhile: planned again next time
        new.folders[folder_key(key)] = folder_marks.Mark(
            seen.files, len(stamps_now), seen.sessions, seen.forgotten, dict(seen.skipped), idle_at,
            [(folder, *stamps[folder]) for folder in sorted(stamps)])
    folder_marks.save(conn, new)


def _folder_unchanged(walked: list[tuple[str, os.stat_result]],
                      stamps: dict[str, tuple[str, int, int, int]],
                      rows: dict[str, tuple[str, str, str, bool, str]], buried: set[str],
                      notes: _NoteFolders, idle_before: float) -> bool:
    """Whether a folder needs no work: its .jsonl files (as stat_tree found
    them) are exactly the files the registry has read, each as it was (size,
    time, inode), no session is forgotten, due to be marked idle, or missing
    its note. No path parsed, no file opened."""
    from vibe_vault.paths import safe_id

    if not stamps:
        return False
    seen = 0
    newest: dict[str, int] = {}  # session -> its files' latest mtime
    for path, st in walked:
        was = stamps.get(file_key(path))
        if was is None:
            return False
        if (was[1], was[2], was[3]) != (st.st_size, st.st_mtime_ns, st.st_ino):
            return False
        seen += 1
        newest[was[0]] = max(newest.get(was[0], 0), st.st_mtime_ns)
    if seen != len(stamps):  # a file gone, or in a folder that cannot be read
        return False
    for sid, (_, status, ended, has_note, note) in rows.items():
        if (buried and safe_id(sid) in buried) or (has_note and not notes.exists(note)):
            return False
        if status == "active" and min(newest.get(sid, 0) / 1e9, _epoch(ended)) < idle_before:
            return False  # to be marked idle
    return True


class _NoteFolders:
    """Whether notes exist, from one listing per folder rather than a stat per note."""

    def __init__(self, vault: str) -> None:
        self.vault = vault
        self.listed: dict[str, set[str]] = {}

    def exists(self, note: str) -> bool:
        folder, _, name = note.rpartition("/")
        names = self.listed.get(folder)
        if names is None:
            try:
                names = set(os.listdir(os.path.join(self.vault, *folder.split("/"))))
            except OSError:
                names = set()
            self.listed[folder] = names
        return name in names


def write_gone_notes(cfg: Config, conn: Any, missing: list[str]) -> int:
    """Write again, from its saved state, the note of each session whose
    transcript files are all gone and whose note is no longer in the vault:
    the state holds all the note says, and a first backfill of the same home
    (its transcripts still there) would write it. How many were written."""
    from vibe_vault import registry
    from vibe_vault.lock import LockTimeout
    from vibe_vault.session import Store, Update, update_session

    store = Store(cfg.state_dir)
    written = 0
    for sid in missing:
        rec = registry.get(conn, sid)
        if (rec is None or not rec.note or not rec.files
                or os.path.exists(os.path.join(cfg.vault, *rec.note.split("/")))
                or not os.path.exists(store.state_path(sid))):
            continue
        transcript = store.transcript_of(sid)
        if not transcript or os.path.exists(transcript):
            continue
        try:
            out = update_session(cfg, Update(session_id=sid, transcript=transcript,
                                             agent_files=[], gone=True), store)
        except (LockTimeout, OSError):
            continue  # written by the next run
        written += bool(out.note)
    return written


def prune_finished(cfg: Config, conn: Any, missing: list[str]) -> int:
    """Drop the lock and journal files of sessions whose transcript files are
    all gone (Claude Code deletes them after 30 days): no hook will come for
    them again. Their state stays: the search index and the vault's database
    are built from the states, and old sessions are the ones people search for.
    """
    from vibe_vault import registry
    from vibe_vault.session import Store

    store = Store(cfg.state_dir)
    pruned = 0
    for sid in missing:  # sessions the registry knows and the transcripts folder no longer has
        left = [p for p in (store.journal_path(sid), store.legacy_lock_path(sid))
                if os.path.lexists(p)]
        if not left:
            continue
        rec = registry.get(conn, sid)
        if rec is None or not rec.files:
            continue
        transcript = store.transcript_of(sid)
        if transcript and os.path.exists(transcript):
            continue
        for path in left:
            try:
                os.unlink(path)
                pruned += 1
            except OSError:
                continue
    return pruned


def _predict_links(conn: Any, jobs: list[Job], known: dict[str, Known], workers: int) -> None:
    """Give each job the links its note will most likely carry, so a cold backfill
    writes each note once. A new session's start and project come from its first
    lines, by the rules the fold uses; the link pass at the end corrects any
    guess that was wrong (a session that turns out to have no note, say).
    Only the projects the jobs are in are read."""
    from vibe_vault import registry
    from vibe_vault.links import compute_links
    from vibe_vault.project import project_name
    from vibe_vault.times import utc_iso
    from vibe_vault.vault import note_relpath

    # First what each job is (a few strings), then one project at a time its
    # records: memory follows the largest project, not the number of jobs.
    # The first lines are taken as they come, each Start dropped once read
    # (held all at once, with their strings, they were ~20 MB of a first
    # backfill's peak at 100,000 sessions).
    # project -> (job, its guessed note, its start); a known session's note
    # and start are its record's, read with the project's records below
    by_project: dict[str, list[tuple[Job, str, str]]] = {}
    new: list[Job] = []  # sessions with no note yet
    for job in jobs:
        rec = known.get(job.session_id)
        if rec is not None and rec.note and rec.has_note:
            by_project.setdefault(rec.project, []).append((job, "", ""))
        else:
            new.append(job)
    for job, start in zip(new, _sniffs([job.transcript for job in new], workers), strict=True):
        first_ts = start.first_ts
        if not first_ts or not start.answered:
            continue  # no note to link to (its neighbours link past it)
        project = project_name(start.cwd)  # (remembered by cwd: most share a few folders)
        by_project.setdefault(project, []).append(
            (job, note_relpath(project, job.session_id, first_ts), utc_iso(first_ts)))
    new.clear()
    for project in sorted(by_project):
        records = registry.of_projects(conn, [project])
        these = by_project.pop(project)
        for job, note, started in these:
            if note and job.session_id not in records:
                # Guesses share the empty lists and dicts of one blank record
                # (compute_links only reads them): ten containers a session,
                # ~9 MB of a project of 12,500 new sessions.
                records[job.session_id] = replace(_GUESS, session_id=job.session_id,
                                                  project=project, note=note, started=started)
        links = compute_links(records, registry.tellers(conn, [project]))
        for job, _, _ in these:
            job.links = links.get(job.session_id)
        del records, links, these


_GUESS = Record(session_id="", has_note=True)  # what a guess is, but its id, project, note, start


SNIFF_CHUNK = 256  # transcripts a worker sniffs per job: each takes ~20 µs


def _sniff_all(paths: list[str], workers: int) -> list[Start]:
    """sniff_start of each transcript, in their order (see _sniffs)."""
    return list(_sniffs(paths, workers))


def _sniffs(paths: list[str], workers: int) -> Iterator[Start]:
    """sniff_start of each transcript, in their order, as they come; spread
    over the cores when there are many (the first backfill of a large
    history: a few seconds on one core, with every other core waiting for
    the jobs)."""
    from vibe_vault import workers as w
    from vibe_vault.discover import Start, sniff_start

    count = workers if workers > 0 else (os.cpu_count() or 1)
    if count <= 1 or len(paths) < 4 * SNIFF_CHUNK or not w.available():
        for p in paths:
            yield sniff_start(p)
        return
    chunks = [paths[i : i + SNIFF_CHUNK] for i in range(0, len(paths), SNIFF_CHUNK)]
    # A chunk whose worker failed gets no guesses: the link pass at the end sets them.
    for starts in w.in_order(_sniff_chunk, chunks, count, list[Start],
                             again=lambda chunk: [Start()] * len(chunk)):
        yield from starts


def _sniff_chunk(paths: list[str]) -> list[Start]:
    from vibe_vault.discover import sniff_start

    return [sniff_start(p) for p in paths]


def _run_jobs(cfg: Config, jobs: list[Job], n: int) -> Iterator[tuple[str, Updated | None, str]]:
    """(session id, Updated or None, error) for each job, as they finish."""
    from vibe_vault import workers as w

    count = n if n > 0 else (os.cpu_count() or 1)
    _init(cfg)  # forked workers inherit it
    if count <= 1 or len(jobs) < 4:
        for job in jobs:
            yield _work(job)
        return
    if not w.available():  # Windows: no fork; each worker starts afresh
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(
                min(count, len(jobs)), initializer=_init, initargs=(cfg,)) as pool:
            yield from pool.imap_unordered(_work, jobs, chunksize=1)
        return
    from vibe_vault.session import Updated, name_updated_types

    name_updated_types()  # (the workers' outcomes are decoded here)
    for i, result, error in w.run_forked(_work, jobs, count, tuple[str, Updated | None, str]):
        yield result if result is not None else (jobs[i].session_id, None, error)

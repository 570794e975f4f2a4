"""`vv forget SESSION_ID... | --project NAME`: remove every trace of sessions.

Their notes, states, registry records, archive copies and index entries go,
and a tombstone stays, so neither a hook nor a backfill brings them back.
"""

from __future__ import annotations

import argparse
import os
import sys

from vibe_vault.config import Config
from vibe_vault.helpformat import Formatter


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "forget",
        help="remove every trace of sessions, for good",
        description="Remove the notes, saved state, registry records, archive copies and "
        "index entries of the given sessions (or of every session of a project), and leave "
        "a tombstone so that hooks and backfill never write them again. The transcripts "
        "themselves are Claude Code's and are left alone.",
        epilog="examples:\n  vv forget 2c5941bd-b9de-41d6-9414-221d175776f7\n"
        "  vv forget 2c5941bd                # the 8-character id in note names\n"
        "  vv forget --project secret-client --dry-run",
        formatter_class=Formatter,
    )
    p.add_argument("sessions", nargs="*", metavar="SESSION_ID",
                   help="full session ids, or their first 8 characters")
    p.add_argument("--project", metavar="NAME", help="every session of this project")
    p.add_argument("--dry-run", action="store_true", help="list what would go; remove nothing")
    p.set_defaults(func=run)


FORGET_LOCK_SECONDS = 30.0  # a backfill holds a session for well under a second


def run(args: argparse.Namespace, cfg: Config) -> int:
    from vibe_vault import archive, index, privacy, registry, vault
    from vibe_vault.session import Store, forget_files
    from vibe_vault.session_ids import (
        SHORT,
        AmbiguousSession,
        SessionNotFound,
        pick,
        plausible_id,
        refusal,
    )

    if not args.sessions and not args.project:
        print("vv: name the sessions to forget, or --project NAME", file=sys.stderr)
        return 2
    bad = [g for g in args.sessions if not plausible_id(g)]
    if bad:
        print(refusal(bad[0]), file=sys.stderr)
        return 2
    reg = registry.load(cfg)
    known = set(reg.sessions)
    wanted: set[str] = set()
    for given in args.sessions:
        try:
            # forgetting is for good: a short id names a session only with 8 characters
            wanted.add(pick(given, known, shortest=SHORT))
        except AmbiguousSession as exc:
            print(f"vv: {exc}", file=sys.stderr)
            return 2
        except SessionNotFound:
            wanted.add(given)  # unknown to the registry: its traces elsewhere still go
    if args.project:
        wanted |= {s for s, rec in reg.sessions.items() if rec.project == args.project}
        if not wanted:
            print(f"vv: no session of a project called {args.project!r}", file=sys.stderr)
            return 2
    from vibe_vault.lock import LockTimeout, SessionLock

    store = Store(cfg.state_dir)
    if not args.dry_run:
        store.ensure()  # its locks folder
    status = 0
    projects = {reg.sessions[s].project for s in wanted if s in reg.sessions}
    for sid in sorted(wanted):
        rec = reg.sessions.get(sid)
        state = store.load(sid)
        note = (rec.note if rec else "") or (state.note if state else "")
        if args.dry_run:
            where = [p for p in (note and f"{cfg.vault}/{note}", store.state_path(sid),
                                 str(archive.archive_root(cfg) / sid)) if p]
            print(f"would forget {sid}: " + ", ".join(where))
            continue
        # The tombstone first, then the files under the session's lock: a hook
        # (or backfill, reprocess) holding the lock now finishes before the
        # files go, and one taking it later finds the tombstone and writes nothing.
        privacy.bury(cfg.state_dir, sid)
        try:
            with SessionLock(store.lock_path(sid), FORGET_LOCK_SECONDS):
                state = store.load(sid) or state
                note = (rec.note if rec else "") or (state.note if state else "")
                removed = forget_files(cfg, store, sid, note)
        except LockTimeout:
            print(f"vv: session {sid} is busy (a hook or backfill holds it); its tombstone "
                  "is left, run vv forget again to remove its files", file=sys.stderr)
            status = 1
            continue
        print(f"forgot {sid} ({len(removed)} files removed)")
    if args.dry_run:
        return 0
    privacy.scrub_logs(cfg.state_dir, wanted)
    registry.remove(cfg, wanted)
    from vibe_vault import vaultdb

    vaultdb.forget(cfg.state_dir)
    index.regenerate(cfg, projects)
    with registry.opened(cfg) as conn:
        left = {p for p in projects if conn.execute(
            "SELECT 1 FROM records WHERE project = ? AND has_note LIMIT 1", (p,)).fetchone()}
    for project in projects - left:  # a project note with no session left goes too
        note = vault.project_note_path(project)
        privacy.remove_quietly(os.path.join(cfg.vault, *note.split("/")))
    return status

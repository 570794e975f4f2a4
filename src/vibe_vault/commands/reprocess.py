"""`vv reprocess [SESSION_ID ...]`: rebuild notes from scratch.

The saved state is discarded and the transcript read again from byte 0, or,
when Claude Code has already deleted it, the archive. The note keeps its path
and the user's section.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from vibe_vault.config import Config
from vibe_vault.helpformat import Formatter


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "reprocess",
        help="rebuild notes from scratch (from the archive if the transcript is gone)",
        description="Discard the saved state of the given sessions (default: every session "
        "in the registry) and rebuild their notes from the transcript, or from the archive "
        "when the transcript has been deleted. Your own section of each note is kept.",
        epilog="examples:\n  vv reprocess 2c5941bd-b9de-41d6-9414-221d175776f7\n  vv reprocess",
        formatter_class=Formatter,
    )
    p.add_argument("sessions", nargs="*", metavar="SESSION_ID",
                   help="full session ids, or their first characters (the short id in a "
                   "note's name)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, cfg: Config) -> int:
    from vibe_vault import archive, index, registry, shared_secrets
    from vibe_vault.discover import discover
    from vibe_vault.lock import LockTimeout
    from vibe_vault.regular import NotAFile
    from vibe_vault.session import Store, Update, update_session

    moved = archive.move_out_of_vault(cfg)
    if moved:
        print(f"vv: {moved}", file=sys.stderr)
    reg = registry.load(cfg)
    from vibe_vault.session_ids import (
        AmbiguousSession,
        SessionNotFound,
        pick,
        plausible_id,
        refusal,
    )

    bad = [g for g in args.sessions if not plausible_id(g)]
    if bad:
        print(refusal(bad[0]), file=sys.stderr)
        return 2
    wanted = []
    for given in args.sessions:
        try:
            wanted.append(pick(given, reg.sessions))
        except AmbiguousSession as exc:
            print(f"vv: {exc}", file=sys.stderr)
            return 2
        except SessionNotFound:
            wanted.append(given)  # perhaps a transcript not processed yet
    wanted = wanted or sorted(reg.sessions)
    if not wanted:
        print("vv: no sessions known yet; run vv backfill first", file=sys.stderr)
        return 2
    found = {}
    if Path(cfg.projects_root).exists():
        sources, _ = discover([Path(cfg.projects_root)], reg.agent_owners)
        found = {s.session_id: s for s in sources}
    failed = done = 0
    records = {}
    shared_before = len(shared_secrets.load(cfg.state_dir))
    rebuilt: list[tuple[str, str, list[str]]] = []
    for sid in wanted:
        src = found.get(sid)
        tmp: str | None = None
        main: Path | None = None
        agents: list[Path] = []
        rec = reg.sessions.get(sid)
        if src is not None:
            main, agents = Path(src.main), [Path(a) for a in src.agents]
        elif rec is not None and (kept := Store(cfg.state_dir).transcript_of(sid)) and (
                there := next((s for s in discover(
                    [Path(kept), Path(kept).with_suffix("")], reg.agent_owners)[0]
                               if s.session_id == sid), None)) is not None:
            # a transcript outside the projects folder, where the state saw it
            # (and its subagents, in its own folder beside it)
            main, agents = Path(there.main), [Path(a) for a in there.agents]
        else:
            tmp = archive.temp_dir(cfg)
            try:
                restored = archive.restore(cfg, sid, Path(tmp))
            except OSError as exc:
                print(f"vv: {sid}: archive: {exc.strerror or exc}", file=sys.stderr)
                restored = None
            if restored is not None:
                main, agents = restored
        if main is None:
            print(f"vv: {sid}: no transcript and no archive", file=sys.stderr)
            failed += 1
            continue
        try:
            out = update_session(cfg, Update(
                session_id=sid, transcript=str(main), agent_files=[str(a) for a in agents],
                fresh=True, lock_timeout=30.0, want_record=True))
        except (LockTimeout, NotAFile, OSError) as exc:
            print(f"vv: {sid}: {exc}", file=sys.stderr)
            failed += 1
            continue
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
        if out.record is not None:
            if tmp is not None and rec is not None:
                out.record.files = rec.files  # still the original transcript's identity
            records[sid] = out.record
        done += 1
        rebuilt.append((sid, str(main), [str(a) for a in agents]))
        print(f"{sid}: {'rebuilt ' + out.note if out.note else 'no note (nothing asked)'}"
              + (" (from the archive)" if tmp is not None else ""))
    if len(shared_secrets.load(cfg.state_dir)) > shared_before:
        # A secret a later session taught (shared_secrets), out of the earlier
        # ones too: each is read from byte 0 in turn, in no order of theirs.
        for sid, main_path, agent_paths in rebuilt:
            try:
                out = update_session(cfg, Update(
                    session_id=sid, transcript=main_path, agent_files=agent_paths,
                    lock_timeout=30.0, want_record=True, shared_only=True, gone=True))
            except (LockTimeout, NotAFile, OSError) as exc:
                print(f"vv: {sid}: {exc}", file=sys.stderr)
                failed += 1
                continue
            if out.record is not None:
                if sid in records:
                    out.record.files = records[sid].files
                records[sid] = out.record
    registry.merge(cfg, records)
    # the projects the sessions were in, and are in now
    projects = {r.project for r in records.values()} | {
        reg.sessions[sid].project for sid in records if sid in reg.sessions}
    index.regenerate(cfg, projects)
    return 1 if failed else 0

"""`vv archive`: keep a compressed copy of every transcript, appending only what is new."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from vibe_vault.config import Config
from vibe_vault.helpformat import Formatter


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "archive",
        help="keep compressed copies of transcripts (Claude Code deletes them after 30 days)",
        description="Append the bytes each transcript (and its subagent files) gained since "
        "the last run to a gzip archive under the state directory (or archive_dir). The "
        "archive holds raw transcripts, secrets included: keep it out of synced folders. "
        "Safe to run from cron or a hook. `vv reprocess` rebuilds notes from it.",
        epilog="examples:\n  vv archive\n  vv archive --verify\n"
        "  vv archive --repair\n"
        "  vv archive 1af7fc5e-...   # one session, by its id\n"
        "  vv backfill --archive     # notes and archive in one pass",
        formatter_class=Formatter,
    )
    p.add_argument("paths", nargs="*", type=Path,
                   help="transcript files or directories, or session ids")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--verify", action="store_true",
                      help="check every archived file, changing nothing: it must decompress "
                      "whole, and match its transcript while that is still there")
    mode.add_argument("--repair", action="store_true",
                      help="cut damaged archive files after their last whole part, then "
                      "archive again what the transcripts still hold")
    mode.add_argument("--pending", action="store_true",
                      help="finish the archive runs SessionEnd hooks handed on or were "
                      "stopped in (what the hooks start in the background)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, cfg: Config) -> int:
    from vibe_vault import archive
    from vibe_vault.discover import discover, transcript_roots

    moved = archive.move_out_of_vault(cfg)
    if moved:
        print(f"vv: {moved}", file=sys.stderr)
    if args.pending:
        total, problems = archive.finish_pending(cfg)
        for line in problems:
            print(f"vv: {line}", file=sys.stderr)
        print(f"archived {total / 1e6:.1f} MB the hooks left")
        return 1 if problems else 0
    paths, sids = _paths_or_ids(args.paths, cfg)
    if paths is None:
        return 2
    roots = transcript_roots(paths, cfg.projects_root) if paths or not sids else []
    if roots is None:
        return 2
    sources, _ = discover(roots)
    if sids:
        sources += sids
    if args.verify:
        return _verify(cfg, sources)
    if args.repair:
        for sid in archive.archived_sessions(cfg):
            for line in archive.repair(cfg, sid):
                print(f"repaired {line}")
    total = 0
    failed = 0
    for src in sources:
        try:
            total += archive.archive_files(cfg, src.session_id,
                                           archive.session_files(src.main, src.agents))
        except OSError as exc:
            print(f"vv: {src.session_id}: {exc.filename or ''} {exc.strerror or exc}".strip(),
                  file=sys.stderr)
            failed += 1
    if not args.paths:
        archive.finish_pending(cfg)  # every session was just archived: no marker is owed
    print(f"{len(sources)} sessions archived: {total / 1e6:.1f} MB new, "
          f"in {archive.archive_root(cfg)}" + (f"; {failed} failed" if failed else ""))
    return 1 if failed else 0


def _verify(cfg: Config, sources: list[Any]) -> int:
    from vibe_vault import archive

    by_session = {s.session_id: s for s in sources}
    files = size = 0
    problems: list[str] = []
    for sid in sorted(set(archive.archived_sessions(cfg)) | set(by_session)):
        src = by_session.get(sid)
        current = ({archive.name_for(p): p for p in archive.session_files(src.main, src.agents)}
                   if src is not None else {})
        check = archive.verify(cfg, sid, current)
        files += check.files
        size += check.bytes
        problems += check.problems
    for line in problems:
        print(f"vv: {line}", file=sys.stderr)
    print(f"verified {files} files, {size:,} bytes in {archive.archive_root(cfg)}"
          + (f"; {len(problems)} problems (vv archive --repair)" if problems else ""))
    return 1 if problems else 0


def _paths_or_ids(given: list[Path], cfg: Config) -> tuple[list[Path] | None, list[Any]]:
    """The arguments that name files or folders, and the sessions (as
    discover's Sources) of those that are session ids; None after saying
    which argument is neither."""
    import re

    from vibe_vault.discover import Source

    paths: list[Path] = []
    sids: list[Any] = []
    for arg in given:
        # (os.path's expanduser: `~name` of no such user stays as typed, where
        # Path.expanduser raises RuntimeError)
        if (Path(os.path.expanduser(arg)).exists()
                or not re.fullmatch(r"[0-9A-Za-z_-]{8,128}", str(arg))):
            paths.append(arg)
            continue
        main = next(Path(cfg.projects_root).glob(f"*/{arg}.jsonl"), None)
        if main is None:
            print(f"vv: no transcript of session {arg} under {cfg.projects_root}",
                  file=sys.stderr)
            return None, []
        sids.append(Source(session_id=str(arg), main=str(main)))
    return paths, sids

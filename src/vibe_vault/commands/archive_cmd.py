"""`vv archive`: keep a compressed copy of every transcript, appending only what is new."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vibe_vault.config import Config


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "archive",
        help="keep compressed copies of transcripts (Claude Code deletes them after 30 days)",
        description="Append the bytes each transcript (and its subagent files) gained since "
        "the last run to a gzip archive under <vault>/.vibe-vault/archive (or archive_dir). "
        "Safe to run from cron or a hook. `vv reprocess` rebuilds notes from it.",
        epilog="examples:\n  vv archive\n  vv archive --verify\n"
        "  vv backfill --archive     # notes and archive in one pass",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="*", type=Path, help="transcript files or directories")
    p.add_argument("--verify", action="store_true",
                   help="check that each archive decompresses to the transcript's bytes")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, cfg: Config) -> int:
    from vibe_vault import archive
    from vibe_vault.discover import discover, transcript_roots

    roots = transcript_roots(args.paths, cfg.projects_root)
    if roots is None:
        return 2
    sources, _ = discover(roots)
    total = 0
    bad = 0
    for src in sources:
        files = [src.main, *src.agents]
        total += archive.archive_files(cfg, src.session_id, files)
        if args.verify and not archive.verify(cfg, src.session_id, files):
            print(f"vv: archive of {src.session_id} does not match its transcript",
                  file=sys.stderr)
            bad += 1
    print(f"{len(sources)} sessions archived: {total / 1e6:.1f} MB new, "
          f"in {archive.archive_root(cfg)}" + (f"; {bad} failed verification" if bad else ""))
    return 1 if bad else 0

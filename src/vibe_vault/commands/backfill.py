"""`vv backfill [PATH ...]`: a note for every session found, through the same
reader, fold and renderer as the hook."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from vibe_vault.config import Config


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "backfill",
        help="write notes for every past session",
        description="Write or update a note for every session under the given paths "
        "(default: Claude Code's transcripts directory). Unchanged sessions are skipped.",
        epilog="examples:\n  vv backfill\n  vv backfill ~/.claude/projects/-home-me-myapp\n"
        "  vv backfill --force",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="*", type=Path, help="transcript files or directories")
    p.add_argument("--force", action="store_true", help="re-read every transcript from byte 0")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, cfg: Config) -> int:
    from vibe_vault.discover import discover
    from vibe_vault.lock import LockTimeout
    from vibe_vault.log import warn
    from vibe_vault.session import NotAFile, Store, update_session

    roots = [p.expanduser() for p in args.paths] or [cfg.projects_root]
    missing = [str(r) for r in roots if not r.exists()]
    if missing:
        print(f"vv: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    sources, skipped = discover(roots)
    store = Store(cfg.state_dir)
    from vibe_vault.atomic import sweep_temp_files

    sweep_temp_files(cfg.state_dir / "sessions")  # left by a writer that was killed
    note_dirs: set[Path] = set()
    written = unchanged = no_note = failed = 0
    nbytes = 0
    for src in sources:
        try:
            out = update_session(cfg, src.session_id, src.main, agent_files=src.agents,
                                 fresh=args.force, lock_timeout=30.0, store=store)
        except LockTimeout:
            failed += 1
            warn(cfg.state_dir, f"backfill: session {src.session_id} stayed locked; skipped")
            continue
        except (NotAFile, OSError) as exc:
            failed += 1
            warn(cfg.state_dir, f"backfill: {src.main}: {exc}")
            continue
        nbytes += out.bytes_read
        if out.note:
            note_dirs.add(cfg.vault / out.note)
        if not out.has_note:
            no_note += 1
        elif out.wrote:
            written += 1
        else:
            unchanged += 1
    for d in {p.parent for p in note_dirs}:
        sweep_temp_files(d)
    seconds = time.monotonic() - t0
    summary = {
        "sessions": len(sources),
        "written": written,
        "unchanged": unchanged,
        "without_note": no_note,
        "failed": failed,
        "skipped_files": skipped,
        "bytes": nbytes,
        "seconds": round(seconds, 3),
    }
    if args.json:
        import msgspec

        sys.stdout.write(msgspec.json.encode(summary).decode() + "\n")
    else:
        print(
            f"{len(sources)} sessions: {written} notes written, {unchanged} unchanged, "
            f"{no_note} without a note (no assistant reply), {failed} failed; "
            f"{nbytes / 1e6:.1f} MB in {seconds:.2f}s"
        )
    return 1 if failed else 0

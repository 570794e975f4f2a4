"""`vv resume SESSION`: how to pick a session up again in Claude Code."""

from __future__ import annotations

import argparse
import os
import shutil
import sys

from vibe_vault.config import Config
from vibe_vault.helpformat import Formatter


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "resume",
        help="print the command that resumes a session (or run it)",
        description="Print `cd <folder> && claude --resume <id>` for a session named by its "
        "id or the first characters of it; with --exec, run it.",
        epilog="examples:\n  vv resume 1af7fc5e\n  vv resume 1af7fc5e --exec",
        formatter_class=Formatter,
    )
    p.add_argument("session", metavar="SESSION")
    p.add_argument("--exec", action="store_true",
                   help="start `claude --resume` in the session's folder instead of printing")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, cfg: Config) -> int:
    from vibe_vault.commands.search import session_named
    from vibe_vault.resume import resume_command
    from vibe_vault.text import terminal_safe

    hit, code = session_named(cfg, args.session)
    if hit is None:
        return code
    if not args.exec:
        print(terminal_safe(resume_command(hit.cwd, hit.session_id)))
        return 0
    if hit.cwd and not os.path.isdir(hit.cwd):
        print(f"vv: the session's folder {terminal_safe(hit.cwd)} is gone", file=sys.stderr)
        return 1
    claude = shutil.which("claude")
    if claude is None:
        print("vv: claude is not on PATH", file=sys.stderr)
        return 1
    if not _transcript_there(cfg, hit.session_id) and not _offer_restore(cfg, hit.session_id):
        return 1
    if hit.cwd:
        os.chdir(hit.cwd)
    sys.stdout.flush()
    os.execv(claude, [claude, "--resume", hit.session_id])


def _transcript_there(cfg: Config, sid: str) -> bool:
    import glob

    return bool(glob.glob(os.path.join(glob.escape(cfg.projects_root), "*",
                                       f"{glob.escape(sid)}.jsonl")))


def _offer_restore(cfg: Config, sid: str) -> bool:
    """Claude Code deleted the transcript: offer to put it back from the
    archive; whether the session can be resumed now."""
    from vibe_vault import archive
    from vibe_vault.commands.restore import restore_session
    from vibe_vault.text import terminal_safe

    if sid not in archive.archived_sessions(cfg):
        print(f"vv: Claude Code has deleted session {terminal_safe(sid)} and the archive has "
              "no copy of it", file=sys.stderr)
        return False
    print(f"Claude Code has deleted session {terminal_safe(sid)}; the archive has a copy. "
          "Restore it first? [Y/n] ", end="", file=sys.stderr, flush=True)
    try:
        answer = sys.stdin.readline()
    except (OSError, ValueError):
        answer = ""
    if not answer or answer.strip().lower() not in ("", "y", "yes"):
        print(f"vv: not restored (vv restore {terminal_safe(sid)} does it)", file=sys.stderr)
        return False
    out = restore_session(cfg, sid)
    if out.refused:
        print(f"vv: {terminal_safe(sid)}: {terminal_safe(out.refused)}", file=sys.stderr)
        return False
    print(f"restored {len(out.written)} files in {terminal_safe(out.folder)}", file=sys.stderr)
    return True

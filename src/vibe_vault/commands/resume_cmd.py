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
    if hit.cwd:
        os.chdir(hit.cwd)
    sys.stdout.flush()
    os.execv(claude, [claude, "--resume", hit.session_id])

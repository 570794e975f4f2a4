"""`vv files PATH`: every session that changed a file, newest first (the same
as `vv search --file PATH`)."""

from __future__ import annotations

import argparse

from vibe_vault.commands import search
from vibe_vault.config import Config
from vibe_vault.helpformat import Formatter


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "files",
        help="every session that changed a file, newest first",
        description="Every session that changed PATH (by Claude or one of its subagents), "
        "newest first, with the lines added and removed and the commit that holds the change. "
        "PATH may be absolute, or relative to here or to the top of this repository.",
        epilog="examples:\n  vv files src/auth.py\n  vv files ~/notes/todo.md --json",
        formatter_class=Formatter,
    )
    p.add_argument("path", metavar="PATH")
    search.add_filters(p)
    p.add_argument("--open", action="store_true", help="open the newest session's note")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, cfg: Config) -> int:
    return search.file_history(args, cfg, args.path)

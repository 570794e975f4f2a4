"""`vv show SESSION`: print a session's note."""

from __future__ import annotations

import argparse
import os
import sys

from vibe_vault.config import Config
from vibe_vault.helpformat import Formatter


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "show",
        help="print a session's note",
        description="Print the note of a session, named by its id or the first characters "
        "of it (the short id in the note's name).",
        epilog="examples:\n  vv show 1af7fc5e\n  vv show 1af7fc5e --path",
        formatter_class=Formatter,
    )
    p.add_argument("session", metavar="SESSION")
    p.add_argument("--path", action="store_true", help="print only the note's path")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, cfg: Config) -> int:
    from vibe_vault.commands.search import session_named
    from vibe_vault.text import terminal_safe

    hit, code = session_named(cfg, args.session)
    if hit is None:
        return code
    path = os.path.join(cfg.vault, *hit.note.split("/"))
    if args.path:
        print(terminal_safe(path))
        return 0
    from vibe_vault.regular import read_text

    try:  # (a FIFO or device in the vault is refused, never waited on)
        text = read_text(path)
    except OSError as exc:
        print(f"vv: cannot read {path}: {exc.strerror or exc} (vv backfill writes it again)",
              file=sys.stderr)
        return 1
    # The note is Markdown for a vault; on a terminal its text must not steer
    # it, and reads as its words, not their escapes (`PR \#89` is `PR #89`).
    if sys.stdout.isatty():
        from vibe_vault.markdown import for_terminal

        text = for_terminal(text)
    sys.stdout.write("\n".join(terminal_safe(line) for line in text.split("\n")))
    return 0

"""`vv hook` as seen by argparse (help text); the work is in `hook.py`."""

from __future__ import annotations

import argparse

from vibe_vault.config import Config


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "hook",
        help="handle a Claude Code hook event (JSON on stdin)",
        description="Read one Claude Code hook event as JSON on stdin and update that "
        "session's note. Always exits 0 and prints nothing on stdout.",
        epilog="example (what Claude Code does):\n"
        "  echo '{\"hook_event_name\":\"Stop\",\"session_id\":\"…\",\"transcript_path\":\"…\"}'"
        " | vv hook",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace, cfg: Config) -> int:
    del args, cfg
    from vibe_vault.commands import hook

    return hook.run()

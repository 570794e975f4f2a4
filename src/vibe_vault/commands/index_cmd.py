"""`vv index`: bring the vault's indexes up to date with sessions that ended.

SessionEnd leaves each ended session's record beside the registry. On a small
vault it folds it in and rewrites the project and home notes itself; on a large
one that would take longer than Claude Code allows, so it starts `vv index` in
the background instead. Backfill does the same work at its end.
"""

from __future__ import annotations

import argparse
import os
import sys

from vibe_vault.config import Config
from vibe_vault.helpformat import Formatter


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "index",
        help="update links, project notes and the home note with sessions that ended",
        description="Fold the records SessionEnd left into the registry, then update the "
        "links between sessions and the project and home notes they touch. SessionEnd "
        "runs this in the background on large vaults; run it by hand any time.",
        epilog="examples:\n  vv index",
        formatter_class=Formatter,
    )
    p.add_argument("--quiet", action="store_true", help="print nothing (for background runs)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, cfg: Config) -> int:
    from vibe_vault import locations
    from vibe_vault.lock import LockTimeout, SessionLock

    os.makedirs(locations.locks_dir(cfg.state_dir), mode=0o700, exist_ok=True)
    try:
        # One indexer at a time; another one started meanwhile leaves its
        # records to this one, which looks again before it stops.
        with SessionLock(locations.lock_file(cfg.state_dir, "index"), 0.0):
            written = update_indexes(cfg)
    except LockTimeout:
        if not args.quiet:
            print("vv: another vv index is running; it will take these sessions too",
                  file=sys.stderr)
        return 0
    if not args.quiet:
        print(f"{written} index notes written")
    return 0


def update_indexes(cfg: Config) -> int:
    """Take staged records in and update what they touch."""
    from vibe_vault import index, registry, vaultdb

    with registry.opened(cfg) as conn:  # takes the staged records in
        projects = set(registry.owed_projects(conn))
        written = index.regenerate(cfg, projects, conn=conn)
        registry.paid(conn, projects)
        # A secret learned late leaves the search index's file (however large).
        vaultdb.purge(conn)
    return written


def start_in_background(cfg: Config) -> None:
    """Run `vv index --quiet` detached from the hook."""
    from vibe_vault.detach import run_detached

    run_detached(cfg, "index", "--quiet")

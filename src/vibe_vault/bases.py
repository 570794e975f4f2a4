"""`Sessions.base`: an Obsidian Bases view of every session note, filterable by
project, status, date and cost.

Written once, when the vault has none: it is the user's to change (Obsidian
rewrites it as they sort and filter), so it is never written over.
"""

from __future__ import annotations

import contextlib
import os

from vibe_vault.atomic import StrPath

BASE_NAME = "Sessions.base"

SESSIONS_BASE = """\
# Written once by vibe-vault and never again: yours to change.
filters:
  and:
    - file.inFolder("Projects")
    - 'type == "session"'
properties:
  title:
    displayName: Session
  project:
    displayName: Project
  started:
    displayName: Started
  status:
    displayName: Status
  duration_minutes:
    displayName: Minutes
  active_minutes:
    displayName: Claude worked (min)
  cost_usd:
    displayName: Cost ($)
  files_changed:
    displayName: Files
  files_committed:
    displayName: Only committed
  commits:
    displayName: Commits
  summary:
    displayName: Summary
views:
  - type: table
    name: All sessions
    order:
      - file.name
      - title
      - project
      - started
      - status
      - active_minutes
      - cost_usd
      - files_changed
      - files_committed
      - commits
    summaries:
      cost_usd: Sum
      active_minutes: Sum
  - type: table
    name: By project
    groupBy:
      property: project
      direction: ASC
    order:
      - file.name
      - title
      - started
      - status
      - cost_usd
      - summary
    summaries:
      cost_usd: Sum
  - type: table
    name: Still active
    filters:
      and:
        - 'status == "active"'
    order:
      - file.name
      - title
      - project
      - started
"""


def write_sessions_base(vault: StrPath) -> bool:
    """Create `Sessions.base` at the vault's root unless something (a file, a
    folder, a link) already has that name; whether it was written."""
    path = os.path.join(os.fspath(vault), BASE_NAME)
    if os.path.lexists(path):
        return False
    temp = f"{path}.vv-{os.getpid()}.tmp"
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     0o644)
        try:
            os.write(fd, SESSIONS_BASE.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            # A link, unlike a rename, never replaces a file the user made meanwhile.
            os.link(temp, path)
        except OSError:
            if os.path.lexists(path):
                return False
            os.rename(temp, path)  # a file system without hard links
        return True
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)

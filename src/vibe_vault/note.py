"""Place a session's note in the vault and write it, keeping the user's section.

The note's path is fixed the first time it is written (start time and a short
session id), so links to it never break; it is always inside the vault, whatever
the transcript says, and never written through a symlink that leads out of it.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from vibe_vault.atomic import write_atomic
from vibe_vault.paths import inside, safe_name
from vibe_vault.render import USER_HEADING, USER_HINT


class OutsideVault(Exception):
    """A note path would leave the vault (a symlink points out of it)."""


def note_relpath(project: str, session_id: str, first_ts: str) -> str:
    """`Projects/<project>/sessions/<YYYY-MM-DD-HHMM>-<id8>.md`, safe on every OS."""
    stamp = "undated"
    if first_ts:
        try:
            dt = datetime.fromisoformat(first_ts).astimezone(UTC)
            stamp = dt.strftime("%Y-%m-%d-%H%M")
        except ValueError:
            pass
    short = safe_name(session_id, 40, "session")[:8]
    name = safe_name(f"{stamp}-{short}", 60) + ".md"
    return f"Projects/{safe_name(project, 60)}/sessions/{name}"


def user_section(existing: str) -> str:
    """What the user wrote below the user heading (with the heading line kept out)."""
    at = existing.find("\n" + USER_HEADING + "\n")
    if at < 0:
        if existing.endswith("\n" + USER_HEADING):
            return ""
        return ""
    rest = existing[at + len(USER_HEADING) + 2 :]
    if rest.startswith(USER_HINT + "\n"):
        rest = rest[len(USER_HINT) + 1 :]
    elif rest.startswith(USER_HINT):
        rest = rest[len(USER_HINT) :]
    return rest


def write_note(vault: str | os.PathLike[str], relpath: str, generated: str) -> bool:
    """Write the note, keeping the user's section; False when nothing changed."""
    path = os.path.join(vault, *relpath.split("/"))
    parent = os.path.dirname(path)
    os.makedirs(parent, exist_ok=True)
    if not inside(vault, parent):
        raise OutsideVault(parent)
    existing = ""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            existing = f.read()
    except FileNotFoundError:
        pass
    if os.path.islink(path):
        raise OutsideVault(path)
    mine = user_section(existing)
    text = generated + mine
    if text == existing:
        return False
    # The user's own words exist nowhere else: make them survive a power cut.
    write_atomic(path, text.encode("utf-8", "surrogateescape"), durable=bool(mine.strip()))
    return True

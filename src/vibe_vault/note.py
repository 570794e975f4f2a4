"""Place a session's note in the vault and write it, keeping the user's section.

The note's path is fixed the first time it is written (start time and a short
session id), so links to it never break; it is always inside the vault, whatever
the transcript says, and never written through a symlink that leads out of it.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from vibe_vault.atomic import StrPath, write_atomic
from vibe_vault.paths import inside, safe_name
from vibe_vault.render import USER_HEADING, USER_HINT


class OutsideVault(Exception):
    """A note path would leave the vault (a symlink points out of it)."""


def note_relpath(project: str, session_id: str, first_ts: str, id_chars: int = 8) -> str:
    """`Projects/<project>/sessions/<YYYY-MM-DD-HHMM>-<id8>.md`, safe on every OS."""
    stamp = "undated"
    if first_ts:
        try:
            dt = datetime.fromisoformat(first_ts).astimezone(UTC)
            stamp = dt.strftime("%Y-%m-%d-%H%M")
        except ValueError:
            pass
    name = safe_name(f"{stamp}-{short_id(session_id, id_chars)}", 60) + ".md"
    return f"Projects/{safe_name(project, 60)}/sessions/{name}"


def short_id(session_id: str, n: int = 8) -> str:
    """The first characters of a UUID-like id; otherwise of a digest of it, since
    ids such as `session-1` and `session-2` share their first eight."""
    head = session_id[:n].lower()
    if len(session_id) >= 32 and all(c in "0123456789abcdef" for c in head):
        return head
    from vibe_vault.paths import _digest

    return _digest(session_id, n)


def owner_of(vault: StrPath, relpath: str) -> str | None:
    """The session_id in an existing note's frontmatter, or None."""
    try:
        with open(os.path.join(vault, *relpath.split("/")), encoding="utf-8",
                  errors="replace") as f:
            head = f.read(4096)
    except OSError:
        return None
    for line in head.split("\n")[1:40]:
        if line == "---":
            break
        if line.startswith("session_id: "):
            value = line[len("session_id: "):].strip()
            if value.startswith('"'):
                import json

                try:
                    return str(json.loads(value))
                except ValueError:
                    return value
            return value
    return None


def free_relpath(vault: StrPath, project: str, session_id: str, first_ts: str) -> str:
    """The note path for a new session; longer ids where a different session's
    note already has the name (two sessions starting in the same minute whose
    ids begin alike)."""
    n = 8
    rel = note_relpath(project, session_id, first_ts, n)
    while (owner := owner_of(vault, rel)) is not None and owner != session_id and n < 40:
        n += 8
        rel = note_relpath(project, session_id, first_ts, n)
    return rel


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


def write_note(vault: StrPath, relpath: str, generated: str) -> bool:
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

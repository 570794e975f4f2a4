"""Where things stand in the vault: the path of every note vibe-vault writes
(a session's, its project's, a day's, the home note) and the markers every
generated note carries around the user's own section.

Pure: names only, no file is touched here (`note.py` writes). The rules that
find the user's heading in a note as people type it live in `text.py`.
"""


import re

from vibe_vault.paths import _digest, safe_name
from vibe_vault.times import note_stamp

USER_HEADING = "## My notes"
USER_HINT = "<!-- Everything below this heading is yours: vibe-vault never changes it. -->"
# Said at the top of every generated note, where a user would start typing.
REWRITE_NOTICE = ("<!-- vibe-vault rewrites this note as the session goes on: anything typed "
                  "above \"## My notes\" is replaced. Write below that heading. -->")

HOME_NOTE = "index.md"


def daily_note_path(day: str) -> str:
    """The note of one day's sessions (`day` is YYYY-MM-DD)."""
    return f"Daily/{day}.md"


def project_folder(project: str) -> str:
    """The folder of a project's notes: a name safe on every OS, without
    backticks (a wikilink's target cannot escape one, and it would pair with
    another backtick on the line into inline code)."""
    folder = _project_folders.get(project)
    if folder is None:
        folder = _project_folders[project] = safe_name(project, 60).replace("`", "'")
    return folder


def project_note_path(project: str) -> str:
    """A project's own note, beside the folder of its sessions' notes."""
    p = project_folder(project)
    return f"Projects/{p}/{p}.md"


def note_relpath(project: str, session_id: str, first_ts: str, id_chars: int = 8) -> str:
    """`Projects/<project>/sessions/<YYYY-MM-DD-HHMM>-<id8>.md`, safe on every OS."""
    stamp = (note_stamp(first_ts) if first_ts else "") or "undated"
    name = f"{stamp}-{short_id(session_id, id_chars)}"
    if not _PLAIN_NAME.match(name) or "--" in name:
        name = safe_name(name, 60)
    return f"Projects/{project_folder(project)}/sessions/{name}.md"


# A stamp and a hex id need no cleaning; a backfill names 100,000 notes in a row.
_PLAIN_NAME = re.compile(r"[0-9a-z][0-9a-z-]{0,58}[0-9a-z]\Z")
_project_folders: dict[str, str] = {}  # a project's folder name: a few projects, many notes


def short_id(session_id: str, n: int = 8) -> str:
    """The first characters of a UUID-like id; otherwise of a digest of it, since
    ids such as `session-1` and `session-2` share their first eight."""
    head = session_id[:n].lower()
    if len(session_id) >= 32 and all(c in "0123456789abcdef" for c in head):
        return head
    return _digest(session_id, n)



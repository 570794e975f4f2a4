"""Where things stand in the vault: the path of every note vibe-vault writes
(a session's, its project's, a day's, the home note) and the markers every
generated note carries around the user's own section.

Pure: names only, no file is touched here (`note.py` writes); and the rules
that find the user's heading in a note however people type it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from vibe_vault import patterns
from vibe_vault.paths import _digest, safe_name
from vibe_vault.text import lazy
from vibe_vault.times import note_stamp

USER_HEADING = "## My notes"
USER_HINT = "<!-- Everything below this heading is yours: vibe-vault never changes it. -->"
# Said at the top of every generated note, where a user would start typing.
REWRITE_NOTICE = ("<!-- vibe-vault rewrites this note as the session goes on: anything typed "
                  "above \"## My notes\" is replaced. Write below that heading. -->")

# The user's heading in a note, however people type it: a heading of any
# level (`# My notes`, `### My Notes:`, `#my notes`) or a bold line
# (`**My notes**`, `__My notes__`), in any case, with trailing punctuation or
# emoji (`## My Notes ✍️`), indented up to three spaces, and read after Unicode
# (NFKC) normalisation, so a non-breaking space, a tab, full-width letters or
# a zero-width space between the words read as the plain words. What is
# below it is theirs: note.py keeps it; snippets leave it out. A line of
# vibe-vault's own text that would read so is escaped with a backslash.
_HEADING_CANDIDATE = patterns.compile(r"[ \t\u00a0]{0,3}(?:#|\*\*|__)[^\n]{0,200}")
# (From the newline: `^` in MULTILINE mode is tried at every character, ~7x slower.)
# A line holding 8 ASCII letters or digits is passed over in the pattern
# itself: the heading's words are 7 ("mynotes"), and no normalisation makes
# fewer word characters of them (no decomposition holds an ASCII letter or
# digit but as its first character, so none is ever composed into another),
# so such a line is never the heading. A note's story headings ("### 14:02 -
# ...", most of them not ASCII) then cost the scan nothing in Python: it was
# ~1.8 M instructions a scan of a 120 kB note, four scans a Stop.
_LINE_START = patterns.compile(
    r"\n(?=[ \t\u00a0#*_])[ \t\u00a0]{0,3}(?:#|\*\*|__)"
    r"(?!(?:[^A-Za-z0-9\n]*[A-Za-z0-9]){8})[^\n]*")
_NOT_WORD = patterns.compile(r"[\W_]+")
USER_HEADING_WORDS = "my notes"
# The heading as vibe-vault writes it and its plainest variants (`## My Notes`,
# `##  my notes`): what the tests look for in a note vibe-vault wrote.
USER_HEADING_LINE = lazy(r"^##[ \t]+my[ \t]+notes[ \t]*\r?$", re.IGNORECASE | re.MULTILINE)


def is_user_heading(line: str) -> bool:
    """Whether a line (no newline) reads as the user's heading (see above)."""
    m = _HEADING_CANDIDATE.fullmatch(line.rstrip("\r"))
    if m is None:
        return False
    words = line if line.isascii() else _nfkc(line)
    words = _NOT_WORD.sub(" ", words.casefold()).strip()
    if words != USER_HEADING_WORDS:
        return False
    bare = line.strip(" \t\u00a0\r")
    if bare.startswith("#"):
        return True
    # A bold line: the markers close it too (what follows them is no word).
    mark = bare[:2]
    return mark in bare[2:]


def _nfkc(line: str) -> str:
    import unicodedata  # (a C module: imported once, when a line is not ASCII)

    return line if unicodedata.is_normalized("NFKC", line) else unicodedata.normalize(
        "NFKC", line)


def user_heading_lines(text: str) -> Iterator[re.Match[str]]:
    """The lines of `text` that read as the user's heading, in order, each as
    the match of the whole line (without its newline). The pattern finds the
    lines that begin with `#`, `**` or `__`; an ASCII one without "notes" is
    passed over at once (a note has dozens of headings and bold lines, and a
    backfill looks at each note twice)."""
    if text[:1] in ("#", "*", "_", " ", "\t", "\u00a0"):
        first = _HEADING_CANDIDATE.match(text)
        if first is not None and first.end() == _line_end(text, 0) \
                and is_user_heading(first.group(0)):
            yield first
    for m in _LINE_START.finditer(text):
        line = m.group(0)[1:]
        if "notes" not in (line.lower() if line.isascii() else _nfkc(line).casefold()):
            continue
        if is_user_heading(line):
            at = m.start() + 1
            found = _HEADING_CANDIDATE.match(text, at, m.end())
            if found is not None:
                yield found


def _line_end(text: str, at: int) -> int:
    nl = text.find("\n", at)
    return len(text) if nl < 0 else nl


def first_user_heading(text: str) -> re.Match[str] | None:
    return next(user_heading_lines(text), None)

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
_PLAIN_NAME = lazy(r"[0-9a-z][0-9a-z-]{0,58}[0-9a-z]\Z")
_project_folders: dict[str, str] = {}  # a project's folder name: a few projects, many notes


def short_id(session_id: str, n: int = 8) -> str:
    """The first characters of a UUID-like id; otherwise of a digest of it, since
    ids such as `session-1` and `session-2` share their first eight."""
    head = session_id[:n].lower()
    if len(session_id) >= 32 and all(c in "0123456789abcdef" for c in head):
        return head
    return _digest(session_id, n)



"""Place a session's note in the vault and write it, keeping the user's section.

The note's path is fixed the first time it is written (start time and a short
session id), so links to it never break; it is always inside the vault, whatever
the transcript says, and never written through a symlink that leads out of it.
"""

import contextlib
import errno
import os
import stat
import time
from collections.abc import Iterator

from msgspec import Struct

from vibe_vault.atomic import StrPath, write_atomic
from vibe_vault.paths import inside
from vibe_vault.regular import NotAFile, missing, open_regular, read_fd, read_regular
from vibe_vault.state import SessionState
from vibe_vault.text import first_user_heading, user_heading_lines
from vibe_vault.vault import USER_HEADING, USER_HINT, note_relpath


class OutsideVault(OSError):
    """A note path would leave the vault (a symlink points out of it), or
    something other than a folder or a note stands in its way."""

    def __init__(self, path: str) -> None:
        super().__init__(errno.EXDEV, "would be written outside the vault (a symlink leads "
                         "out, or it is not a plain file or folder)", path)


def owner_of(vault: StrPath, relpath: str) -> str | None:
    """The session_id in an existing note's frontmatter, or None."""
    path = os.path.join(vault, *relpath.split("/"))
    if missing(path):
        return None
    try:
        head = read_regular(path, 4096, follow_symlinks=False).decode("utf-8", "replace")
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


_READ_RETRIES = (0.005, 0.01, 0.02, 0.04, 0.08)  # seconds between reads that look cut short
_WRITE_ATTEMPTS = 5
_QUIET_NS = 20_000_000  # a file unchanged this long is not being saved right now


class Written(Struct):
    changed: bool = False
    user_part: str = ""  # the user's heading line and what follows it, as written
    # Words an editor saved into a note file this write replaced, not yet in
    # the note: the caller keeps them and hands them to the next write.
    pending: str = ""


def user_part(existing: str) -> str | None:
    """The user's heading line and everything below it, without vibe-vault's
    hint line; None when the text has no user heading (a new note, or a read
    that caught an editor between truncating the file and writing it)."""
    m = first_user_heading(existing)
    if m is None:
        return None
    heading = m.group(0).rstrip("\r")
    rest = existing[m.end():]
    rest = rest[1:] if rest.startswith("\n") else rest
    if rest.startswith(USER_HINT + "\n"):
        rest = rest[len(USER_HINT) + 1 :]
    elif rest.rstrip("\n") == USER_HINT:
        rest = ""
    return heading + "\n" + rest


def has_user_words(vault: StrPath, relpath: str) -> bool:
    """Whether the note holds anything the user wrote below their heading."""
    try:
        fd, _ = open_regular(os.path.join(vault, *relpath.split("/")), follow_symlinks=False)
    except OSError:
        return False
    try:
        return bool(user_section(_read_whole(fd)[0]).strip())
    finally:
        os.close(fd)


def user_section(existing: str) -> str:
    """What the user wrote below the user heading (heading and hint left out)."""
    part = user_part(existing)
    return "" if part is None else part.split("\n", 1)[1]


def _with_user_part(generated: str, part: str) -> str:
    """`generated` (which ends with the heading and hint) with the user's part
    in place of its heading: their heading line as they typed it, the hint,
    then their text."""
    tail = USER_HEADING + "\n" + USER_HINT + "\n"
    body = generated[: -len(tail)] if generated.endswith(tail) else generated
    # No line of generated text may pass for the user's heading: everything
    # below it would be taken for the user's own words at the next rewrite.
    if "notes" in body.casefold():  # (casefold: "ſ" matches "s" for the pattern too)
        body = "".join(_escaped(body))
    heading, _, rest = part.partition("\n")
    return body + heading + "\n" + USER_HINT + "\n" + rest


def _merged(found: str | None, carried: str) -> str:
    """The user's part as the note has it now (`found`), with every line of
    `carried` (what the file just replaced held) that it lacks put back where
    it stood. An editor's save that landed in the replaced file and its saves
    since into the new one each hold lines the other lacks: taking the longer
    lost the other's. Lines of both are kept; `carried`'s come first where
    they differ (they were written first). A line the two hold in different
    places may show twice: doubled, never lost."""
    if not found:
        return carried
    import difflib

    now, then = found.splitlines(keepends=True), carried.splitlines(keepends=True)
    for lines in (now, then):
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"  # a last line without its newline would run into the next
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, now, then,
                                                       autojunk=False).get_opcodes():
        out += now[i1:i2] if tag == "equal" else then[j1:j2] + now[i1:i2]
    return "".join(out)


def _escaped(body: str) -> Iterator[str]:
    """`body`, in pieces, with a backslash before each line that would read as
    the user's heading."""
    done = 0
    for m in user_heading_lines(body):
        yield body[done : m.start()]
        yield "\\"
        done = m.start()
    yield body[done:]


class _Read(Struct):
    text: str
    stamp: tuple[int, int]  # size, mtime, ctime when it was read
    settled: bool  # taken for the user's latest words, not a save caught midway


def _read_whole(fd: int) -> tuple[str, tuple[int, int]]:
    """The file's text and its stamp, with no write landing during the read."""
    while True:
        before = _stamp(fd)
        text = read_fd(fd, before[0]).decode("utf-8", "surrogateescape")
        if _stamp(fd) == before:
            return text, before


def _read_note(fd: int, remembered: str) -> _Read:
    """The note's text, read again while it looks cut short or mid-save.

    An editor that saves in place truncates the file, then writes it (maybe in
    pieces): a read in between sees less than the user wrote. A read is taken
    as the user's latest words when it has the heading, holds at least what was
    written last time, and the file has not changed for a moment; or else once
    two reads a moment apart agree (the user did shorten their notes).
    """
    text, stamp = _read_whole(fd)
    for pause in _READ_RETRIES:
        part = user_part(text)
        quiet = time.time_ns() - stamp[1] >= _QUIET_NS
        if quiet and part is not None and len(part) >= len(remembered):
            return _Read(text, stamp, True)
        time.sleep(pause)
        again, again_stamp = _read_whole(fd)
        if again_stamp == stamp and time.time_ns() - stamp[1] >= _QUIET_NS:
            return _Read(text, stamp, True)
        text, stamp = again, again_stamp
    return _Read(text, stamp, False)


def _stamp(fd: int) -> tuple[int, int]:
    """Size and mtime: what a write into the file changes. (Not ctime: the
    rename that replaces the file changes the old one's, as its last link goes.)"""
    st = os.fstat(fd)
    return st.st_size, st.st_mtime_ns


def make_note_dir(vault: StrPath, relpath: str) -> str:
    """Create the folders of a note inside the vault, checking each one before
    anything is created in it; the note's full path. Raises OutsideVault when a
    folder is a symlink that leads out of the vault, or is not a folder."""
    vault = os.fspath(vault)
    parts = relpath.split("/")
    folder = (vault, *parts[:-1])
    if folder in _CHECKED_FOLDERS:
        return os.path.join(vault, *parts)
    current = vault
    os.makedirs(vault, exist_ok=True)
    for part in parts[:-1]:
        current = os.path.join(current, part)
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            with contextlib.suppress(FileExistsError):
                os.mkdir(current)
            st = os.lstat(current)
        if stat.S_ISLNK(st.st_mode):
            if not inside(vault, current) or not os.path.isdir(current):
                raise OutsideVault(current)
        elif not stat.S_ISDIR(st.st_mode):
            raise OutsideVault(current)
    if len(_CHECKED_FOLDERS) < 4096:
        _CHECKED_FOLDERS.add(folder)
    return os.path.join(current, parts[-1])


# Note folders this process made or checked: a backfill writes thousands of
# notes into a few hundred folders. (Swapping one for a symlink while a
# backfill runs is a race no check before the write could close either.)
_CHECKED_FOLDERS: set[tuple[str, ...]] = set()


def write_note(vault: StrPath, relpath: str, generated: str, remembered: str = "",
               pending: str = "") -> Written:
    """Write the note, keeping the user's part (heading and all below it).

    `remembered` is the user's part as last written, kept by the caller: when
    the file has none (deleted, or caught mid-save by an editor) it is what the
    user wrote last. The file is never replaced when it changed since it was
    read, and when an editor wrote into it while it was being replaced, the
    write starts over from those words. While an editor is busy saving it,
    the note is left alone: the next event writes it. `pending` is what an
    earlier write returned as such: words that are nowhere but there, merged
    into the note before anything else.
    """
    path = make_note_dir(vault, relpath)
    # The user's part read from a file already replaced (by this call or one before).
    carried: str | None = pending or None
    raced = False  # whether this call replaced a file an editor was writing into
    for _ in range(_WRITE_ATTEMPTS):
        fd: int | None = None
        try:
            try:
                fd, _st = open_regular(path, follow_symlinks=False)
            except FileNotFoundError:
                fd = None
            except NotAFile as exc:
                raise OutsideVault(path) from exc
            read = None if fd is None else _read_note(fd, carried or remembered)
            existing = "" if read is None else read.text
            found = None if read is None else user_part(read.text)
            if read is not None and not read.settled and not raced:
                # An editor is saving right now: its words are not all there yet.
                # The next event writes the note.
                return Written(changed=False, user_part=remembered, pending=carried or "")
            if carried is not None:  # words only the replaced file held
                part = _merged(found, carried)
            else:
                part = found or remembered or USER_HEADING + "\n"
            text = _with_user_part(generated, part)
            if text == existing:
                return Written(changed=False, user_part=part)  # (carried words included)
            stamp = None if read is None else read.stamp

            def unchanged_since_read(fd: int | None = fd,
                                     stamp: tuple[int, int] | None = stamp) -> bool:
                return fd is None or _stamp(fd) == stamp

            # The user's own words exist nowhere else: make them survive a power cut.
            durable = bool(part.partition("\n")[2].strip())
            try:
                replaced = write_atomic(path, text.encode("utf-8", "surrogateescape"),
                                        durable=durable, still_wanted=unchanged_since_read)
            except FileNotFoundError:
                # Its folder went since this process made it (the vault moved away).
                _CHECKED_FOLDERS.clear()
                path = make_note_dir(vault, relpath)
                continue
            if not replaced:
                continue  # saved by the user meanwhile: merge again
            if fd is not None and _stamp(fd) != stamp:
                # An editor wrote into the file just replaced: its words are only there.
                carried = user_part(_read_note(fd, part).text) or carried
                raced = True
                continue
            return Written(changed=True, user_part=part)
        finally:
            if fd is not None:
                os.close(fd)
    # Still racing an editor: the words it saved into a replaced file are only
    # in hand. The next write merges them in (remembered alone would lose them:
    # a settled read of the note is preferred to it).
    return Written(changed=False, user_part=remembered, pending=carried or "")


def write_session_note(vault: StrPath, state: SessionState, generated: str) -> bool:
    """`write_note` of a session's note, with the user's words its state keeps
    (their part as last written, and words still pending) handed in and the
    new ones kept in the state: no caller can drop them. Whether it changed."""
    written = write_note(vault, state.note, generated, state.user_notes, state.user_pending)
    state.user_notes, state.user_pending = written.user_part, written.pending
    return written.changed

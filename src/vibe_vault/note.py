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

from vibe_vault.atomic import Stamp, StrPath, replace_seen
from vibe_vault.paths import inside
from vibe_vault.regular import NotAFile, missing, open_regular, read_fd, read_regular
from vibe_vault.state import SessionState
from vibe_vault.vault import (
    USER_HEADING,
    USER_HINT,
    first_user_heading,
    note_relpath,
    user_heading_lines,
)


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


def moved_note(vault: StrPath, session_id: str) -> str | None:
    """Where the user moved or renamed a session's note inside the vault (its
    relative path), found by the `session_id` in its frontmatter; None when
    no note has it. Called only when the note is not where its state says:
    the vault is scanned once per process (a backfill may miss many notes),
    folders starting with a dot (`.obsidian`, `.trash`: a note deleted into
    Obsidian's trash stays deleted) and conflict copies left out."""
    vault = os.fspath(vault)
    found = _MOVED.get(vault)
    if found is None:
        found = _MOVED[vault] = _notes_by_session(vault)
    rel = found.get(session_id)
    if rel is None or owner_of(vault, rel) != session_id:
        return None
    return rel


_MOVED: dict[str, dict[str, str]] = {}  # vault -> {session id: note path}, one scan each


def _notes_by_session(vault: str) -> dict[str, str]:
    out: dict[str, str] = {}
    needle = b"\nsession_id: "
    for folder, dirs, files in os.walk(vault):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if not name.endswith(".md") or "(conflict " in name or name.startswith("."):
                continue
            path = os.path.join(folder, name)
            try:
                head = read_regular(path, 512, follow_symlinks=False)
            except OSError:
                continue
            at = head.find(needle)
            if at < 0 or not head.startswith(b"---\n"):
                continue
            end = head.find(b"\n", at + len(needle))
            value = head[at + len(needle): end if end >= 0 else len(head)].decode(
                "utf-8", "replace").strip()
            if value.startswith('"'):
                import json

                try:
                    value = str(json.loads(value))
                except ValueError:
                    continue
            rel = os.path.relpath(path, vault).replace(os.sep, "/")
            out.setdefault(value, rel)
    return out


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
# A file that does not look like a finished save (empty, cut short, no heading)
# is taken as the user left it only once unchanged this long.
_DOUBT_NS = 2_000_000_000
# A note changed this recently may have an editor on it: its write swaps the
# files and checks what it displaced (atomic.replace_seen's `exchange`).
_RECENT_NS = 10_000_000_000


class Written(Struct):
    changed: bool = False
    user_part: str = ""  # the user's heading line and what follows it, as written
    # Words an editor saved into a note file this write replaced, not yet in
    # the note: the caller keeps them and hands them to the next write.
    pending: str = ""
    # The stamp of the file as this write left it (or found it, unchanged,
    # as the last one left it); None when the note is not vibe-vault's write.
    stamp: Stamp | None = None


def user_part(existing: str, generated: str | None = None) -> str | None:
    """The user's heading line and everything below it, without vibe-vault's
    hint line; None when the text has no user part (a new note, or a read
    that caught an editor between truncating the file and writing it).

    The heading is found however it is typed (vault.is_user_heading). When the
    user deleted it, the hint line below it still marks where their part
    begins; when both went, and `generated` (the note as vibe-vault writes it
    now) is given, everything after the last line the text shares with it is
    theirs (lines that changed since, such as figures, may come along: kept
    twice rather than lost).
    """
    m = first_user_heading(existing)
    if m is None:
        return _headless_part(existing, generated)
    heading = m.group(0).rstrip("\r")
    rest = existing[m.end():]
    rest = rest[1:] if rest.startswith("\n") else rest
    if rest.startswith(USER_HINT + "\n"):
        rest = rest[len(USER_HINT) + 1 :]
    elif rest.rstrip("\n") == USER_HINT:
        rest = ""
    return heading + "\n" + rest


def _headless_part(existing: str, generated: str | None) -> str | None:
    """The user's part of a note whose heading was deleted (see user_part),
    under the standard heading; None when nothing marks where it begins."""
    at = existing.find(USER_HINT)
    if at >= 0 and (at == 0 or existing[at - 1] == "\n"):
        rest = existing[at + len(USER_HINT):]
        return USER_HEADING + "\n" + (rest[1:] if rest.startswith("\n") else rest)
    if not generated or not existing.strip():
        return None
    import difflib

    mine = existing.splitlines(keepends=True)
    ours = [line + "\n" for line in generated.split("\n")]
    last = -1
    for block in difflib.SequenceMatcher(None, mine, ours, autojunk=False).get_matching_blocks():
        if block.size and any(line.strip() for line in mine[block.a:block.a + block.size]):
            last = block.a + block.size
    if last < 0:
        return None  # nothing of ours in it: not a note this write knows how to read
    rest = "".join(mine[last:]).lstrip("\n")
    return USER_HEADING + "\n" + rest


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
    heading, _, rest = part.partition("\n")
    end = len(generated) - len(tail)
    if (heading == USER_HEADING and end >= 0 and generated.endswith(tail)
            and (end == 0 or generated[end - 1] == "\n")
            and not any(m.start() < end for m in user_heading_lines(generated))):
        # The usual note: its heading as vibe-vault writes it, and no line
        # above it to escape (the lines before `end` are the body's own, each
        # whole): the note as generated, the user's words after it. (Cutting
        # the body out and joining it again copied a long note four times.)
        return generated + rest
    body = generated[:end] if generated.endswith(tail) else generated
    # No line of generated text may pass for the user's heading: everything
    # below it would be taken for the user's own words at the next rewrite.
    # (Looked for in the lines that could be one, not first in the casefolded
    # whole: a long note is rarely ASCII, and folding it cost a Stop more than
    # the search; nor could that see "ｎｏｔｅｓ", which NFKC reads as "notes".)
    return "".join([*_escaped(body), heading, "\n", USER_HINT, "\n", rest])


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
    stamp: tuple[int, int]  # size, mtime of the descriptor when it was read
    path: tuple[int, int, int, int]  # device, inode, size, mtime: what replace_seen checks
    settled: bool  # taken for the user's latest words, not a save caught midway


def _read_whole(fd: int) -> tuple[str, tuple[int, int]]:
    """The file's text and its stamp, with no write landing during the read."""
    while True:
        before = _stamp(fd)
        text = read_fd(fd, before[0]).decode("utf-8", "surrogateescape")
        if _stamp(fd) == before:
            return text, before


def _looks_whole(text: str, remembered: str) -> bool:
    """Whether a read looks like a finished save: it has the user's heading,
    ends with a newline, and holds at least as much as their part as last
    written. An editor that saves in place truncates, then writes (maybe in
    pieces, maybe after a pause): a read in between is empty or short."""
    if not text.endswith("\n"):
        return False
    part = user_part(text)
    if part is None:
        return False
    return len(part) >= len(remembered)


def _read_note(fd: int, remembered: str, ours: Stamp | None = None) -> _Read:
    """The note's text, read again while it looks cut short or mid-save.

    A read is taken as the user's latest words when it looks whole (above)
    and the file has not changed for a moment (_QUIET_NS); one that does not
    look whole (empty, no heading, shorter than what was written last) only
    once it has not changed for _DOUBT_NS: no editor pauses that long in the
    middle of a save, and the user may well have shortened their notes or
    deleted the heading. Otherwise the read is not settled (the caller
    leaves the note for the next event).

    A file that is still as vibe-vault last wrote it (`ours`: its stamp then)
    is settled at once: no editor has saved into it.
    """
    text, stamp = _read_whole(fd)
    for pause in (0.0, *_READ_RETRIES):
        if pause:
            time.sleep(pause)
            text, stamp = _read_whole(fd)
        if ours is not None and (ours[2], ours[3]) == stamp:
            path = _path_of(fd)
            if path == ours:
                return _Read(text, stamp, path, True)
        age = time.time_ns() - stamp[1]
        if age >= _DOUBT_NS or (age >= _QUIET_NS and _looks_whole(text, remembered)):
            return _Read(text, stamp, _path_of(fd), True)
    return _Read(text, stamp, _path_of(fd), False)


def _path_of(fd: int) -> tuple[int, int, int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _stamp(fd: int) -> tuple[int, int]:
    """Size and mtime: what a write into the file changes. (Not ctime: the
    rename that replaces the file changes the old one's, as its last link goes.)"""
    st = os.fstat(fd)
    return st.st_size, st.st_mtime_ns


def conflict_name(path: str, when: float | None = None) -> str:
    """`<note> (conflict <time>).md` beside the note, a name not yet taken."""
    stem, ext = os.path.splitext(path)
    stamp = time.strftime("%Y-%m-%d %H%M%S", time.localtime(when))
    name = f"{stem} (conflict {stamp}){ext or '.md'}"
    n = 2
    while os.path.lexists(name):
        name = f"{stem} (conflict {stamp} {n}){ext or '.md'}"
        n += 1
    return name


CONFLICT_GLOB = "* (conflict *).md"


def keep_conflict(path: str, source: str | None = None, text: str | None = None,
                  log_dir: StrPath | None = None) -> str | None:
    """Keep a version of the note the user saved that vibe-vault could not
    merge with certainty: the file at `source` renamed (an editor still
    writing into it writes there), or `text` written, as a conflict copy
    beside the note; its path, named in the log (and by `vv doctor`)."""
    name = conflict_name(path)
    try:
        if source is not None:
            os.rename(source, name)
        else:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                         | getattr(os, "O_NOFOLLOW", 0), 0o666)
            try:
                os.write(fd, (text or "").encode("utf-8", "surrogateescape"))
            finally:
                os.close(fd)
    except OSError:
        return None
    from vibe_vault.log import warn

    warn(log_dir, f"your save of {os.path.basename(path)} landed while vibe-vault was "
         f"writing it: kept as {os.path.basename(name)} (its words are in the note too)",
         stderr=False)
    return name


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
               pending: str = "", log_dir: StrPath | None = None,
               ours: Stamp | None = None) -> Written:
    """Write the note, keeping the user's part (heading and all below it).

    `remembered` is the user's part as last written, kept by the caller: when
    the file has none (deleted, or caught mid-save by an editor) it is what the
    user wrote last. Never over bytes not seen: the note's path is checked just
    before the rename (atomic.replace_seen), and when it changed the write
    starts over from what it holds now. While an editor is busy saving it
    (the read looks cut short), the note is left alone: the next event writes
    it. Words an editor saved into a file this call replaced are merged into
    the new one line by line; a save displaced in the instant of the rename,
    or still racing after every attempt, is also kept whole as a conflict copy
    beside the note (`keep_conflict`). `pending` is what an earlier write
    returned as such: words that are nowhere but there, merged in first.
    `ours` is the stamp the last write returned (`Written.stamp`): a file
    that still shows it is vibe-vault's own write, which no editor touched,
    so it is neither waited on nor taken for an editor's recent save. (A save
    of the very same size within the file system's clock tick of that write
    shows the stamp too; it is still read whole, its words kept.)
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
            # (what the file should hold at least: the part last written, not
            # words carried from a replaced file, which it cannot hold yet)
            read = None if fd is None else _read_note(fd, remembered, ours)
            as_we_left_it = read is not None and read.path == ours
            existing = "" if read is None else read.text
            found = None if read is None else user_part(read.text, generated)
            if read is not None and not read.settled and not raced:
                # An editor is saving right now: its words are not all there yet.
                # The next event writes the note.
                return Written(changed=False, user_part=remembered, pending=carried or "")
            if carried is not None:  # words only the replaced file held
                part = _merged(found, carried)
            else:
                part = found or remembered or USER_HEADING + "\n"
            text = _with_user_part(generated, part)
            if text == existing:  # (carried words included)
                return Written(changed=False, user_part=part,
                               stamp=ours if as_we_left_it else None)
            # The user's own words exist nowhere else: make them survive a power cut.
            durable = bool(part.partition("\n")[2].strip())
            # (a change vibe-vault made itself is no sign of an editor: the
            # swap's ctypes costs a Stop ~2.5 ms, and the last Stop was seconds ago)
            recent = (read is not None and not as_we_left_it
                      and time.time_ns() - read.stamp[1] < _RECENT_NS)
            wrote: list[Stamp] = []
            try:
                replaced, displaced = replace_seen(
                    path, text.encode("utf-8", "surrogateescape"),
                    None if read is None else read.path, durable=durable,
                    exchange=durable or recent, wrote=wrote)
            except FileNotFoundError:
                # Its folder went since this process made it (the vault moved away).
                _CHECKED_FOLDERS.clear()
                path = make_note_dir(vault, relpath)
                continue
            if not replaced:
                continue  # saved by the user meanwhile: read it, merge again
            if displaced is not None:
                # A save landed between the check and the rename: keep it whole,
                # and put its words in the note too.
                kept = keep_conflict(path, source=displaced, log_dir=log_dir)
                words = _part_of_file(kept or displaced, generated)
                if kept is None:
                    with contextlib.suppress(OSError):
                        os.unlink(displaced)  # (its words are in hand)
                if words:
                    carried = _merged(words, carried or part)
                raced = True
                continue
            if fd is not None and read is not None and _stamp(fd) != read.stamp:
                # An editor wrote into the file just replaced: its words are only there.
                carried = user_part(_read_note(fd, part).text, generated) or carried
                raced = True
                continue
            return Written(changed=True, user_part=part, stamp=wrote[0] if wrote else None)
        finally:
            if fd is not None:
                os.close(fd)
    # Still racing an editor: the words it saved into a replaced file are only
    # in hand. The next write merges them in (remembered alone would lose them:
    # a settled read of the note is preferred to it); meanwhile they are kept
    # beside the note too, so they are never only in the state.
    if carried and carried.partition("\n")[2].strip():
        keep_conflict(path, text=_with_user_part(generated, carried), log_dir=log_dir)
    return Written(changed=False, user_part=remembered, pending=carried or "")


def _part_of_file(path: str, generated: str) -> str | None:
    """The user's part of the note file at `path`, or None: read once the
    save that may still be landing in it is over (or after a moment)."""
    try:
        fd, _ = open_regular(path, follow_symlinks=False)
    except OSError:
        return None
    try:
        return user_part(_read_note(fd, "").text, generated)
    finally:
        os.close(fd)


def write_session_note(vault: StrPath, state: SessionState, generated: str,
                       log_dir: StrPath | None = None) -> bool:
    """`write_note` of a session's note, with the user's words its state keeps
    (their part as last written, and words still pending) handed in and the
    new ones kept in the state: no caller can drop them. Whether it changed."""
    ours = state.note_stamp
    written = write_note(vault, state.note, generated, state.user_notes, state.user_pending,
                         log_dir=log_dir, ours=(ours[0], ours[1], ours[2], ours[3])
                         if len(ours) == 4 else None)
    state.user_notes, state.user_pending = written.user_part, written.pending
    state.note_stamp = written.stamp or ()
    return written.changed

"""Keep transcripts after Claude Code deletes them (after 30 days by default).

Each session's files are copied to `<archive>/<session>/<name>.gz`, appending
only the bytes added since the last run as a new gzip member (gzip readers
concatenate members, so the archive decompresses to the original bytes). A
manifest per session records, for each file, how many of its bytes are archived
and how long the `.gz` holding them is; a file that was rewritten starts a new
archive generation.

Crash safety: members are appended and synced before the manifest is replaced,
so the manifest never claims bytes the archive lacks (a backfill syncs its
sessions' copies together, `sync_all`, before the database records them as
read). Whatever lies past the
recorded length (a member cut by a kill, or one whose manifest update never
happened) is cut at the next run. `repair` rebuilds a manifest from the members
that decompress whole; `restore` keeps everything before a damaged member.

The archive holds raw transcripts, secrets included: it lives in the state
directory (private, never synced with the vault) unless `archive_dir` says
otherwise.
"""


import contextlib
import os
import stat
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

import msgspec
from msgspec import Struct, field

from vibe_vault import locations, patterns
from vibe_vault.atomic import make_private_dir, write_atomic
from vibe_vault.config import Config
from vibe_vault.lock import SessionLock, slot_path
from vibe_vault.paths import inside, safe_id, safe_name
from vibe_vault.reader import HEAD  # the same first bytes a cursor checks
from vibe_vault.regular import NotAFile, open_regular, read_fd
from vibe_vault.stored_paths import stored_path

PIECE = 1 << 20  # bytes of a transcript compressed at a time
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# Folders of a session's own (`<slug>/<session>/<folder>/...`) Claude Code
# needs to resume it and deletes with it: subagent and workflow agent
# transcripts (with their .meta.json and journals), and spilled tool output.
SIDE_FOLDERS = ("subagents", "tool-results")
MAX_DEPTH = 5  # components of an archive name: subagents/workflows/wf_x/agent-y.jsonl is 4
_UUID = patterns.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                         r"[0-9a-fA-F]{12}\Z")


class ArchivedFile(Struct):
    # The file's path as the database keeps it (stored_paths: a component that
    # holds a secret is a digest); verify compares with the file found now.
    source: str
    offset: int = 0  # bytes of the source archived
    inode: int = 0
    head_crc: int = 0
    generation: int = 0
    gz_size: int = -1  # length of the .gz holding them; -1: not recorded (older manifests)


class Manifest(Struct):
    session_id: str
    files: dict[str, ArchivedFile] = field(default_factory=dict)  # archive name -> file


class Member(Struct):
    """What a scan of a .gz found: the whole members, and whether more follows."""

    gz_size: int = 0  # bytes of whole members from the start
    raw_size: int = 0  # bytes they decompress to
    damaged: bool = False  # bytes past them that are not a whole member


class ArchiveProblem(OSError):
    """An archive folder or file that is not what vibe-vault wrote."""


# -- where ------------------------------------------------------------------------------


def archive_root(cfg: Config) -> Path:
    custom = cfg.get("archive_dir")
    if custom:
        return Path(os.path.expanduser(custom))
    return Path(locations.archive_dir(cfg.state_dir))


def old_vault_archive(cfg: Config) -> Path:
    """Where archives lived before they moved out of the vault."""
    return Path(cfg.vault) / ".vibe-vault" / "archive"


def move_out_of_vault(cfg: Config) -> str | None:
    """Move an archive left in the vault by an older version to the state
    directory; a sentence for the user when something was moved."""
    old = old_vault_archive(cfg)
    new = archive_root(cfg)
    if cfg.get("archive_dir") or not old.is_dir() or old.is_symlink():
        return None
    make_private_dir(new)
    moved = 0
    for entry in sorted(os.scandir(old), key=lambda e: e.name):
        target = new / entry.name
        if target.exists() or entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
            continue
        try:
            os.rename(entry.path, target)
        except OSError:  # another file system
            import shutil

            shutil.copytree(entry.path, target, symlinks=True)
            shutil.rmtree(entry.path)
        _make_private_tree(target)
        moved += 1
    with contextlib.suppress(OSError):
        old.rmdir()
        old.parent.rmdir()
    return (f"moved the archive of {moved} sessions out of the vault, to {new} "
            "(it holds raw transcripts, which should not sync with the vault)") if moved else None


def _make_private_tree(root: Path) -> None:
    for dirpath, _, filenames in os.walk(root):
        os.chmod(dirpath, 0o700)
        for name in filenames:
            with contextlib.suppress(OSError):
                os.chmod(os.path.join(dirpath, name), 0o600)


def _session_dir(cfg: Config, sid: str, create: bool = False) -> Path:
    """The session's archive folder, never a symlink, never outside the archive
    (whose own folder is never a symlink either)."""
    root = archive_root(cfg)
    if not cfg.get("archive_dir") and os.path.islink(root):
        # <state>/archive made a link by someone else: raw transcripts would go
        # wherever it leads (an archive_dir the user sets may be a link).
        raise ArchiveProblem(0, "is a symlink: no archive is written through it", str(root))
    d = root / safe_id(sid)
    # (made when it is not there yet: a backfill archives every session it
    # reads, and two mkdirs of a folder there already cost ~0.3 ms of a
    # session's ~10 ms here)
    if not _real_folder(root) and create:
        make_private_dir(root.parent)
        with contextlib.suppress(FileExistsError):
            os.mkdir(root, 0o700)
        _real_folder(root)
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(d, 0o700)
    _real_folder(d)
    return d


def _real_folder(folder: Path) -> bool:
    """False when `folder` does not exist; raises when it is anything but a folder
    (a symlink above all: nothing is written through one)."""
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        raise ArchiveProblem(0, "is not a folder vibe-vault made (a symlink?)", str(folder))
    if st.st_mode & 0o077:
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o700)  # private, whoever made it
    return True


def _subfolders(folder: Path, name: str) -> None:
    """Make the folders an archive name passes through, each checked."""
    at = folder
    for part in name.split("/")[:-1]:
        at = at / part
        with contextlib.suppress(FileExistsError):
            os.mkdir(at, 0o700)
        _real_folder(at)


def name_for(path: Path) -> str:
    """Archive name of a session file: a file beside the transcripts (the main
    transcript, a legacy agent file) by its name; one in the session's own
    folder by its path from there (`subagents/agent-x.jsonl`,
    `subagents/workflows/wf_1/agent-y.jsonl`, `tool-results/z.txt`), which is
    also where `restore` puts it back."""
    parts = path.parts
    for i in range(len(parts) - 2, max(0, len(parts) - MAX_DEPTH - 1), -1):
        if parts[i] in SIDE_FOLDERS and i >= 1 and (
                _UUID.match(parts[i - 1]) or (i == len(parts) - 2 and parts[i] == "subagents")
                # a session folder with a name other than a uuid: its transcript beside it
                or os.path.isfile(os.path.join(*parts[: i - 1], parts[i - 1] + ".jsonl"))):
            return "/".join(safe_name(c, 120) for c in parts[i:])
    return safe_name(path.name, 120)


def _valid_name(name: str) -> bool:
    """Names a manifest may hold: what `name_for` makes, nothing that climbs out."""
    parts = name.split("/")
    if len(parts) > MAX_DEPTH or (len(parts) > 1 and parts[0] not in SIDE_FOLDERS):
        return False
    return all(c == safe_name(c, 120) and c not in (".", "..") and "\\" not in c
               and "\x00" not in c for c in parts)


def session_files(main: str | os.PathLike[str], agents: list[str] | None = None) -> list[Path]:
    """Every file of a session Claude Code would need to resume it: the main
    transcript, the agent files given, and the regular files in the session's
    own folders (`<session>/subagents/**`, `<session>/tool-results/**`),
    never through a symlink."""
    first = Path(main)
    files = [first, *(Path(a) for a in agents or ())]
    seen = {str(p) for p in files}
    if not first.name.endswith(".jsonl"):
        return files
    own = first.parent / first.name[:-6]
    for folder in SIDE_FOLDERS:
        stack = [(str(own / folder), 1)]
        while stack:
            at, depth = stack.pop()
            try:
                with os.scandir(at) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if depth + 1 < MAX_DEPTH:
                        stack.append((entry.path, depth + 1))
                elif entry.is_file(follow_symlinks=False) and entry.path not in seen:
                    seen.add(entry.path)
                    files.append(Path(entry.path))
    return files


def is_agent(name: str) -> bool:
    """An agent transcript (not its .meta.json, a journal or a tool result)."""
    last = name.rsplit("/", 1)[-1]
    return locations.is_agent_file(last) and last.endswith(".jsonl") and not name.startswith(
        "tool-results/")


def _generation_name(name: str, generation: int) -> str:
    return f"{name}.gz" if generation == 0 else f"{name}.{generation}.gz"


def _load_manifest(folder: Path, sid: str) -> Manifest:
    try:
        fd, st = open_regular(folder / "manifest.json", follow_symlinks=False)
        try:
            data = read_fd(fd, st.st_size)
        finally:
            os.close(fd)
        m = msgspec.json.decode(data, type=Manifest)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return Manifest(session_id=sid)
    if m.session_id != sid:
        return Manifest(session_id=sid)
    m.files = {k: v for k, v in m.files.items() if _valid_name(k) and v.generation >= 0}
    return m


def _save_manifest(folder: Path, manifest: Manifest, sync: bool = True) -> None:
    write_atomic(folder / "manifest.json", msgspec.json.encode(manifest), mode=0o600, durable=sync)


# -- members --------------------------------------------------------------------------------


def _open_archive(path: Path, write: bool) -> int:
    """A descriptor of an archive file, never through a symlink."""
    flags = (os.O_RDWR | os.O_CREAT) if write else os.O_RDONLY
    try:
        fd = os.open(path, flags | _NOFOLLOW | getattr(os, "O_BINARY", 0)
                     | getattr(os, "O_NONBLOCK", 0), 0o600)
    except OSError as exc:
        if exc.errno == 40 or isinstance(exc, IsADirectoryError):
            raise ArchiveProblem(0, "is not a file vibe-vault wrote (a symlink?)",
                                 str(path)) from exc
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ArchiveProblem(0, "is not a regular file", str(path))
    os.set_blocking(fd, True)
    return fd


def _members(fd: int, upto: int | None = None) -> Iterator[tuple[int, bytes]]:
    """(end offset of the member, its bytes) for each whole, CRC-checked gzip
    member from the start; a decompressor that meets a damaged or cut member
    stops there. Each member's bytes are yielded in pieces, the last with its end."""
    size = os.fstat(fd).st_size if upto is None else upto
    pos = 0
    while pos < size:
        dec = zlib.decompressobj(wbits=31)
        at = pos
        out: list[bytes] = []
        held = 0
        while not dec.eof:
            if at >= size:
                return  # cut short
            chunk = os.pread(fd, min(PIECE, size - at), at)
            if not chunk:
                return
            try:
                piece = dec.decompress(chunk)
            except zlib.error:
                return
            out.append(piece)
            held += len(piece)
            at += len(chunk)
            if held > 64 << 20 and not dec.eof:
                # A long member: hand it out as it comes; the caller keeps track.
                yield -1, b"".join(out)
                out, held = [], 0
        end = at - len(dec.unused_data)
        yield end, b"".join(out)
        pos = end


def scan(fd: int, upto: int | None = None) -> Member:
    """The whole members at the start of an archive file."""
    size = os.fstat(fd).st_size if upto is None else upto
    found = Member()
    raw_in_member = 0
    for end, data in _members(fd, size):
        raw_in_member += len(data)
        if end >= 0:
            found.gz_size, found.raw_size = end, found.raw_size + raw_in_member
            raw_in_member = 0
    found.damaged = found.gz_size < size
    return found


def _append_member(fd: int, at: int, src: int, offset: int, length: int,
                   level: int = 6, sync: bool = True) -> int:
    """Compress `length` bytes of `src` from `offset` as one gzip member written
    at `at`, synced (unless the caller syncs later); the new end of the
    archive file."""
    comp = zlib.compressobj(level, zlib.DEFLATED, 31)
    pos = at
    done = 0
    while done < length:
        chunk = os.pread(src, min(PIECE, length - done), offset + done)
        if not chunk:
            break
        done += len(chunk)
        pos += _write_at(fd, comp.compress(chunk), pos)
        _kill_point()
    pos += _write_at(fd, comp.flush(), pos)
    _kill_point()
    if sync:
        os.fsync(fd)
    return pos


def _write_at(fd: int, data: bytes, at: int) -> int:
    view = memoryview(data)
    while view:
        n = os.pwrite(fd, view, at)
        view, at = view[n:], at + n
    return len(data)


_kills = [int(os.environ.get("VV_TEST_ARCHIVE_KILL", "0"))]  # tests: die at the Nth point


def _kill_point() -> None:
    if _kills[0]:
        _kills[0] -= 1
        if _kills[0] == 0:
            import signal

            os.kill(os.getpid(), signal.SIGKILL)


# -- archiving ----------------------------------------------------------------------------


def needs_archive(cfg: Config, sid: str, files: list[Path]) -> bool:
    try:
        m = _load_manifest(_session_dir(cfg, sid), sid)
    except OSError:
        return False
    for p in files:
        e = m.files.get(name_for(p))
        try:
            st = os.stat(p)
        except OSError:
            continue
        if e is None or e.offset != st.st_size or e.inode != st.st_ino:
            return True
    return False


def archive_files(cfg: Config, sid: str, files: list[Path], lock_timeout: float = 30.0,
                  level: int = 6, sync: bool = True) -> int:
    """Append what is new in each file to its archive; bytes archived. Level 1
    compresses ~2.7x faster than 6 into ~15% more bytes: what a hook uses.
    `sync` False: nothing is synced here; the caller calls `sync_all` before
    anything records the session as archived (a backfill: once for
    thousands of sessions, not an fsync of each member and manifest)."""
    from vibe_vault.privacy import is_forgotten

    if is_forgotten(cfg.state_dir, sid):
        return 0  # forgotten, or of an excluded project: no copy is kept
    if not os.path.isdir(locations.locks_dir(cfg.state_dir)):
        make_private_dir(locations.locks_dir(cfg.state_dir))
    total = 0
    changed = False
    with SessionLock(slot_path(cfg.state_dir, sid, "archive"), lock_timeout):
        # Again under the lock `remove` takes: a forget meanwhile left its tombstone first.
        if is_forgotten(cfg.state_dir, sid):
            return 0
        d = _session_dir(cfg, sid, create=True)
        m = _load_manifest(d, sid)
        for path in files:
            name = name_for(path)
            e = m.files.get(name)
            if e is not None and _unchanged(d, path, e):
                _kill_point()
                continue  # a stat each tells it: most files of a session end as they were
            try:
                src, st = open_regular(path)
            except (FileNotFoundError, NotAFile):
                continue
            try:
                head = zlib.crc32(read_fd(src, HEAD))
                e = m.files.get(name)
                if e is None:
                    e = m.files[name] = ArchivedFile(source=stored_path(str(path)))
                changed = True
                if e.offset and (e.inode != st.st_ino or st.st_size < e.offset
                                 or e.head_crc != head):
                    e.generation += 1  # rewritten: keep the old copy, start anew
                    e.offset, e.gz_size = 0, 0
                target = d / _generation_name(name, e.generation)
                _subfolders(d, name)
                fd = _open_archive(target, write=True)
                try:
                    _settle_tail(fd, e, sync)
                    if st.st_size > e.offset:
                        copied = st.st_size - e.offset
                        e.gz_size = _append_member(fd, e.gz_size, src, e.offset, copied,
                                                   level, sync)
                        e.offset += copied
                        total += copied
                finally:
                    os.close(fd)
                e.inode, e.head_crc, e.source = st.st_ino, head, stored_path(str(path))
            finally:
                os.close(src)
            _kill_point()
        if changed or not (d / "manifest.json").exists():
            _save_manifest(d, m, sync)
    return total


def can_sync_all() -> bool:
    """Whether `sync_all` is one call here (Linux's syncfs); elsewhere each
    archive file is synced as it is written."""
    return _syncfs() is not None


def sync_all(cfg: Config) -> None:
    """Everything written on the archive's file system on disk (syncfs: one
    journal commit, where an fsync of each member and manifest of a first
    backfill cost ~6 ms of waiting and 0.3 ms of CPU apiece here)."""
    call = _syncfs()
    if call is None:
        return
    try:
        fd = os.open(archive_root(cfg), os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # no archive yet: nothing written to it
    try:
        if call(fd) != 0:
            os.sync()
    finally:
        os.close(fd)


_SYNCFS: list[Callable[[int], int] | None] = []  # looked up once: ctypes costs ~3 ms


def _syncfs() -> Callable[[int], int] | None:
    """Linux's syncfs, or None where there is none."""
    if not _SYNCFS:
        try:
            if not sys.platform.startswith("linux"):
                raise ImportError
            import ctypes

            found = ctypes.CDLL(None, use_errno=True).syncfs
            found.argtypes, found.restype = [ctypes.c_int], ctypes.c_int
            _SYNCFS.append(found)
        except (OSError, AttributeError, ImportError):
            _SYNCFS.append(None)
    return _SYNCFS[0]


def remove(cfg: Config, sid: str) -> str | None:
    """Remove a session's copy (and any marker of a run owed to it), under
    the lock every archive run takes, so none writes it back after; the
    folder removed, if any. Called after the session's tombstone is left."""
    d = archive_root(cfg) / safe_id(sid)
    marker = locations.archive_pending_file(cfg.state_dir, sid)
    with contextlib.suppress(OSError):
        os.unlink(marker)
    if not os.path.isdir(locations.locks_dir(cfg.state_dir)):
        make_private_dir(locations.locks_dir(cfg.state_dir))
    with SessionLock(slot_path(cfg.state_dir, sid, "archive"), 30.0):
        if not d.is_dir() or d.is_symlink():
            return None
        import shutil

        shutil.rmtree(d, ignore_errors=True)
        return str(d)


def pending_bytes(cfg: Config, sid: str, files: list[Path]) -> int:
    """Bytes `archive_files` would compress now: a stat per file, no reading."""
    try:
        m = _load_manifest(_session_dir(cfg, sid), sid)
    except OSError:
        return 0
    total = 0
    for p in files:
        e = m.files.get(name_for(p))
        try:
            st = os.stat(p)
        except OSError:
            continue
        if e is None or e.inode != st.st_ino or st.st_size < e.offset:
            total += st.st_size
        else:
            total += st.st_size - e.offset
    return total


# -- from the hooks ----------------------------------------------------------------------------

# Bytes a second a hook counts on compressing at level 1 on a busy machine
# (~77 MB/s idle here): more than the time left allows goes to a detached run.
HOOK_RATE = 20e6
HOOK_MARGIN_S = 0.1


def _pending_dir(cfg: Config) -> str:
    return locations.archive_pending_dir(cfg.state_dir)


def mark_pending(cfg: Config, sid: str, transcript: str) -> str:
    """A marker naming the session's transcript, there until its archive run
    finishes: a run killed part way (Claude Code stops SessionEnd hooks at
    1.5 s) is finished by the next one, whichever session it is for."""
    from vibe_vault.atomic import write_atomic

    folder = _pending_dir(cfg)
    make_private_dir(folder)
    marker = locations.archive_pending_file(cfg.state_dir, sid)
    write_atomic(marker, msgspec.json.encode([sid, transcript]), mode=0o600)
    return marker


def pending_sessions(cfg: Config) -> list[tuple[str, str, str]]:
    """(session id, transcript, marker) of every archive run not known to have finished."""
    out = []
    try:
        entries = sorted(os.scandir(_pending_dir(cfg)), key=lambda e: e.name)
    except OSError:
        return []
    for entry in entries:
        try:
            fd, st = open_regular(entry.path, follow_symlinks=False)
            try:
                sid, transcript = msgspec.json.decode(read_fd(fd, min(st.st_size, 1 << 16)),
                                                      type=tuple[str, str])
            finally:
                os.close(fd)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            continue
        if safe_id(sid) == entry.name:
            out.append((sid, transcript, entry.path))
    return out


def finish_pending(cfg: Config, only: str | None = None) -> tuple[int, list[str]]:
    """Archive the sessions whose markers remain (or just `only`'s); (bytes
    archived, problems)."""
    total = 0
    problems: list[str] = []
    for sid, transcript, marker in pending_sessions(cfg):
        if only is not None and sid != only:
            continue
        try:
            total += archive_files(cfg, sid, session_files(transcript))
        except OSError as exc:
            problems.append(f"{sid}: {exc.filename or ''} {exc.strerror or exc}".strip())
            continue
        with contextlib.suppress(OSError):
            os.unlink(marker)
    return total, problems


def at_session_end(cfg: Config, sid: str, transcript: str, deadline: float) -> str | None:
    """SessionEnd's archive step: the session's new bytes (main transcript,
    agent files, tool results) appended within the time left, else by a
    detached `vv archive --pending`; a line for the log when it was handed on."""
    import time

    if not cfg.get("archive"):
        return None
    from vibe_vault.privacy import is_forgotten

    if is_forgotten(cfg.state_dir, sid):
        return None  # no copy is kept of a forgotten session: no marker either
    files = session_files(transcript)
    marker = mark_pending(cfg, sid, transcript)
    if is_forgotten(cfg.state_dir, sid):
        # A `vv forget` since the look above may have removed the markers
        # before this one was written: this one goes too.
        with contextlib.suppress(OSError):
            os.unlink(marker)
        return None
    left = deadline - time.monotonic() - HOOK_MARGIN_S
    others = len(pending_sessions(cfg)) > 1
    if left > 0 and pending_bytes(cfg, sid, files) <= left * HOOK_RATE:
        from vibe_vault.lock import LockTimeout

        try:
            archive_files(cfg, sid, files, lock_timeout=min(0.2, left), level=1)
        except LockTimeout:
            if is_forgotten(cfg.state_dir, sid):  # `vv forget` holds it: nothing is owed
                with contextlib.suppress(OSError):
                    os.unlink(marker)
                return None
        else:
            with contextlib.suppress(OSError):
                os.unlink(marker)
            if not others:
                return None
    start_in_background(cfg)
    # (no session id: a `vv forget` running meanwhile takes them out of the log)
    return "the archive run continues in the background (vv archive --pending)"


def start_in_background(cfg: Config) -> None:
    """`vv archive --pending`, detached like the hook's `vv index`."""
    from vibe_vault.detach import run_detached

    run_detached(cfg, "archive", "--pending")


def _unchanged(folder: Path, path: Path, archived: ArchivedFile) -> bool:
    """The file is as archived and its archive ends where the manifest says."""
    try:
        st = os.stat(path)
        gz = os.lstat(folder / _generation_name(name_for(path), archived.generation))
    except OSError:
        return False
    return (st.st_size == archived.offset and st.st_ino == archived.inode
            and stat.S_ISREG(gz.st_mode) and gz.st_size == archived.gz_size)


def _settle_tail(fd: int, archived: ArchivedFile, sync: bool = True) -> None:
    """Make the archive file end where the manifest says: cut what a killed run
    left past it; when the file is shorter or the length was never recorded,
    take what its whole members hold, synced before a manifest names them.
    (A new file is empty: nothing to cut or sync, where every first backfill
    paid an fsync per file.)"""
    size = os.fstat(fd).st_size
    scanned = archived.gz_size < 0 or size < archived.gz_size
    if scanned:
        found = scan(fd)
        archived.gz_size, archived.offset = found.gz_size, found.raw_size
    if size != archived.gz_size:
        os.ftruncate(fd, archived.gz_size)
    if sync and size and (scanned or size != archived.gz_size):
        os.fsync(fd)


# -- checking and mending ---------------------------------------------------------------------


class Check(Struct):
    files: int = 0
    bytes: int = 0
    problems: list[str] = field(default_factory=list)


def verify(cfg: Config, sid: str, sources: dict[str, Path] | None = None) -> Check:
    """Read-only: every archived file decompresses whole to as many bytes as
    the manifest says, and, where its transcript is still there and unchanged,
    to the transcript's bytes."""
    out = Check()
    try:
        d = _session_dir(cfg, sid)
    except ArchiveProblem as exc:
        out.problems.append(f"{sid}: {exc.filename} {exc.strerror}")
        return out
    m = _load_manifest(d, sid)
    for name, e in sorted(m.files.items()):
        label = f"{sid}/{name}"
        try:
            fd = _open_archive(d / _generation_name(name, e.generation), write=False)
        except OSError as exc:
            out.problems.append(f"{label}: {exc.strerror or exc}")
            continue
        try:
            problem = _check_one(fd, e, (sources or {}).get(name) or Path(e.source))
        finally:
            os.close(fd)
        if problem:
            out.problems.append(f"{label}: {problem}")
        else:
            out.files += 1
            out.bytes += e.offset
    return out


def _check_one(fd: int, archived: ArchivedFile, source: Path) -> str | None:
    size = os.fstat(fd).st_size
    if archived.gz_size >= 0 and size < archived.gz_size:
        return f"shorter than recorded ({size} of {archived.gz_size} bytes)"
    upto = archived.gz_size if archived.gz_size >= 0 else size
    try:
        src, st = open_regular(source)
    except OSError:
        src = None
    try:
        same = src is not None and st.st_ino == archived.inode and st.st_size >= archived.offset
        raw = whole_raw = whole_end = 0
        for end, data in _members(fd, upto):
            if same and src is not None and read_fd(src, len(data), raw) != data:
                return f"differs from {source} at byte {raw}"
            raw += len(data)
            if end >= 0:
                whole_raw, whole_end = raw, end
        if whole_end < upto:
            return (f"damaged after {whole_raw} bytes (byte {whole_end} of the archive); "
                    "vv archive --repair keeps what is whole")
        if raw != archived.offset:
            return f"holds {raw} bytes, the manifest says {archived.offset}"
        if size > upto:
            return (f"ends with {size - upto} bytes a cut-short run left (the next vv archive, "
                    "or vv archive --repair, removes them)")
    finally:
        if src is not None:
            os.close(src)
    return None


def repair(cfg: Config, sid: str) -> list[str]:
    """Cut each archive file after its last whole member and record what it
    holds; what was done, a line each. The next `archive_files` appends the
    rest from the transcript, if it is still there."""
    done: list[str] = []
    d = _session_dir(cfg, sid)
    if not d.is_dir():
        return done
    with SessionLock(slot_path(cfg.state_dir, sid, "archive"), 30.0):
        m = _load_manifest(d, sid)
        for name, e in sorted(m.files.items()):
            path = d / _generation_name(name, e.generation)
            try:
                fd = _open_archive(path, write=True)
            except OSError as exc:
                done.append(f"{sid}/{name}: {exc.strerror or exc}; left as it is")
                continue
            try:
                found = _recorded(fd, e) or scan(fd)
                if (found.damaged or found.gz_size != os.fstat(fd).st_size
                        or found.raw_size != e.offset):
                    os.ftruncate(fd, found.gz_size)
                    os.fsync(fd)
                    done.append(f"{sid}/{name}: kept {found.raw_size} whole bytes"
                                + (f" (was {e.offset})" if found.raw_size != e.offset else ""))
                    e.gz_size, e.offset = found.gz_size, found.raw_size
            finally:
                os.close(fd)
        _save_manifest(d, m)
    return done


def _recorded(fd: int, archived: ArchivedFile) -> Member | None:
    """The members up to the manifest's recorded length, when they are whole
    and hold what it says: past them is only what a cut-short run left."""
    if archived.gz_size < 0 or os.fstat(fd).st_size < archived.gz_size:
        return None
    found = scan(fd, archived.gz_size)
    if found.damaged or found.raw_size != archived.offset:
        return None
    found.damaged = os.fstat(fd).st_size > archived.gz_size
    return found


def archived_sessions(cfg: Config) -> list[str]:
    """Session folders in the archive, by their manifests' session ids."""
    root = archive_root(cfg)
    sids = []
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return []
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            sid = _peek_session_id(Path(entry.path))
            if sid:
                sids.append(sid)
    return sids


def _peek_session_id(folder: Path) -> str:
    try:
        fd, st = open_regular(folder / "manifest.json", follow_symlinks=False)
        try:
            data = msgspec.json.decode(read_fd(fd, st.st_size))
        finally:
            os.close(fd)
    except (OSError, msgspec.DecodeError):
        return ""
    sid = data.get("session_id") if isinstance(data, dict) else None
    return sid if isinstance(sid, str) and safe_id(sid) == folder.name else ""


# -- restoring --------------------------------------------------------------------------------


def restore(cfg: Config, sid: str, into: Path) -> tuple[Path, list[Path]] | None:
    """Decompress a session's archive (latest generation) into `into`;
    (main transcript, agent files), or None when there is no archive.
    A damaged member ends that file: everything whole before it is kept."""
    d = _session_dir(cfg, sid)
    m = _load_manifest(d, sid)
    if not m.files:
        return None
    main: Path | None = None
    agents: list[Path] = []
    for name, e in sorted(m.files.items()):
        dest = into / name
        if not inside(into, dest.parent):
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = _open_archive(d / _generation_name(name, e.generation), write=False)
        except OSError:
            continue
        try:
            with open(dest, "wb") as out:
                write_whole(fd, e, out)
        finally:
            os.close(fd)
        if is_agent(name):
            agents.append(dest)
        elif "/" not in name and name.endswith(".jsonl"):
            main = dest
    if main is None:
        return None
    return main, agents


def write_whole(fd: int, archived: ArchivedFile, out: BinaryIO) -> int:
    """Write to `out` the bytes an archive file holds for its manifest entry:
    its whole members up to the recorded length (what a killed run left past
    it is not the transcript's), nothing of a damaged member or after it;
    how many bytes."""
    size = os.fstat(fd).st_size
    upto = archived.gz_size if 0 <= archived.gz_size <= size else size
    start = out.tell()
    whole = start
    for end, data in _members(fd, upto):
        out.write(data)
        if end >= 0:
            whole = out.tell()
    out.truncate(whole)
    out.seek(whole)
    return whole - start


def archived_head(cfg: Config, sid: str, name: str, archived: ArchivedFile,
                  limit: int = 1 << 20) -> bytes:
    """The first `limit` bytes an archived file holds (fewer when it is shorter
    or its first member is damaged)."""
    try:
        fd = open_archived(cfg, sid, name, archived)
    except OSError:
        return b""
    try:
        dec = zlib.decompressobj(wbits=31)
        out: list[bytes] = []
        held = at = 0
        size = min(os.fstat(fd).st_size, archived.gz_size if archived.gz_size >= 0 else 1 << 62)
        while held < limit and at < size and not dec.eof:
            chunk = os.pread(fd, min(1 << 16, size - at), at)
            if not chunk:
                break
            at += len(chunk)
            try:
                piece = dec.decompress(chunk, limit - held)
            except zlib.error:
                break
            out.append(piece)
            held += len(piece)
            while dec.unconsumed_tail and held < limit:
                piece = dec.decompress(dec.unconsumed_tail, limit - held)
                out.append(piece)
                held += len(piece)
        return b"".join(out)
    finally:
        os.close(fd)


def adopt(cfg: Config, sid: str, placed: dict[str, Path]) -> None:
    """Files `vv restore` put back hold the archived bytes: record them as the
    sources (their new inodes), so the next run appends what the resumed
    session adds instead of starting the copy anew."""
    d = _session_dir(cfg, sid)
    with SessionLock(slot_path(cfg.state_dir, sid, "archive"), 30.0):
        m = _load_manifest(d, sid)
        for name, path in placed.items():
            e = m.files.get(name)
            try:
                fd, st = open_regular(path)
            except OSError:
                continue
            try:
                head = zlib.crc32(read_fd(fd, HEAD))
            finally:
                os.close(fd)
            if e is not None and st.st_size == e.offset:
                e.inode, e.head_crc, e.source = st.st_ino, head, stored_path(str(path))
        _save_manifest(d, m)


def manifest(cfg: Config, sid: str) -> Manifest:
    return _load_manifest(_session_dir(cfg, sid), sid)


def open_archived(cfg: Config, sid: str, name: str, archived: ArchivedFile) -> int:
    return _open_archive(_session_dir(cfg, sid) / _generation_name(name, archived.generation),
                         write=False)


def archived_at(cfg: Config, sid: str) -> float:
    """When the session was last archived (its manifest's mtime); 0 when never."""
    try:
        return os.lstat(_session_dir(cfg, sid) / "manifest.json").st_mtime
    except OSError:
        return 0.0


def temp_dir(cfg: Config) -> str:
    import tempfile

    make_private_dir(locations.tmp_dir(cfg.state_dir))
    return tempfile.mkdtemp(prefix="restore-", dir=locations.tmp_dir(cfg.state_dir))

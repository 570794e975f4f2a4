"""Keep transcripts after Claude Code deletes them (after 30 days by default).

Each session's files are copied to `<archive>/<session>/<name>.gz`, appending
only the bytes added since the last run as a new gzip member (gzip readers
concatenate members, so the archive decompresses to the original bytes). A
manifest per session records how far each file was copied and the file's
identity; a file that was rewritten starts a new archive generation.
"""


import gzip
import os
import shutil
import tempfile
import zlib
from pathlib import Path

import msgspec
from msgspec import Struct, field

from vibe_vault.atomic import make_private_dir, write_atomic
from vibe_vault.config import Config
from vibe_vault.lock import SessionLock
from vibe_vault.paths import safe_id, safe_name
from vibe_vault.reader import HEAD  # the same first bytes a cursor checks


class Entry(Struct):
    source: str
    offset: int = 0
    inode: int = 0
    head_crc: int = 0
    generation: int = 0


class Manifest(Struct):
    session_id: str
    files: dict[str, Entry] = field(default_factory=dict)  # archive name -> entry


def archive_root(cfg: Config) -> Path:
    custom = cfg.get("archive_dir")
    if custom:
        return Path(os.path.expanduser(custom))
    return Path(cfg.vault) / ".vibe-vault" / "archive"


def _session_dir(cfg: Config, sid: str) -> Path:
    return archive_root(cfg) / safe_id(sid)


def _name_for(path: Path) -> str:
    """Archive name of a session file: keeps the subagents/ layout."""
    if path.parent.name == "subagents":
        return "subagents/" + safe_name(path.name, 120)
    return safe_name(path.name, 120)


def _load_manifest(d: Path, sid: str) -> Manifest:
    try:
        m = msgspec.json.decode((d / "manifest.json").read_bytes(), type=Manifest)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return Manifest(session_id=sid)
    return m if m.session_id == sid else Manifest(session_id=sid)


def needs_archive(cfg: Config, sid: str, files: list[Path]) -> bool:
    m = _load_manifest(_session_dir(cfg, sid), sid)
    for p in files:
        e = m.files.get(_name_for(p))
        try:
            st = os.stat(p)
        except OSError:
            continue
        if e is None or e.offset != st.st_size or e.inode != st.st_ino:
            return True
    return False


def archive_files(cfg: Config, sid: str, files: list[Path]) -> int:
    """Append what is new in each file to its archive; bytes archived."""
    d = _session_dir(cfg, sid)
    make_private_dir(d)
    make_private_dir(os.path.join(cfg.state_dir, "locks"))
    total = 0
    with SessionLock(Path(cfg.state_dir) / "locks" / f"{safe_id(sid)}.archive.lock", 30.0):
        m = _load_manifest(d, sid)
        for path in files:
            name = _name_for(path)
            try:
                with open(path, "rb") as src:
                    st = os.fstat(src.fileno())
                    head = zlib.crc32(src.read(HEAD))
                    e = m.files.get(name)
                    if e is None:
                        e = m.files[name] = Entry(source=str(path))
                    if e.offset and (e.inode != st.st_ino or st.st_size < e.offset
                                     or e.head_crc != head):
                        e.generation += 1  # rewritten: keep the old copy, start anew
                        e.offset = 0
                    if st.st_size == e.offset:
                        continue
                    src.seek(e.offset)
                    target = d / _generation_name(name, e.generation)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    # A new gzip member per run; readers see one stream. Synced: once
                    # Claude Code deletes the transcript this is the only copy.
                    with open(target, "ab") as raw:
                        with gzip.GzipFile(fileobj=raw, mode="ab", compresslevel=6) as out:
                            left = st.st_size - e.offset
                            while left > 0:
                                chunk = src.read(min(1 << 20, left))
                                if not chunk:
                                    break
                                out.write(chunk)
                                left -= len(chunk)
                        raw.flush()
                        os.fsync(raw.fileno())
                    copied = st.st_size - e.offset - left
                    os.chmod(target, 0o600)
                    e.offset += copied
                    e.inode, e.head_crc, e.source = st.st_ino, head, str(path)
                    total += copied
            except FileNotFoundError:
                continue
        write_atomic(d / "manifest.json", msgspec.json.encode(m), mode=0o600, durable=True)
    return total


def _generation_name(name: str, generation: int) -> str:
    return f"{name}.gz" if generation == 0 else f"{name}.{generation}.gz"


def restore(cfg: Config, sid: str, into: Path) -> tuple[Path, list[Path]] | None:
    """Decompress a session's archive (latest generation) into `into`;
    (main transcript, subagent files), or None when there is no archive."""
    d = _session_dir(cfg, sid)
    m = _load_manifest(d, sid)
    if not m.files:
        return None
    main: Path | None = None
    agents: list[Path] = []
    for name, e in sorted(m.files.items()):
        src = d / _generation_name(name, e.generation)
        dest = into / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(src, "rb") as fin, open(dest, "wb") as fout:
            shutil.copyfileobj(fin, fout, 1 << 20)
        if name.startswith("subagents/") or Path(name).name.startswith("agent-"):
            agents.append(dest)
        else:
            main = dest
    if main is None:
        return None
    return main, agents


def temp_dir(cfg: Config) -> str:
    make_private_dir(Path(cfg.state_dir) / "tmp")
    return tempfile.mkdtemp(prefix="restore-", dir=Path(cfg.state_dir) / "tmp")


def verify(cfg: Config, sid: str, files: list[Path]) -> bool:
    """True when each file's archive decompresses to the file's archived bytes."""
    d = _session_dir(cfg, sid)
    m = _load_manifest(d, sid)
    for path in files:
        e = m.files.get(_name_for(path))
        if e is None:
            return False
        try:
            with gzip.open(d / _generation_name(_name_for(path), e.generation), "rb") as a, \
                    open(path, "rb") as b:
                while True:
                    x = a.read(1 << 20)
                    y = b.read(len(x)) if x else b""
                    if x != y:
                        return False
                    if not x:
                        return b.tell() >= e.offset
        except (OSError, EOFError, zlib.error):
            return False
    return True

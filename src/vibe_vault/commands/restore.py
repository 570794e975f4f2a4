"""`vv restore SESSION...`: put archived sessions back where Claude Code looks
for them, so `claude --resume` works again after its cleanup deleted them."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import BinaryIO

from msgspec import Struct, field

from vibe_vault.config import Config
from vibe_vault.folder_names import project_folder_name, shown_folder
from vibe_vault.helpformat import Formatter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vibe_vault.archive import ArchivedFile

# Claude Code's own limit on a project folder's name (in UTF-16 code units).


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "restore",
        help="put archived sessions back so `claude --resume` finds them again",
        description="Write each session's archived transcript, subagent files and tool "
        "results back into Claude Code's project folder for the session's working "
        "directory (under $CLAUDE_CONFIG_DIR, default ~/.claude), byte for byte, then print "
        "the command that resumes it. A file already there is never replaced unless it is "
        "an older, shorter copy of the archived one. A session the archive has no copy of, "
        "or a damaged copy of, is refused (vv archive --verify names what is whole).",
        epilog="examples:\n  vv restore 1af7fc5e\n  vv restore --project myapp\n"
        "  vv restore --since 2026-10-01",
        formatter_class=Formatter,
    )
    p.add_argument("sessions", nargs="*", metavar="SESSION",
                   help="session ids, or their first characters")
    p.add_argument("--project", metavar="NAME", help="every archived session of this project")
    p.add_argument("--since", metavar="DATE",
                   help="every session archived on or after DATE (YYYY-MM-DD)")
    p.add_argument("--dry-run", action="store_true", help="say what would be restored")
    p.set_defaults(func=run)


class Restored(Struct):
    session_id: str
    folder: str = ""
    cwd: str = ""
    written: list[str] = field(default_factory=list)
    in_place: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # a newer (or other) file was there
    refused: str = ""  # why nothing was restored


def _cwd_of(head: bytes) -> str:
    """The working directory the transcript's first lines name."""
    import msgspec

    from vibe_vault.entries import KNOWN_TYPES

    class Line(Struct):
        type: str = ""
        cwd: str | None = None

    decode = msgspec.json.Decoder(Line).decode
    for raw in head.split(b"\n"):
        try:
            line = decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        if line.type in KNOWN_TYPES and line.cwd:
            return line.cwd
    return ""


def main_name(names: list[str], sid: str) -> str | None:
    """The main transcript among a manifest's names."""
    from vibe_vault.archive import is_agent

    mains = [n for n in names if "/" not in n and n.endswith(".jsonl") and not is_agent(n)]
    return next((n for n in mains if n == f"{sid}.jsonl"), mains[0] if mains else None)


def restore_session(cfg: Config, sid: str, dry_run: bool = False) -> Restored:
    from vibe_vault import archive
    from vibe_vault.paths import inside

    out = Restored(session_id=sid)
    try:
        m = archive.manifest(cfg, sid)
    except OSError as exc:
        out.refused = f"its archive folder {exc.filename} {exc.strerror}"
        return out
    main = main_name(sorted(m.files), sid)
    if main is None:
        out.refused = "the archive has no copy of it"
        return out
    problems = archive.verify(cfg, sid).problems
    if problems:
        out.refused = (f"the archive's copy is damaged ({problems[0].split(': ', 1)[-1]}); "
                       "vv archive --verify names what is whole")
        return out
    e_main = m.files[main]
    out.cwd = _cwd_of(archive.archived_head(cfg, sid, main, e_main))
    folder_name = (project_folder_name(out.cwd) if out.cwd
                   else Path(e_main.source).parent.name)
    folder = Path(cfg.projects_root) / folder_name
    out.folder = str(folder)
    own = folder / main[: -len(".jsonl")]
    placed: dict[str, Path] = {}
    for name, e in sorted(m.files.items()):
        dest = (own if "/" in name else folder) / name
        if dry_run:
            out.written.append(str(dest))
            continue
        os.makedirs(dest.parent, mode=0o700, exist_ok=True)
        if not inside(folder, dest.parent):
            out.kept.append(f"{dest} (its folder leads elsewhere)")
            continue
        verdict = _put(cfg, sid, name, e, dest)
        {"written": out.written, "in place": out.in_place}.get(verdict, out.kept).append(
            str(dest) if verdict in ("written", "in place") else f"{dest} ({verdict})")
        if verdict in ("written", "in place"):
            placed[name] = dest
    if placed:
        archive.adopt(cfg, sid, placed)
    return out


def _put(cfg: Config, sid: str, name: str, archived: ArchivedFile, dest: Path) -> str:
    """Write one archived file to `dest` through a temp file beside it;
    'written', 'in place', or why the file there was kept."""
    from vibe_vault import archive

    tmp = dest.parent / f".vv-restore-{os.getpid()}-{os.urandom(4).hex()}"
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                 0o600)
    try:
        with os.fdopen(fd, "w+b") as f:
            src = archive.open_archived(cfg, sid, name, archived)
            try:
                size = archive.write_whole(src, archived, f)
            finally:
                os.close(src)
            f.flush()
            os.fsync(f.fileno())
            verdict = _against(dest, f, size)
        if verdict == "written":
            os.replace(tmp, dest)
        return verdict
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


def _against(dest: Path, file: BinaryIO, size: int) -> str:
    """What to do about the file at `dest`: 'written' when there is none or it
    is an older (shorter) copy of the restored bytes (`file`), else leave it."""
    import stat

    try:
        st = os.lstat(dest)
    except FileNotFoundError:
        return "written"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file: kept"
    if st.st_size > size:
        return "newer: kept"
    with open(dest, "rb") as there:
        file.seek(0)
        left = st.st_size
        while left:
            a = there.read(min(1 << 20, left))
            if not a or file.read(len(a)) != a:
                return "differs: kept"
            left -= len(a)
    return "in place" if st.st_size == size else "written"


def _parse_day(text: str) -> float:
    from vibe_vault.times import typed_epoch

    try:
        return typed_epoch(text)  # a bare date: the start of that day where the user is
    except ValueError:
        raise SystemExit(f"vv: --since takes a date like 2026-11-01, not {text!r}") from None


def chosen(cfg: Config, args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """(session ids to restore, one-line refusals of the names that match none)."""
    from vibe_vault import archive
    from vibe_vault.project import project_name

    archived = archive.archived_sessions(cfg)
    picked: list[str] = []
    refusals: list[str] = []
    for given in args.sessions:
        hits = [s for s in archived if s == given] or [s for s in archived
                                                      if s.startswith(given)]
        if len(hits) == 1:
            picked.append(hits[0])
        elif hits:
            refusals.append(f"{given}: names {len(hits)} archived sessions; give more of the id")
        else:
            refusals.append(f"{given}: the archive has no copy of this session")
    if args.project or args.since:
        since = _parse_day(args.since) if args.since else None
        for sid in archived:
            if since is not None and archive.archived_at(cfg, sid) < since:
                continue
            if args.project:
                m = archive.manifest(cfg, sid)
                main = main_name(sorted(m.files), sid)
                if main is None:
                    continue
                cwd = _cwd_of(archive.archived_head(cfg, sid, main, m.files[main]))
                names = {project_name(cwd), os.path.basename(cwd.rstrip("/\\"))} if cwd else set()
                if args.project not in names and not Path(
                        m.files[main].source).parent.name.endswith("-" + args.project):
                    continue
            if sid not in picked:
                picked.append(sid)
    return picked, refusals


def run(args: argparse.Namespace, cfg: Config) -> int:
    from vibe_vault.resume import resume_command
    from vibe_vault.session import gate, redactor_for
    from vibe_vault.text import terminal_safe

    if not (args.sessions or args.project or args.since):
        print("vv: name sessions to restore, or --project NAME, or --since DATE",
              file=sys.stderr)
        return 2
    sids, refusals = chosen(cfg, args)
    for line in refusals:
        print(f"vv: {terminal_safe(line)}", file=sys.stderr)
    if not sids and (args.project or args.since) and not refusals:
        print("vv: no archived session matches", file=sys.stderr)
        return 1
    failed = len(refusals)
    redactor = redactor_for(cfg)
    for sid in sids:
        out = restore_session(cfg, sid, dry_run=args.dry_run)
        if out.refused:
            print(f"vv: {terminal_safe(sid)}: {terminal_safe(out.refused)}", file=sys.stderr)
            failed += 1
            continue
        for line in out.kept:
            print(f"vv: {terminal_safe(sid)}: {terminal_safe(line)}", file=sys.stderr)
        verb = "would restore" if args.dry_run else "restored"
        # The folder as every other command shows it: through the gate (a
        # secret in its name is hidden, in Claude Code's folder name too).
        cwd = str(gate(out.cwd, 4096, redactor)) if out.cwd else ""
        folder = os.path.join(os.path.dirname(out.folder),
                              shown_folder(os.path.basename(out.folder), cwd))
        print(f"{verb} {terminal_safe(sid)}: {len(out.written)} files"
              + (f", {len(out.in_place)} already in place" if out.in_place else "")
              + (f", {len(out.kept)} kept as they were" if out.kept else "")
              + f", in {terminal_safe(folder)}")
        print(f"  {terminal_safe(resume_command(cwd, sid))}")
    return 1 if failed else 0

"""Find sessions in Claude Code's layouts.

- main transcripts: `<slug>/<uuid>.jsonl` (or any other `*.jsonl` carrying a
  `sessionId`, such as checkpoint copies named `full.jsonl`);
- subagents: `<slug>/<uuid>/subagents/agent-*.jsonl`, attached to `<uuid>`, and
  workflow agents `<slug>/<uuid>/subagents/workflows/wf_<run>/agent-*.jsonl` (2.1.2xx+);
- legacy subagents: `<slug>/agent-*.jsonl`, attached by the `sessionId` inside.

A subagent file never becomes a session of its own, and one whose session has
no main transcript is left out (no phantom sessions).
"""


import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import msgspec
from msgspec import Struct, field

from vibe_vault import patterns
from vibe_vault.locations import in_subagents_dir, is_agent_file
from vibe_vault.regular import open_regular, read_regular
from vibe_vault.stored_paths import file_key

_UUID = patterns.compile(
    r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
SNIFF_BYTES = 1 << 20


class Source(Struct):
    """A session's files, as path strings (a Path per file cost a first
    backfill of 100,000 sessions ~0.3 s before its first job)."""

    session_id: str
    main: str
    agents: list[str] = field(default_factory=list)


def sniff_session_id(path: str | os.PathLike[str]) -> str | None:
    """The first `sessionId` in the file's first megabyte."""
    try:
        data = read_regular(path, SNIFF_BYTES)
    except OSError:
        return None
    for line in data.split(b"\n"):
        if b"sessionId" not in line:
            continue
        try:
            obj = msgspec.json.decode(line)
        except msgspec.DecodeError:
            continue
        if isinstance(obj, dict):
            sid = obj.get("sessionId")
            if isinstance(sid, str) and sid:
                return sid
    return None


def orphan_agents(root: str, given: str) -> dict[str, list[str]]:
    """The subagent files under `root` of each session whose id starts with
    `given` (lower case), by the id: those `discover` leaves out when their
    session has no main transcript (the caller knows it has none). Read only
    to answer for an id no session has (`vv show`): the walk opens every
    legacy agent file."""
    found: dict[str, list[str]] = {}
    for entry in jsonl_entries(root):
        folder, name = os.path.split(entry.path)
        if not is_agent_file(name):
            continue
        flow = workflow_session(folder)
        sid = flow if flow is not None else os.path.basename(os.path.dirname(folder)) \
            if in_subagents_dir(entry.path) else sniff_session_id(entry.path)
        if sid and sid.lower().startswith(given):
            found.setdefault(sid, []).append(entry.path)
    return found


def groups(roots: list[Path]) -> list[Path]:
    """The roots split into folders that each hold whole sessions (a main
    transcript and its subagent files): a root holding only folders (Claude
    Code's projects folder) by its subfolders, any other root whole. Work done
    per group stays in proportion to one folder, not to the whole history."""
    out: list[Path] = []
    for root in roots:
        try:
            with os.scandir(root) as entries:
                children = sorted(entries, key=lambda e: e.name)
        except OSError:
            out.append(root)  # a file, or what discover will report
            continue
        if any(e.name.endswith(".jsonl") for e in children):
            out.append(root)
        else:
            out.extend(Path(e.path) for e in children if e.is_dir(follow_symlinks=False))
    return out


def jsonl_entries(root: str) -> Iterator[os.DirEntry[str]]:
    """The directory entry of every .jsonl file under a folder, in name order,
    depth first (a symlinked folder is not followed, an unreadable one passed
    over). An entry's `stat` costs one call and no path parsing."""
    folders = [root]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        below = []
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                below.append(entry.path)
            elif entry.name.endswith(".jsonl"):
                yield entry
        folders.extend(reversed(below))


def workflow_session(folder: str) -> str | None:
    """The session a folder `<sid>/subagents/workflows/wf_<run>` belongs to, or None."""
    flows, run = os.path.split(folder)
    subagents, workflows = os.path.split(flows)
    if not run.startswith("wf_") or workflows != "workflows" or \
            os.path.basename(subagents) != "subagents":
        return None
    return os.path.basename(os.path.dirname(subagents)) or None


def _walk(root: Path) -> list[tuple[str, os.DirEntry[str] | None]]:
    """Every .jsonl file under root (or root itself, a file), with its entry.
    Paths as strings: a Path per file cost a first backfill of 100,000
    sessions about half a second on one core."""
    if root.is_file():
        return [(str(root), None)]
    return [(entry.path, entry) for entry in jsonl_entries(str(root))]


def discover(roots: list[Path], owners: dict[str, str] | None = None,
             stats: dict[str, os.stat_result] | None = None,
             ) -> tuple[list[Source], dict[str, int]]:
    """Sessions under `roots`, and counts of files passed over by reason.

    `owners` maps legacy agent files to their session, as found before, so
    they need not be opened again; `stats`, when given, receives each file's
    `stat` by path (so a caller need not ask again); a stat already in it is
    taken as the file's.
    """
    owners = owners or {}
    mains: dict[str, Source] = {}
    subagents: list[tuple[str, str]] = []
    legacy: list[str] = []
    skipped: dict[str, int] = {}

    def skip(reason: str) -> None:
        skipped[reason] = skipped.get(reason, 0) + 1

    for root in roots:
        for path, entry in _walk(root):
            try:
                # (a stat the caller already took for this path, as it would be here)
                st = (stats.get(path) if stats else None) or (
                    entry.stat() if entry is not None else os.stat(path))
            except OSError:
                skip("unreadable")
                continue
            if stats is not None:
                stats[path] = st
            if not stat.S_ISREG(st.st_mode):
                # A FIFO, socket or device would block or never end: never opened.
                skip("not a regular file")
                continue
            folder, name = os.path.split(path)
            flow = workflow_session(folder)
            if flow is not None:
                # A workflow's agents (2.1.2xx+): the session's subagents like
                # any other; its journal and the rest are not sessions.
                if is_agent_file(name):
                    subagents.append((flow, path))
                else:
                    skip("other file in subagents/")
                continue
            if in_subagents_dir(path):
                if is_agent_file(name):
                    subagents.append((os.path.basename(os.path.dirname(folder)), path))
                else:
                    skip("other file in subagents/")
                continue
            if is_agent_file(name):
                legacy.append(path)
                continue
            stem = name[:-6] if name.endswith(".jsonl") else os.path.splitext(name)[0]
            if st.st_size == 0 and not _UUID.match(stem):
                # (an empty transcript named by its session's id is that
                # session's, without a note: `vv show` says so, review 27 #15)
                skip("empty")
                continue
            sid = stem if _UUID.match(stem) else sniff_session_id(path)
            if sid is None:
                skip("no session id")
                continue
            if sid in mains:
                skip("duplicate session id")
                continue
            mains[sid] = Source(session_id=sid, main=path)
    for sid, agent in subagents:
        src = mains.get(sid)
        if src is None:
            skip("subagent without its session")
        else:
            src.agents.append(agent)
    for agent in legacy:
        sid = (owners.get(file_key(str(agent))) if owners else None) or sniff_session_id(agent)
        src = mains.get(sid) if sid else None
        if src is None:
            skip("subagent without its session")
        else:
            src.agents.append(agent)
    for src in mains.values():
        src.agents.sort()
    return sorted(mains.values(), key=lambda s: s.main), skipped


class Start(Struct, array_like=True):
    """What a transcript's first lines tell of its session, read by the fold's
    rules: its first timestamp, its first cwd, and whether Claude answered or
    the user asked (False only when the file was read to its end with neither:
    no note)."""

    first_ts: str = ""
    cwd: str = ""
    answered: bool = True


class _PeekBlock(Struct):
    type: str = ""
    text: str | None = None


class _PeekMessage(Struct):
    model: str | None = None
    content: str | list[_PeekBlock] | None = None


# Claude Code's wrappers (`<ide_selection>…</ide_selection>`, `<context>`):
# named with a `-` or `_`; a pair of HTML tags (`<div>…</div>`) holds a
# person's words.
_TAGGED = re.compile(r"<(\w*[-_][\w-]*|context)>.*?</\1>", re.S)


def _asks(message: _PeekMessage) -> bool:
    """Whether a user line's words are a request, near enough as the fold has
    it: words outside Claude Code's wrappers, an image, or a slash command
    given arguments (`/plan add a CSV export`, not a bare `/model`)."""
    content = message.content
    if isinstance(content, str):
        args = re.search(r"<command-args>(.*?)</command-args>", content, re.S)
        return bool(args.group(1).strip() if args else _TAGGED.sub("", content).strip())
    return any(b.type == "image" or (b.type == "text" and b.text and not b.text.lstrip(
        ).startswith("[Request interrupted") and _TAGGED.sub("", b.text).strip())
               for b in content or [])


class _Peek(Struct):
    """The fields of a line the Start needs, typed as `Entry` has them."""

    type: str = ""
    timestamp: str | None = None
    cwd: str | None = None
    isSidechain: bool | None = None
    isApiErrorMessage: bool | None = None
    isMeta: bool | None = None
    subtype: str | None = None
    message: _PeekMessage | None = None


_peek = msgspec.json.Decoder(_Peek).decode
PEEK_BYTES = 1 << 14  # the first lines of most transcripts, answer included


def sniff_start(path: str | os.PathLike[str], limit: int = SNIFF_BYTES) -> Start:
    """The Start of a transcript, from its first complete lines: it stops as
    soon as all three are known (an answer comes within a few lines of the
    start). One read of PEEK_BYTES covers nearly every file; more (in blocks
    growing to `limit`) only when those lines did not tell."""
    from vibe_vault.entries import KNOWN_TYPES, closes_a_turn_before, private_type
    from vibe_vault.times import epoch

    first_ts = cwd = ""
    answered = talked = False
    try:
        fd, _ = open_regular(path)
    except OSError:
        return Start()
    try:
        data = b""
        want = min(PEEK_BYTES, limit)
        while True:
            more = os.pread(fd, want - len(data), len(data))
            data += more
            whole = not more or len(data) < want  # the file's end is in `data`
            end = len(data) if whole else data.rfind(b"\n") + 1
            view = memoryview(data)
            start = 0
            while start < end:
                stop = data.find(b"\n", start, end)
                stop = end if stop < 0 else stop
                line, start = view[start:stop], stop + 1
                if private_type(line) is not None:
                    continue  # a request's whole prompt: nothing to peek at, not to decode
                try:
                    e = _peek(line)
                except msgspec.DecodeError:
                    continue  # a blank or broken line tells nothing
                if (not first_ts and e.timestamp and not e.isMeta  # as the fold has it
                        and not closes_a_turn_before(e.type, e.subtype, talked)
                        and epoch(e.timestamp) is not None):
                    first_ts = e.timestamp
                talked = talked or (e.type in ("user", "assistant") and not e.isSidechain)
                if e.type in KNOWN_TYPES and e.cwd and not cwd:
                    cwd = e.cwd
                if (e.type == "assistant" and not e.isSidechain and e.message is not None
                        and (e.message.model != "<synthetic>" or e.isApiErrorMessage)):
                    answered = True  # as worth_a_note has it, near enough
                elif (e.type == "user" and not e.isSidechain and not e.isMeta
                        and e.message is not None and _asks(e.message)):
                    answered = True  # a request, answered or not: a note too
                if first_ts and cwd and answered:
                    return Start(first_ts, cwd, True)
            if whole:
                return Start(first_ts, cwd, answered)  # the whole file: this is known
            if want >= limit:
                return Start(first_ts, cwd, True)  # not read to the end: an answer may come
            # Lines already read are read again with the next block: simpler than
            # carrying what they told, and rare (a first line over PEEK_BYTES).
            first_ts = cwd = ""
            answered = talked = False
            want = min(want * 4, limit)
    except OSError:
        return Start()
    finally:
        os.close(fd)


def transcript_roots(paths: list[Path], default: str) -> list[Path] | None:
    """The paths a command was given (else `default`), or None after saying on
    stderr which of them do not exist."""
    import sys

    # (`~name` of no such user stays as typed: Path.expanduser would raise)
    roots = [Path(os.path.expanduser(p)) for p in paths] or [Path(default)]
    missing = [str(r) for r in roots if not r.exists()]
    if missing:
        print(f"vv: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return None
    return roots


TAIL_BYTES = 1 << 13  # the end of a transcript read for its last timestamp: most last lines
TAIL_MOST = 1 << 20  # and at most, growing 8x at a time while no line there has one


class _Stamped(Struct):
    timestamp: str = ""


_STAMPED = msgspec.json.Decoder(_Stamped)


def last_stamp(path: str | os.PathLike[str]) -> float | None:
    """Epoch seconds of a transcript's last activity: the timestamp of its
    last complete line that has one of its own (a `summary` line has none),
    read from the file's end; None when none is found in its last TAIL_MOST
    bytes, or the file cannot be read. A backfill orders its sessions by it:
    a file's time says when it was last written, which a copied or restored
    home sets to the copy's time for every file."""
    from vibe_vault.times import epoch

    try:
        fd, st = open_regular(path)
    except OSError:
        return None
    try:
        size = st.st_size
        want = min(TAIL_BYTES, size)
        while want > 0:
            at = size - want
            try:
                data = os.pread(fd, want, at)
            except OSError:
                return None
            end = data.rfind(b"\n")  # (past it: a line still being written)
            first = 0 if at == 0 else data.find(b"\n") + 1  # (before it: a line cut)
            if 0 < first <= end or (first == 0 and end >= 0):
                for line in reversed(data[first:end].split(b"\n")):
                    if b'"timestamp"' not in line:
                        continue
                    try:
                        stamp = _STAMPED.decode(line).timestamp
                    except (msgspec.DecodeError, msgspec.ValidationError):
                        continue
                    seconds = epoch(stamp) if stamp else None
                    if seconds is not None:
                        return seconds
            if want >= min(TAIL_MOST, size):
                return None
            want = min(want * 8, TAIL_MOST, size)
        return None
    finally:
        os.close(fd)

"""`vv hook`: what Claude Code runs on its hook events, with the event JSON on stdin.

The contract, whatever the input: exit 0, nothing on stdout (except SessionStart
context when the user asked for it), one line on stderr and in the log when
something is wrong, never a traceback, never a write outside the vault and
state directories, and finished within the deadline.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Any

MAX_STDIN = 64 << 20
STDIN_WAIT_S = 2.0
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
# SessionEnd updates the indexes itself only while this much time is left.
INLINE_INDEX_SECONDS = 0.4
# Seconds SessionEnd waits for the vault's database when another process writes it.
DATABASE_WAIT = 0.2


def read_stdin() -> bytes:
    """All of stdin, bounded in size and in time (a pipe nobody closes)."""
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return b""
    if os.isatty(fd):
        return b""
    chunks: list[bytes] = []
    total = 0
    deadline = time.monotonic() + STDIN_WAIT_S
    try:
        import select
    except ImportError:  # pragma: no cover - Windows
        select = None  # type: ignore[assignment]
    while total <= MAX_STDIN:
        if select is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                ready, _, _ = select.select([fd], [], [], left)
            except (OSError, ValueError):
                ready = [fd]
            if not ready:
                break
        try:
            chunk = os.read(fd, 1 << 20)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def event_name_fast(data: bytes) -> str | None:
    """`hook_event_name` found by a byte search, without a JSON parser."""
    key = b'"hook_event_name"'
    at = data.find(key)
    if at < 0:
        return None
    i = at + len(key)
    while i < len(data) and data[i] in b" \t\r\n:":
        i += 1
    if i >= len(data) or data[i] != 0x22:
        return None
    end = data.find(b'"', i + 1)
    if end < 0 or end - i > 64:
        return None
    return data[i + 1 : end].decode("ascii", "replace")


def _str(event: dict[str, Any], key: str) -> str | None:
    v = event.get(key)
    return v if isinstance(v, str) else None


def run(argv: list[str] | None = None, collecting: bool | None = None) -> int:
    """`collecting`: whether cycle collections were on before the caller
    turned them off (cli does, before this module loads)."""
    import gc

    if collecting is None:
        collecting = gc.isenabled()
    try:
        return _run(collecting)
    finally:
        if collecting:
            gc.enable()  # (for a caller that goes on: tests call the hook in-process)


def _run(collecting: bool) -> int:
    started = time.monotonic()
    state_dir: str | None = None
    try:
        data = read_stdin()
        name = event_name_fast(data)
        if name in TOOL_EVENTS:
            # Around every tool call: skip config, msgspec and locks entirely.
            from vibe_vault.commands import hook_journal

            hook_journal.record(data)
            return 0
        if name != "SessionEnd":
            # No cycle collections: a Stop's imports, state and note are a
            # few MB of objects, nearly none of them in a cycle, held until
            # the process ends (its read stops at the hook's deadline), and
            # the collector walked them ~40 times (~7 ms of CPU, an eighth of
            # what a Stop adds to starting Python). SessionEnd, which may
            # rebuild a project's notes from thousands of records, keeps it.
            import gc

            gc.disable()
        elif collecting:
            import gc

            gc.enable()
        from vibe_vault import config

        cfg = config.load()
        state_dir = cfg.state_dir
        from vibe_vault.times import set_zone

        set_zone(cfg.get("timezone"))  # (looked up only when a time is told)
        _handle(data, cfg, started)
    except SystemExit:
        pass
    except BaseException as exc:
        from vibe_vault.log import warn

        warn(state_dir, f"hook: {type(exc).__name__}: {exc}")
    return 0


def _handle(data: bytes, cfg: Any, started: float) -> None:
    import msgspec

    from vibe_vault.log import info, warn

    if not data.strip():
        warn(cfg.state_dir, "hook: empty input on stdin (expected Claude Code's event JSON)")
        return
    if cfg.blocking:
        warn(cfg.state_dir, f"hook: {cfg.blocking[0]}")
        return
    try:
        event = msgspec.json.decode(data)
    except msgspec.DecodeError:
        warn(cfg.state_dir, "hook: stdin is not JSON")
        return
    if not isinstance(event, dict):
        warn(cfg.state_dir, "hook: stdin JSON is not an object")
        return
    name = _str(event, "hook_event_name") or ""
    if name in TOOL_EVENTS:
        from vibe_vault.commands import hook_journal

        hook_journal.record(data)
        return
    if name not in ("Stop", "SubagentStop", "PreCompact", "SessionEnd", "SessionStart",
                    "StopFailure", "PostCompact"):
        return  # UserPromptSubmit and events we have no use for: nothing to do
    if name == "SessionStart":
        from vibe_vault.commands import hook_start

        hook_start.run(event, cfg)
        return
    from vibe_vault import hook_input

    # Checked before anything is named by them; a bad one is told by its type
    # and length only (it may be a path, a control sequence or a secret).
    raw_sid = event.get("session_id")
    problem = hook_input.session_id_problem(raw_sid)
    if problem is not None:
        warn(cfg.state_dir, f"hook {name}: {problem}; nothing done")
        return
    assert isinstance(raw_sid, str)
    sid = raw_sid
    from vibe_vault import privacy

    if privacy.is_forgotten(cfg.state_dir, sid):
        return  # forgotten, or of an excluded project: nothing is kept
    problem = hook_input.cwd_problem(event.get("cwd"))
    if problem is not None:
        warn(cfg.state_dir, f"hook {name}: {problem}; left out")
        event = {k: v for k, v in event.items() if k != "cwd"}
    cwd = _str(event, "cwd") or ""
    if cfg.get("exclude_projects") and cwd:
        from vibe_vault.project import project_name

        if privacy.excluded(cfg.get("exclude_projects"), project_name(cwd), cwd):
            privacy.bury(cfg.state_dir, sid)
            _let_go(cfg, sid)
            _last_run(cfg.state_dir, name, "-")
            return
    transcript, problem = locate_transcript(event, sid, cfg)
    if transcript is None:
        warn(cfg.state_dir, f"hook {name}: {problem or 'transcript'}; no transcript of "
             f"session {sid[:40]} found under {cfg.projects_root}")
        return
    if problem is not None:
        info(cfg.state_dir, f"hook {name}: {problem}; read the one named by the session id")
    budget = cfg.get("session_end_deadline") if name == "SessionEnd" else cfg.get(
        "hook_deadline")
    deadline = started + float(budget)
    lock_timeout = max(0.0, min(float(cfg.get("lock_timeout")), deadline - time.monotonic()))
    from vibe_vault import kept_modules
    from vibe_vault.lock import LockTimeout
    from vibe_vault.regular import NotAFile

    with kept_modules.bundle("session"):  # (its ~60 modules' code read as one)
        from vibe_vault.session import Update, update_session

    end_reason = None
    if name == "SessionEnd":
        end_reason = _str(event, "reason") or "other"
    # On StopFailure the "message" is the API error: the transcript tells it.
    provisional = (_str(event, "last_assistant_message") or "") if name == "Stop" else None
    # What runs on in the background (2.1.145+): the session is paused, not done.
    from vibe_vault.running import listed

    found = listed(event) if name in ("Stop", "SubagentStop") else None
    try:
        out = update_session(cfg, Update(
            session_id=sid, transcript=os.fspath(transcript), deadline=deadline,
            lock_timeout=lock_timeout, end_reason=end_reason, provisional=provisional,
            listed=found, listed_whole=name == "Stop",
            want_record=name == "SessionEnd", cwd_hint=_str(event, "cwd")))
    except LockTimeout:
        info(cfg.state_dir, f"hook {name}: session {sid[:40]} busy; the next event catches up")
        _archive(cfg, name, sid, transcript, deadline)
        return
    except NotAFile as exc:
        warn(cfg.state_dir, f"hook {name}: {exc}")
        return
    except FileNotFoundError:
        from vibe_vault.session import Store

        if Store(cfg.state_dir).load(sid) is None:
            # Ended before Claude Code wrote anything (a killed client, a session
            # left at the permissions dialog): nothing to keep, nothing wrong.
            info(cfg.state_dir, f"hook {name}: no transcript for {sid[:40]} (none written)")
        else:
            warn(cfg.state_dir, f"hook {name}: transcript {transcript} not found")
        return
    except OSError as exc:
        warn(cfg.state_dir, f"hook {name}: cannot write ({exc.strerror or exc}); will retry")
        return
    # (an excluded session's id is kept nowhere, this file included)
    _last_run(cfg.state_dir, name, "-" if out.forgotten else sid)
    if not out.complete:
        info(cfg.state_dir, f"hook {name}: deadline reached; the next event continues")
    if out.record is not None and out.complete:
        _refresh_indexes(cfg, out, deadline)
    if not out.forgotten:
        _archive(cfg, name, sid, transcript, deadline)


def _archive(cfg: Any, name: str, sid: str, transcript: str, deadline: float) -> None:
    """At SessionEnd, the session's new bytes go to the archive (`vv restore`
    brings them back once Claude Code's cleanup has deleted the transcript)."""
    if name != "SessionEnd" or not cfg.get("archive"):
        return
    from vibe_vault.archive import at_session_end
    from vibe_vault.log import info, warn

    try:
        handed_on = at_session_end(cfg, sid, transcript, deadline)
    except OSError as exc:
        from vibe_vault.privacy import is_forgotten

        if not is_forgotten(cfg.state_dir, sid):  # (a forget removed the copy meanwhile)
            warn(cfg.state_dir, f"hook SessionEnd: archive: {exc.filename or ''} "
                 f"{exc.strerror or exc}".replace("  ", " "))
        return
    if handed_on:
        info(cfg.state_dir, f"hook SessionEnd: {handed_on}")


def _refresh_indexes(cfg: Any, out: Any, deadline: float) -> None:
    """At SessionEnd: the session's registry row and search index rows, its
    links and its project's and the home note, each from indexed reads, so
    the cost is the same whatever the number of sessions. When the database
    is busy, new (still to be built) or time is short, the record is staged
    and `vv index` does the rest in the background."""
    import sqlite3

    from vibe_vault import index, registry, vaultdb
    from vibe_vault.commands import index_cmd

    left = deadline - time.monotonic()
    try:
        if left < INLINE_INDEX_SECONDS:
            raise TimeoutError
        conn = registry.connect(cfg, timeout=DATABASE_WAIT, fill=False)
    except (TimeoutError, registry.NotReady, sqlite3.Error, OSError):
        registry.stage(cfg.state_dir, out.record)
        index_cmd.start_in_background(cfg)
        return
    try:
        with vaultdb.transaction(conn):
            from vibe_vault import privacy

            if privacy.is_forgotten(cfg.state_dir, out.session_id):
                return  # forgotten since its note was written: `vv forget` removes the rest
            before = index.touched_before(conn, out.session_id)
            registry.put(conn, out.record)
            vaultdb.put_indexed(conn, out.state_key, out.state_stamp, out.session_id,
                                out.document)
            purge = vaultdb.purge_owed(conn)
        index.session_ended(cfg, conn, out.session_id, before)
        if purge:  # a secret learned late: out of the index's file, in the background
            index_cmd.start_in_background(cfg)
    except sqlite3.Error as exc:
        from vibe_vault.log import info

        registry.stage(cfg.state_dir, out.record)
        index_cmd.start_in_background(cfg)
        info(cfg.state_dir, f"hook SessionEnd: database busy ({exc}); vv index takes over")
    finally:
        conn.close()


def _last_run(state_dir: str, name: str, sid: str) -> None:
    """`<state>/last-run`: when a hook last did its work, for `vv doctor`."""
    from vibe_vault import locations
    from vibe_vault.atomic import write_atomic

    line = f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')} {name} {sid[:80]}\n"
    with contextlib.suppress(OSError):
        write_atomic(locations.last_run(state_dir), line.encode(), mode=0o600)


def locate_transcript(event: dict[str, Any], sid: str, cfg: Any
                      ) -> tuple[str | None, str | None]:
    """(the session's transcript, why the event's transcript_path was not
    used): the path the event gives when it is a `.jsonl` file in Claude
    Code's projects folder and there, else `<projects>/*/<sid>.jsonl`, else
    the given path (its absence is the caller's to report), else None."""
    from vibe_vault.hook_input import transcript_path

    path, problem = transcript_path(event.get("transcript_path"), cfg.projects_root)
    if path is not None and os.path.exists(path):
        return path, None
    # (sid is a plain id: hook_input.session_id_problem let it through)
    root = cfg.projects_root
    try:
        for slug in sorted(os.scandir(root), key=lambda e: e.name):
            candidate = os.path.join(slug.path, f"{sid}.jsonl")
            if os.path.isfile(candidate):
                return candidate, problem
    except OSError:
        pass
    return path, problem  # None, or a path to report missing


def _let_go(cfg: Any, sid: str) -> None:
    """What was kept of a session before its project was excluded goes now
    (the user's own words in its note excepted), not at the next backfill."""
    from vibe_vault.lock import LockTimeout, SessionLock
    from vibe_vault.session import Store, forget_files

    store = Store(cfg.state_dir)
    try:
        # A hook holding it meanwhile finds the exclusion in the transcript itself.
        with SessionLock(store.lock_path(sid), min(0.5, float(cfg.get("lock_timeout")))):
            state = store.load(sid) or store.kept(sid)  # (a state of another version too)
            if state is not None:
                forget_files(cfg, store, sid, state.note, keep_user_words=True)
    except (LockTimeout, OSError):
        return

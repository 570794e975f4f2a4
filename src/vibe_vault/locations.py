"""Where things are: vibe-vault's state directory and every path under it, and
where Claude Code keeps a session's subagent files.

The tool hooks run around every tool call and import nothing heavy (os, zlib and
`paths`, which every hook loads anyway), so this is the one place the state
directory is worked out and laid out, for them and for the rest.

`<state>` is `state_dir()` (or the Config's); below it:

    sessions/<id>.state        a session's saved state (session.Store)
    sessions/<id>.said         what the state's session said before its last
                               64 kB of it (state.said_path)
    journal/<id>.jsonl         tool timings the Pre/PostToolUse hooks append
    locks/<kind>-<slot>.lock   the lock slots sessions share (lock.slot_path)
    locks/<name>.lock          named locks: backfill, index, registry; and the
                               per-session lock files of older versions
    registry.d/<id>.msgpack    a record SessionEnd could not write to the database
    forgotten/<id>             tombstones of forgotten and excluded sessions
    archive/                   compressed copies of transcripts (unless archive_dir)
    archive-pending/<id>       a session whose archive run has yet to finish
    tmp/                       scratch (restored archives)
    vault.db                   the registry and search database
    registry.msgpack           the registry before the database (read once, to migrate)
    vv.log, vv.log.1           diagnostics
    last-run                   when a hook last did its work
"""

from __future__ import annotations

import os
from zlib import crc32 as _crc32

from vibe_vault.paths import safe_id

TYPE_CHECKING = False  # typing costs `vv search` ~5 ms to import
if TYPE_CHECKING:
    from vibe_vault.atomic import StrPath


def tool_key(tool_use_id: str) -> str:
    """What vibe-vault keeps of an id (a tool call's, a message's): a checksum
    and the length, enough to pair a call with its result and its timing, and
    no transcript text (an id is as untrusted as any other field)."""
    raw = tool_use_id.encode("utf-8", "surrogatepass")
    return f"t{_crc32(raw):08x}{len(raw):x}"


# -- a session's subagent files ----------------------------------------------------------
#
# Claude Code names a subagent's transcript `agent-<id>.jsonl` (its metadata
# `agent-<id>.meta.json`). Since 2.1 they are in `<slug>/<session id>/subagents/`;
# before, beside the session's transcript, owned by the `sessionId` inside
# (discover.sniff_session_id tells which).

SUBAGENTS = "subagents"
AGENT_PREFIX = "agent-"


def is_agent_file(name: str) -> bool:
    """A subagent's file, by its name (a transcript or its metadata)."""
    return name.startswith(AGENT_PREFIX)


def subagents_dir(transcript: str) -> str:
    """Where the session whose transcript this is keeps its subagents' files."""
    folder, name = os.path.split(transcript)
    return os.path.join(folder, os.path.splitext(name)[0], SUBAGENTS)


def in_subagents_dir(path: str) -> bool:
    """A file in a session's `subagents/` folder (not a legacy one beside the
    transcripts); also an archive's name for one (`subagents/<name>`)."""
    return os.path.basename(os.path.dirname(path)) == SUBAGENTS


def home() -> str:
    return os.path.expanduser("~")


def anchored(path: str, base: str) -> str:
    """`~` expanded; a relative path taken from `base`, not from wherever Claude
    Code happens to run the hook (it runs hooks in each project's directory)."""
    path = os.path.expanduser(path)
    return path if os.path.isabs(path) else os.path.join(base, path)


def state_dir() -> tuple[str, str]:
    """(state directory, where that came from): `VV_STATE_DIR`, else
    `$XDG_STATE_HOME/vibe-vault`, else `~/.local/state/vibe-vault`; relative
    values are taken from the home directory."""
    env = os.environ.get("VV_STATE_DIR")
    if env:
        return anchored(env, home()), "VV_STATE_DIR"
    xdg = os.environ.get("XDG_STATE_HOME")
    if xdg:
        return os.path.join(anchored(xdg, home()), "vibe-vault"), "XDG_STATE_HOME"
    return os.path.join(home(), ".local", "state", "vibe-vault"), "default"


# -- the layout under <state>/ ------------------------------------------------------------

SESSIONS = "sessions"
JOURNAL = "journal"
LOCKS = "locks"
STAGED = "registry.d"
FORGOTTEN = "forgotten"
DATABASE = "vault.db"


def sessions_dir(state: StrPath) -> str:
    return os.path.join(state, SESSIONS)


# A saved state's file is named for its key, the session's safe id (`paths.safe_id`).
STATE_SUFFIX = ".state"
SAID_SUFFIX = ".said"


def state_file(state: StrPath, sid: str) -> str:
    return saved_state(state, safe_id(sid))


def saved_state(state: StrPath, key: str) -> str:
    """`sessions/<key>.state`, for a key as its file is named (a safe id)."""
    return os.path.join(state, SESSIONS, key + STATE_SUFFIX)


def state_key(name: str) -> str | None:
    """The key of the saved state a file in `sessions/` named `name` is (None: it is
    none, such as a side file or a writer's temporary file)."""
    return name[:-len(STATE_SUFFIX)] if name.endswith(STATE_SUFFIX) else None


def said_file(state_path: str) -> str:
    """The side file of the saved state at `state_path`."""
    return (state_path[:-len(STATE_SUFFIX)] if state_path.endswith(STATE_SUFFIX)
            else state_path) + SAID_SUFFIX


def journal_dir(state: StrPath) -> str:
    return os.path.join(state, JOURNAL)


def journal_file(state: StrPath, sid: str) -> str:
    return os.path.join(state, JOURNAL, f"{safe_id(sid)}.jsonl")


def locks_dir(state: StrPath) -> str:
    return os.path.join(state, LOCKS)


def lock_file(state: StrPath, name: str) -> str:
    """`locks/<name>.lock`: a slot (`session-3f`), a named lock (`backfill`), or
    an older version's per-session lock (the session's safe id)."""
    return os.path.join(state, LOCKS, f"{name}.lock")


def session_lock_file(state: StrPath, sid: str) -> str:
    """The session's own lock file, as versions before lock slots kept it."""
    return lock_file(state, safe_id(sid))


def staged_dir(state: StrPath) -> str:
    """Where a record waits when SessionEnd finds the database busy."""
    return os.path.join(state, STAGED)


def staged_file(state: StrPath, sid: str) -> str:
    return os.path.join(state, STAGED, f"{safe_id(sid)}.msgpack")


def forgotten_dir(state: StrPath) -> str:
    return os.path.join(state, FORGOTTEN)


def tombstone(state: StrPath, sid: str) -> str:
    return os.path.join(state, FORGOTTEN, safe_id(sid))


def archive_dir(state: StrPath) -> str:
    return os.path.join(state, "archive")


def archive_pending_dir(state: StrPath) -> str:
    return os.path.join(state, "archive-pending")


def archive_pending_file(state: StrPath, sid: str) -> str:
    """The marker of a session whose archive run has yet to finish."""
    return os.path.join(state, "archive-pending", safe_id(sid))


def tmp_dir(state: StrPath) -> str:
    return os.path.join(state, "tmp")


def database(state: StrPath) -> str:
    return os.path.join(state, DATABASE)


def line_key(state: StrPath) -> str:
    """The vault's random key for line fingerprints (line_key.load)."""
    return os.path.join(state, "line-key")


def shared_secrets(state: StrPath) -> str:
    """The keys of the secrets every session keeps out (shared_secrets)."""
    return os.path.join(state, "shared-secrets")


def legacy_registry(state: StrPath) -> str:
    """The registry as versions before the database kept it."""
    return os.path.join(state, "registry.msgpack")


def log_file(state: StrPath) -> str:
    return os.path.join(state, "vv.log")


def old_log_file(state: StrPath) -> str:
    """The log before its last rotation."""
    return os.path.join(state, "vv.log.1")


def last_run(state: StrPath) -> str:
    return os.path.join(state, "last-run")


def logs(state: StrPath) -> tuple[str, str, str]:
    """Every file that may name a session in a line: the log, its last
    rotation and `last-run` (scrubbed when a session is forgotten)."""
    return log_file(state), old_log_file(state), last_run(state)


def agent_key(transcript: str | os.PathLike[str], agent: str | os.PathLike[str]) -> str:
    """A subagent file's key in its session's state: its path relative to the
    transcript's folder, with '/' (its name alone when it lies elsewhere)."""
    parent = os.path.dirname(os.fspath(transcript))
    path = os.fspath(agent)
    if parent and path.startswith(parent + os.sep):
        return path[len(parent) + 1 :].replace(os.sep, "/")
    return os.path.basename(path)

"""What a hook's input may name, checked before anything is done with it.

Claude Code sends a `session_id` (a UUID) and a `transcript_path` (a `.jsonl`
file in its projects folder, `$CLAUDE_CONFIG_DIR/projects`, default
`~/.claude/projects`). Anything else in those fields names no file here, is
used for nothing, and is described in the log by its type and length only:
the value itself may be a path, a control sequence or a secret.

Light on purpose: the tool hooks check a session id around every tool call
(`os` and `re`; the redaction gate is imported only for an id that is not a
UUID, which Claude Code never sends).
"""

from __future__ import annotations

import os
import re

from vibe_vault.session_ids import plausible_id

MAX_ID = 128  # Claude Code's ids have 36 characters
MAX_PATH = 4096  # PATH_MAX on Linux
MAX_DEPTH = 8  # below the projects folder: <slug>/<id>/subagents/workflows/<run>/agent-x.jsonl
_HEX = frozenset("0123456789abcdefABCDEF")
# C0 and C1 controls, line separators and bidi overrides: never in a name
# Claude Code makes (its folder names keep only [A-Za-z0-9] and '-'). (A
# pattern compiled on first use, by `re`'s cache: the tool hooks never use it.)
_CONTROL = (r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f"
            r"\u202a-\u202e\u2066-\u2069]")


def is_uuid(value: str) -> bool:
    """A UUID as Claude Code writes one (8-4-4-4-12 hex digits)."""
    digits = value.replace("-", "")
    return (len(value) == 36 and len(digits) == 32 and _HEX.issuperset(digits)
            and all(value[i] == "-" for i in (8, 13, 18, 23)))


def described(value: object) -> str:
    """What a field held, without its value: its JSON type, and a string's length."""
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if value is None:
        return "null"
    return "a list" if isinstance(value, list) else "an object"


def session_id_problem(value: object) -> str | None:
    """Why `value` is not a session id ('' never is); None when it can be one."""
    if not isinstance(value, str) or not value:
        return f"session_id is {described(value)}, not a session id"
    if len(value) > MAX_ID or not plausible_id(value):
        return (f"session_id is {described(value)} that is not a session id (letters, "
                f"digits, '-', '_' and '.', at most {MAX_ID})")
    if not is_uuid(value) and _secret_shaped(value):
        return f"session_id is {described(value)} shaped like a secret, not a session id"
    return None


def _secret_shaped(value: str) -> bool:
    """The redaction gate would hide some of it (a token given as an id)."""
    from vibe_vault.redact import DEFAULT

    return bool(DEFAULT.redact(value)[0] != value)


def transcript_path(value: object, projects_root: str) -> tuple[str | None, str | None]:
    """(the transcript's path, why the field was not used): the path, `~`
    expanded, when `value` is a `.jsonl` file's path in Claude Code's projects
    folder; else (None, the reason), or (None, None) when the field is absent."""
    if value is None or value == "":
        return None, None
    if not isinstance(value, str):
        return None, f"transcript_path is {described(value)}, not a path"
    what = f"transcript_path ({described(value)})"
    if len(value) > MAX_PATH:
        return None, f"{what} is longer than a path can be"
    if "\x00" in value:
        return None, f"{what} holds a NUL"
    path = os.path.expanduser(value)
    if not os.path.isabs(path):
        return None, f"{what} is not an absolute path"
    if not path.endswith(".jsonl"):
        return None, f"{what} is not a .jsonl file"
    # '..' is refused as written, before any normalising could hide it.
    if ".." in path.replace("\\", "/").split("/"):
        return None, f"{what} holds '..'"
    rel = _below(path, projects_root)
    if rel is None:
        return None, f"{what} is not in Claude Code's projects folder {projects_root}"
    parts = rel.split(os.sep)
    if len(parts) < 2 or len(parts) > MAX_DEPTH:
        return None, f"{what} is not a session's file in the projects folder"
    # (Every character _CONTROL names is one Python does not print: a path
    # that prints whole, as nearly all do, needs no pattern compiled.)
    if not rel.isprintable() and re.search(_CONTROL, rel):
        return None, f"{what} holds a control character"
    return path, None


def _below(path: str, root: str) -> str | None:
    """`path` relative to `root` (as given, or with its symlinks resolved), when
    it is inside it; None otherwise. Lexical: the hook reads what Claude Code
    named, and never follows the path out of the folder by a '..'."""
    path = os.path.normpath(path)
    roots = [os.path.normpath(os.path.expanduser(root))]
    try:
        real = os.path.realpath(roots[0])
    except (OSError, ValueError):
        real = roots[0]
    if real != roots[0]:
        roots.append(real)
    for base in roots:
        prefix = base.rstrip(os.sep) + os.sep
        if path.startswith(prefix) and len(path) > len(prefix):
            return path[len(prefix):]
    return None


def cwd_problem(value: object) -> str | None:
    """Why `value` is no working directory (None when absent or fine). A
    folder's name may hold any character but NUL, a newline included."""
    if value is None:
        return None
    if not isinstance(value, str):
        return f"cwd is {described(value)}, not a path"
    if len(value) > MAX_PATH or "\x00" in value:
        return f"cwd ({described(value)}) is not a path"
    return None

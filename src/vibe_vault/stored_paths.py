"""Transcript paths as vibe-vault keeps them: never as they are.

A path can hold a secret: a project folder named with a token (Claude Code
names it after the working directory, each character outside [A-Za-z0-9] a
`-`, so `ghp_x…` is `ghp-x…`, a form no rule reads), a config folder under a
URL with a password. The real path stays where it must be, on disk in Claude
Code's own folder. The database knows each transcript file it read by a key
(`file_key`, below: no name of the path in it); the archive's manifest keeps
the gate's form (`stored_path`): the path itself when the gate leaves it
whole, else each component the gate would change replaced by `~` and a digest
of it (so a folder's files still share its stored prefix, and a stored path
still names one file), or the whole path so when a secret spans components.

Cheap per file: a folder is looked at once (cached), and the names Claude
Code gives files (UUIDs, `agent-<hex>`, `subagents`) skip the gate.
"""

from __future__ import annotations

import os
from functools import lru_cache

from vibe_vault import patterns

_PLAIN_NAME = patterns.compile(
    r"(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    r"|agent-[0-9a-fA-F]{1,40}|subagents|workflows|journal)(?:\.jsonl|\.meta\.json)?\Z")
_SEPARATORS = patterns.compile(r"([\\/])")


def _passes(text: str) -> bool:
    from vibe_vault.redact import DEFAULT

    return bool(DEFAULT.redact(text)[0] == text)


def _digest(text: str) -> str:
    import hashlib

    return "~" + hashlib.blake2b(text.encode("utf-8", "surrogatepass"),
                                 digest_size=10).hexdigest()


def _component(name: str) -> str:
    if not name or _PLAIN_NAME.match(name) or _passes(name):
        return name
    return _digest(name)


@lru_cache(maxsize=4096)
def stored_folder(folder: str) -> str:
    """A folder's path as the database keeps it."""
    if _passes(folder):
        return folder
    pieces = _SEPARATORS.split(folder)  # names and the separators between them
    out = "".join(p if _SEPARATORS.fullmatch(p) else _component(p) for p in pieces)
    return out if _passes(out) else _digest(folder)


def stored_path(path: str) -> str:
    """A file's path as the database keeps it (see the module's note)."""
    folder, name = os.path.split(path)
    if not folder:
        return _component(name)
    head = stored_folder(folder)
    tail = _component(name)
    if head == folder and tail == name:
        return path
    return head + path[len(folder):len(path) - len(name)] + tail


# -- the database's keys ----------------------------------------------------------------------
#
# The database keeps no transcript path at all, not even the gate's form of it:
# Claude Code names a project's folder after its working directory with each
# character outside [A-Za-z0-9] a '-' (`ghp_x…` is `ghp-x…`), a form no rule
# reads as a token. Each name is kept as a digest of the path up to and
# including it (a session's own names, UUIDs and `agent-…`, as they are): a
# folder's files still share its key as a prefix (backfill finds them by it),
# a key still names one file, and no name can be looked up on its own.


def _key_of(prefix: str) -> str:
    import hashlib

    return "~" + hashlib.blake2b(prefix.encode("utf-8", "surrogatepass"),
                                 digest_size=8).hexdigest()


@lru_cache(maxsize=4096)
def folder_key(folder: str) -> str:
    """A folder's key in the database (see above)."""
    pieces = _SEPARATORS.split(folder)  # names and the separators between them
    out = []
    for i, piece in enumerate(pieces):
        if not piece or i % 2 or _PLAIN_NAME.match(piece):
            out.append(piece)
        else:
            out.append(_key_of("".join(pieces[:i + 1])))
    return "".join(out)


def file_key(path: str) -> str:
    """A transcript file's key in the database: its folder's key, and its name
    as it is when Claude Code gave it (a UUID, `agent-…`), else a digest."""
    split = _SEPARATORS.split(path)
    if len(split) == 1:
        return path if _PLAIN_NAME.match(path) else _key_of(path)
    name = split[-1]
    head = folder_key("".join(split[:-2]))
    if not name or _PLAIN_NAME.match(name):
        return head + split[-2] + name
    return head + split[-2] + _key_of(path)

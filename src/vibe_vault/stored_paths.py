"""Transcript paths as the database keeps them: through the redaction gate.

The registry remembers each transcript file it read by its path (backfill's
"unchanged" check), and a path can hold a secret: a project folder named with
a token, a config folder under a URL with a password. The real path stays
where it must be, on disk in Claude Code's own folder; the database and the
records hold this form: the path itself when the gate leaves it whole, else
each component the gate would change replaced by `~` and a digest of it (so
a folder's files still share its stored prefix, and a stored path still
names one file), or the whole path so when a secret spans components.

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

"""Secrets learned in one session, kept out of every other session of the home.

A value the gate catches in one session (`export AWS_SECRET_ACCESS_KEY=V`)
is learned by that session's fold (fold.context: `Context.learn`); the keys
of those that are random enough to be nobody's ordinary word (`shareable`
there) are put here, in `<state>/shared-secrets`, and every session's update
takes them in before it reads (session.update_session): V said bare in
another session of any project is hidden there too, in its note, state,
index and search.

Per home, not per project: a user expects a secret, once caught, never to
show anywhere in the vault, and the same key or token is pasted in several
projects; only random values are shared, so a key of one project hides
nothing ordinary in another.

The file holds what the states hold already: keys (context.learned_keys,
blake2b digests of the value in lower case), never a value. It sits in the
private state directory (0600) beside the states that hold the same keys, so
it tells nobody more than they do; a shared value is random (8 characters or
more of mixed kinds), so its key cannot be tried against a list of
passwords. One key a line, in the order they were learned, after a header;
a line that is not a key is skipped (a file edited by hand hides no less).
At most MAX_KEYS: each is taken into every state (MAX_KEYS bounds what a
state grows by), and the matching costs one digest a word whatever their
number. This module is the file's only writer: under its named lock, written
whole aside and renamed.
"""

from __future__ import annotations

import os

from vibe_vault import locations
from vibe_vault.atomic import StrPath

HEADER = "vibe-vault shared secrets 1"
MAX_KEYS = 1000
_READ_LIMIT = 64 * (MAX_KEYS + 1)
_HEX = frozenset("0123456789abcdef")
_cache: dict[str, tuple[tuple[int, int, int], list[str]]] = {}


def path(state_dir: StrPath) -> str:
    return locations.shared_secrets(state_dir)


def _is_key(line: str) -> bool:
    """A digest of 24 hex digits, or `j<n>:` before one (context.joined_key)."""
    if line[:1] == "j":
        size, colon, line = line[1:].partition(":")
        if not (colon and size.isdigit()):
            return False
    return len(line) == 24 and _HEX.issuperset(line)


def load(state_dir: StrPath) -> list[str]:
    """The keys shared so far, oldest first; [] when none (or unreadable: a
    session then keeps out what it learned itself, as before)."""
    from vibe_vault.regular import read_regular

    where = path(state_dir)
    try:
        st = os.stat(where, follow_symlinks=False)
    except OSError:
        return []
    stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
    seen = _cache.get(where)
    if seen is not None and seen[0] == stamp:  # (a backfill updates thousands of sessions)
        return seen[1]
    try:
        raw = read_regular(where, _READ_LIMIT, follow_symlinks=False)
    except OSError:
        return []
    lines = raw.decode("ascii", "replace").splitlines()
    keys = [k for k in lines[1:] if _is_key(k)] if lines[:1] == [HEADER] else []
    keys = list(dict.fromkeys(keys))[:MAX_KEYS]
    _cache[where] = (stamp, keys)
    return keys


def add(state_dir: StrPath, keys: list[str], timeout: float) -> int:
    """Put `keys` in the file (those not there yet, while fewer than MAX_KEYS
    are); how many were added. Raises LockTimeout when another process holds
    the file past `timeout` (the session's next update tries again), OSError
    when it cannot be written."""
    from vibe_vault.atomic import write_atomic
    from vibe_vault.lock import SessionLock

    new = [k for k in dict.fromkeys(keys) if _is_key(k)]
    if not new:
        return 0
    with SessionLock(locations.lock_file(state_dir, "shared-secrets"), timeout):
        _cache.pop(path(state_dir), None)  # read again under the lock
        old = load(state_dir)
        known = set(old)
        more = [k for k in new if k not in known][:max(0, MAX_KEYS - len(old))]
        if not more:
            return 0
        body = "\n".join([HEADER, *old, *more]) + "\n"
        write_atomic(path(state_dir), body.encode("ascii"), mode=0o600)
        _cache.pop(path(state_dir), None)
    return len(more)
